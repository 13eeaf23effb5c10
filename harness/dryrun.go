package harness

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// dryRunReport says what a dry run (run -y) wrote and what asking each
// model named would cost: its prompts' input tokens counted with tiktoken
// at the model's price (--price, the config's, the built-in table), and
// output at most the max_tokens each request sends.
func dryRunReport(cfg Config, plan []*outputJob) {
	questions := 0
	dirs := map[string]bool{}
	for _, job := range plan {
		questions += len(job.Requests)
		dirs[filepath.Dir(job.OutPath)] = true
	}
	where := fmt.Sprintf("in %d folders (beside their sheets)", len(dirs))
	if len(dirs) == 1 {
		for d := range dirs {
			where = "in " + d
		}
	}
	cfg.say("dry run: wrote %d output %s (%d questions) %s: the prompts and ground truths; no model was asked",
		len(plan), plural(len(plan), "file", "files"), questions, where)
	if cfg.Batch != nil {
		return // the batch files' estimate, at batch prices, is said
	}
	if len(cfg.Models) == 0 {
		cfg.say("dry run: name models with -m for an estimate of what asking them would cost")
		return
	}
	for _, name := range cfg.Models {
		info := model.Describe(name)
		in, outMax, capped := 0, 0, true
		for _, job := range plan {
			if job.Model != name {
				continue
			}
			for _, r := range job.Requests {
				in += inputTokens(info, r)
				if r.Settings.MaxTokens <= 0 {
					capped = false
				}
				outMax += r.Settings.MaxTokens
			}
		}
		p := cfg.priceFor(name)
		if p == nil {
			p = info.Price
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s: about %d input tokens", name, in)
		switch {
		case p == nil:
			b.WriteString("; cost unknown (no price for this model; --price IN,OUT)")
		case p.In == 0 && p.Out == 0:
			b.WriteString(": no cost (priced at $0)")
		case capped:
			fmt.Fprintf(&b, ": estimated cost %s, plus at most %s for output (%d tokens at most)", dollars(float64(in)*p.In/1e6), dollars(float64(outMax)*p.Out/1e6), outMax)
		default:
			fmt.Fprintf(&b, ": estimated cost %s, plus output (no max_tokens to bound it)", dollars(float64(in)*p.In/1e6))
		}
		cfg.say("%s", b.String())
	}
}

// dollars writes an amount with four decimals, or with the digits that
// show it when it is less than a cent (a short sheet costs $0.000011, not
// $0.0000).
func dollars(x float64) string {
	if x > 0 && x < 0.01 {
		return fmt.Sprintf("$%.*f", 1-int(math.Floor(math.Log10(x))), x)
	}
	return fmt.Sprintf("$%.4f", x)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
