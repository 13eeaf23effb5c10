package harness

import (
	"fmt"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// checkBudget refuses, before any sheet is read, a run with a cap
// (Config.MaxCost) on a model that has no price: what it spends could not
// be counted.
func (cfg Config) checkBudget(ms models) error {
	if cfg.MaxCost <= 0 || cfg.DryRun {
		return nil
	}
	for _, name := range ms.names {
		if _, ok := model.Cost(ms.infos[name], model.Usage{}, cfg.prices().For(name)); !ok {
			return fmt.Errorf("--max-cost: %s has no price, so what it spends cannot be counted; give one with --price IN,OUT or the config's prices", name)
		}
	}
	return nil
}

// boundedOutput refuses, under a cap, a question that sends no max_tokens
// to a model that is not offline: its reply, and so its cost, would have
// no bound before it is sent.
func boundedOutput(o *plan.Output, i int, t *model.Task, q *result.Question) error {
	if t.Settings.MaxTokens > 0 || o.File.Sheet.ModelInfo != nil && o.File.Sheet.ModelInfo.Offline {
		return nil
	}
	return fmt.Errorf("%s:%d: question %q sends no max_tokens, so --max-cost cannot bound what it costs; set --max-tokens, or max_tokens in the sheet's meta",
		o.SheetPath, o.Item(i).Line, q.Name)
}
