package write

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strings"

	"github.com/evalmd/evalmd/batch"
	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/tokens"
)

// Console is where a writer says what it wrote: W, with each line
// starting with Clear (what clears a progress line drawn in place).
type Console struct {
	W     io.Writer
	Clear string
}

func (c Console) Say(format string, args ...any) { say(c.W, c.Clear, format, args...) }

// BatchFiles writes, for a dry run with --batch, each model's request
// files as they would be submitted (split at the provider's limits) into
// Dir, and says what they would cost at batch prices. The requests of
// every output are gathered; Close writes the files, model by model.
type BatchFiles struct {
	dir, runID string
	force      bool
	console    Console
	prices     plan.Prices
	names      []string
	models     map[string]model.Model
	apis       map[string]model.BatchAPI
	jobs       map[string][]batch.Job
}

// NewBatchFiles makes each model of names (with a placeholder key: a dry
// run calls no server) and refuses one without a batch API.
func NewBatchFiles(names []string, newModel func(string, model.Options) (model.Model, error), opt model.Options,
	dir, runID string, force bool, console Console, prices plan.Prices) (*BatchFiles, error) {
	if opt.APIKey == "" {
		opt.APIKey = "dry-run-no-key"
	}
	b := &BatchFiles{dir: dir, runID: runID, force: force, console: console, prices: prices, names: names,
		models: map[string]model.Model{}, apis: map[string]model.BatchAPI{}, jobs: map[string][]batch.Job{}}
	for _, name := range names {
		m, err := newModel(name, opt)
		if err != nil {
			return nil, err
		}
		api, err := batch.API(m)
		if err != nil {
			return nil, err
		}
		b.models[name], b.apis[name] = m, api
	}
	return b, nil
}

// Write gathers the output's requests, keyed as a run keys them (so a dry
// run's custom_ids are the real run's).
func (b *BatchFiles) Write(o *plan.Output, _ *Spill) error {
	for i, r := range o.Tasks {
		b.jobs[o.Model] = append(b.jobs[o.Model], batch.Job{Key: o.Key(i), Task: r})
	}
	return nil
}

// Close writes each model's request files.
func (b *BatchFiles) Close() error {
	for _, name := range b.names {
		jobs := b.jobs[name]
		files, err := batch.Plan(b.apis[name], jobs, model.BatchLimits{})
		if err != nil {
			return err
		}
		base := "batch-requests-" + result.SafeName(name)
		if b.runID != "" {
			base += "-" + result.SafeName(b.runID)
		}
		size := 0
		for i, f := range files {
			path := filepath.Join(b.dir, fmt.Sprintf("%s-%d.jsonl", base, i+1))
			if err := outfile.Write(path, f.Lines, outfile.Options{Force: b.force}); err != nil {
				return err
			}
			size += len(f.Lines)
			b.console.Say("%s: wrote %s (%d requests)", name, path, len(f.IDs))
		}
		b.console.Say("%s: %d requests in %d batch files (%.1f MB); %s", name, len(jobs), len(files), float64(size)/1e6,
			batchEstimate(b.models[name].Info(), b.prices.For(name), jobs, files))
	}
	return nil
}

// batchEstimate says what jobs would cost at batch prices: input tokens
// counted with tiktoken (an estimate for models that are not OpenAI's;
// images by the provider's rule), output tokens at most the max_tokens each request
// line sends.
func batchEstimate(info model.Info, override *model.Price, jobs []batch.Job, files []batch.File) string {
	p := info.Price
	if override != nil {
		p = override
	}
	in := 0
	for _, j := range jobs {
		in += inputTokens(info, j.Task.Request)
	}
	outMax, capped := 0, true
	for _, f := range files {
		for _, line := range bytes.Split(bytes.TrimSuffix(f.Lines, []byte("\n")), []byte("\n")) {
			var l struct {
				Body, Params struct {
					MaxTokens           int `json:"max_tokens"`
					MaxCompletionTokens int `json:"max_completion_tokens"`
				}
			}
			_ = json.Unmarshal(line, &l)
			n := max(l.Body.MaxTokens, l.Body.MaxCompletionTokens, l.Params.MaxTokens)
			if n == 0 {
				capped = false
			}
			outMax += n
		}
	}
	if p == nil {
		return fmt.Sprintf("about %d input tokens; cost unknown (no price for this model; --price IN,OUT)", in)
	}
	bp := model.BatchPrice(*p)
	var b strings.Builder
	fmt.Fprintf(&b, "estimated cost at batch prices: $%.4f for about %d input tokens", float64(in)*bp.In/1e6, in)
	if capped {
		fmt.Fprintf(&b, ", plus at most $%.4f for output (%d tokens at most)", float64(outMax)*bp.Out/1e6, outMax)
	} else {
		b.WriteString(", plus output (no max_tokens to bound it)")
	}
	return b.String()
}

// DryRunReport says, at Close, what a dry run (run -y) wrote and what
// asking each model named would cost: its prompts' input tokens counted
// with tiktoken at the model's price (--price, the config's, the built-in
// table), and output at most the max_tokens each request sends. With
// Batch, the batch files' estimate at batch prices is said instead.
type DryRunReport struct {
	Console Console
	Models  []string // the models named; none: no estimate
	// Describe says what a model is from its name alone (its price).
	Describe func(name string) model.Info
	Batch    bool
	Prices   plan.Prices
	// files, questions and requests count the outputs written and what
	// they ask; dirs are their folders; estimates is what each model
	// named would be sent, as Ask counts it.
	files, questions, requests, epochs int
	dirs                               map[string]bool
	estimates                          map[string]*estimate
}

// estimate is what a dry run's prompts would send a model: input tokens,
// and output tokens at most (capped: every request sends max_tokens).
type estimate struct {
	in, outMax int
	capped     bool
	info       model.Info
	// read and write are the input tokens the prompt cache is expected
	// to serve and take (cached): each output's shared prefix
	// (model.Request.Prefix) written by its first question, read by the
	// others; written holds the outputs whose prefix is written.
	read, write int
	written     map[string]bool
}

// cached counts t's prefix, if it has one, as written to the prompt cache
// by the first question of output out, and read by the others.
func (e *estimate) cached(out string, t model.Task) {
	if t.Prefix.IsZero() {
		return
	}
	if e.written[out] {
		e.read += t.Prefix.Tokens
		return
	}
	if e.written == nil {
		e.written = map[string]bool{}
	}
	e.written[out] = true
	e.write += t.Prefix.Tokens
}

// inputCost is what e's input tokens cost at p: with the prompt cache's
// rates for the tokens it is expected to serve and take, and without.
func (e *estimate) inputCost(p *model.Price) (cached, whole float64) {
	whole = float64(e.in) * p.In / 1e6
	// Counted apart, prefix and prompt may round apart: the cached part
	// is never more than the whole.
	read := min(e.read, e.in)
	write := min(e.write, e.in-read)
	cached, _ = model.Cost(e.info, model.Usage{In: e.in, CacheRead: read, CacheWrite: write}, p)
	return cached, whole
}

// Ask counts question t of output o, which the run would ask: a dry run
// counts each question as it is built, holding none.
func (d *DryRunReport) Ask(o *plan.Output, t model.Task) {
	d.requests++
	if o.Epoch <= 1 {
		d.questions++
	}
	if d.Batch || !slices.Contains(d.Models, o.Model) {
		return
	}
	if d.estimates == nil {
		d.estimates = map[string]*estimate{}
	}
	e := d.estimates[o.Model]
	if e == nil {
		e = &estimate{capped: true, info: d.Describe(o.Model)}
		d.estimates[o.Model] = e
	}
	e.in += inputTokens(e.info, t.Request)
	e.cached(o.OutPath, t)
	if t.Settings.MaxTokens <= 0 {
		e.capped = false
	}
	e.outMax += t.Settings.MaxTokens
}

func (d *DryRunReport) Write(o *plan.Output, _ *Spill) error {
	d.files++
	d.epochs = max(d.epochs, o.Epochs)
	if d.dirs == nil {
		d.dirs = map[string]bool{}
	}
	d.dirs[filepath.Dir(o.OutPath)] = true
	return nil
}

func (d *DryRunReport) Close() error {
	asked := fmt.Sprintf("%d questions", d.questions)
	if d.epochs > 1 {
		// Each epoch is a request of its own, and the estimate counts
		// every one.
		asked = fmt.Sprintf("%d requests: %d questions in up to %d epochs", d.requests, d.questions, d.epochs)
	}
	where := fmt.Sprintf("in %d folders (beside their sheets)", len(d.dirs))
	if len(d.dirs) == 1 {
		for dir := range d.dirs {
			where = "in " + dir
		}
	}
	d.Console.Say("dry run: wrote %d output %s (%s) %s: the prompts and ground truths; no model was asked",
		d.files, plural(d.files, "file", "files"), asked, where)
	if d.Batch {
		return nil // the batch files' estimate, at batch prices, is said
	}
	if len(d.Models) == 0 {
		d.Console.Say("dry run: name models with -m for an estimate of what asking them would cost")
		return nil
	}
	for _, name := range d.Models {
		d.Console.Say("%s", d.say(name))
	}
	return nil
}

// say is the line of what asking the model named would cost.
func (d *DryRunReport) say(name string) string {
	e := d.estimates[name]
	if e == nil {
		e = &estimate{capped: true, info: d.Describe(name)}
	}
	p := d.Prices.For(name)
	if p == nil {
		p = e.info.Price
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s: about %d input tokens", name, e.in)
	if e.read+e.write > 0 {
		fmt.Fprintf(&b, " (%d expected read from the prompt cache, %d written to it)", e.read, e.write)
	}
	if p == nil {
		b.WriteString("; cost unknown (no price for this model; --price IN,OUT)")
		return b.String()
	}
	in, whole := e.inputCost(p)
	cost := dollars(in)
	if e.read+e.write > 0 {
		cost += fmt.Sprintf(" (%s without the prompt cache)", dollars(whole))
	}
	switch {
	case p.In == 0 && p.Out == 0:
		b.WriteString(": no cost (priced at $0)")
	case e.capped:
		fmt.Fprintf(&b, ": estimated cost %s, plus at most %s for output (%d tokens at most)", cost, dollars(float64(e.outMax)*p.Out/1e6), e.outMax)
	default:
		fmt.Fprintf(&b, ": estimated cost %s, plus output (no max_tokens to bound it)", cost)
	}
	return b.String()
}

// inputTokens estimates the input tokens of a request: its text counted
// with tiktoken (the model's encoding, else o200k_base: an estimate for
// models that are not OpenAI's), and its images by the provider's rule
// (model.ImageTokens).
func inputTokens(info model.Info, r model.Request) int {
	enc, err := tokens.EncodingFor(info.Model)
	if err != nil || enc == "" {
		enc = "o200k_base"
	}
	text := r.System
	for _, msg := range r.Messages {
		text += msg.Content
	}
	n, err := tokens.Count(text, enc)
	if err != nil {
		n = len(text) / 4
	}
	for _, msg := range r.Messages {
		for _, img := range msg.Images {
			n += model.ImageTokens(info, img)
		}
	}
	return n
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
