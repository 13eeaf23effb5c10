package execute

// This file is run --max-cost on the execute step's side: the worst case
// of each request at the model's price (the runner keeps the cap), the
// batch's worst case checked before anything is submitted, and the
// outputs of a run the cap stopped written with what was not asked.

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/write"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
)

// NotAsked is the note of a question a run left unasked because its
// --max-cost was reached.
const NotAsked = "not asked: the run's --max-cost was reached; rerun the same command to ask it"

// inexactMargin is how much more than tiktoken's count a worst case takes
// for a model whose tokenizer is not OpenAI's: Claude's tokenizer counts
// up to about a fifth more tokens than o200k_base on English and code.
const inexactMargin = 1.3

// agentToolTokens is what one python call's output may add to an agent's
// next request: its 16 KiB cap at a byte a token, the worst case.
const agentToolTokens = 16 << 10

// worstCost is the most one attempt at t may cost on the model: its input
// (tiktoken's count, with inexactMargin for other tokenizers) at the
// input price or, when higher, the cache write price, and its max_tokens
// at the output price. An agent question is every turn at its largest:
// each turn's input the first's plus every earlier reply and tool output.
func worstCost(info model.Info, price *model.Price, t model.Task) float64 {
	in := write.InputTokens(info, t.Request)
	if !info.ExactTokens {
		in = int(math.Ceil(float64(in) * inexactMargin))
	}
	out, turns := t.Settings.MaxTokens, 1
	if s := t.Solve; s != nil && s.Mode == model.ModeAgent {
		turns = s.MaxTurns
		if turns <= 0 {
			turns = 10
		}
	}
	var cost float64
	for k := range turns {
		n := in + k*(out+agentToolTokens)
		plain, _ := model.Cost(info, model.Usage{In: n}, price)
		written, _ := model.Cost(info, model.Usage{In: n, CacheWrite: n}, price)
		reply, _ := model.Cost(info, model.Usage{Out: out}, price)
		cost += max(plain, written) + reply
	}
	return cost
}

// budget is the runner's Budget for a cap of max dollars; nil for none.
func budget(max float64, infos map[string]model.Info, prices plan.Prices) *runner.Budget {
	if max <= 0 {
		return nil
	}
	return &runner.Budget{Max: max, Worst: func(name string, t model.Task) float64 {
		return worstCost(infos[name], prices.For(name), t)
	}}
}

// checkBatchBudget refuses a batch whose worst case, at batch prices,
// does not fit the cap: a batch cannot be stopped halfway once
// submitted, so it must fit before it is.
func checkBatchBudget(js *jobs, b *runner.Budget) error {
	if b == nil {
		return nil
	}
	total := 0.0
	for i := range js.Len() {
		j, err := js.Job(i)
		if err != nil {
			return err
		}
		sr, q := js.locate(i)
		sr.take(q)
		total += b.Worst(j.Model.Name(), j.Task) * model.BatchDiscount
	}
	if total > b.Max {
		return fmt.Errorf("--max-cost $%.4f: the batch's %d requests could cost up to $%.4f at batch prices (input and max_tokens); raise the cap, or ask fewer (--limit, --questions)",
			b.Max, js.Len(), total)
	}
	return nil
}

// writeUnasked writes the outputs a run stopped by its budget left
// unfinished: their answers as they came, the questions not asked with
// no answer and the NotAsked note, ungraded. The journal stays, so the
// same command asks only those.
func writeUnasked(ctx context.Context, runs []*sheetRun, opt Options, wall time.Duration) error {
	var errs []error
	for _, sr := range runs {
		if sr.written || sr.current != nil || sr.left == 0 {
			continue
		}
		for q := range sr.out.Len() {
			if sr.spill.Has(q) {
				continue
			}
			_, rec, err := sr.out.Question(ctx, q)
			if err != nil {
				return err
			}
			rec.Note = NotAsked
			if err := sr.spill.PutQuestion(&sr.out.File.Sheet, q, rec); err != nil {
				return fmt.Errorf("%s on %s: %w", sr.out.Model, sr.out.SheetPath, err)
			}
			sr.left--
		}
		errs = append(errs, sr.finish(opt, wall))
	}
	return errors.Join(errs...)
}
