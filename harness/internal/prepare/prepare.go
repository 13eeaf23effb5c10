// Package prepare is the input side of a run's plan step: it reads the
// sheets (Read), and turns each job of the plan into an Output: the
// request of each question it asks (package prompt, with the question's
// resolved settings) and the output file the answers fill in, as yet
// unanswered (Outputs). Everything a sheet gets wrong stops the run here,
// before any model is asked.
package prepare

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/tokens"
	"github.com/evalmd/evalmd/workbook"
)

// Options are what reading and preparing take from the run.
type Options struct {
	Schema *schema.Schema
	// DataKeys are the meta keys benchmarks declare as their own data: no
	// warning names them as unknown.
	DataKeys []string
	// Settings are the run's own settings (config files and flags), laid
	// with each sheet's and question's meta into the question's.
	Settings []setting.Layer
	// Vision forces images on or off; nil decides by the model.
	Vision *bool
	// VisionOf says, by model name, whether a model is sent images, over
	// what its name says and under Vision.
	VisionOf map[string]bool
	// AllowOutsideFiles and DataRoots: see prompt.Builder.
	AllowOutsideFiles bool
	DataRoots         []string
	// NoModel is a dry run without a model: prompts are written whole
	// and no model is recorded.
	NoModel bool
	DryRun  bool
	// Reformat says a reformat model is given: without one, a sheet whose
	// answers need InfiAgent's reformat step is refused (unless DryRun).
	Reformat bool
	Created  time.Time
	// Stderr receives warnings; Clear starts each line said.
	Stderr io.Writer
	Clear  string
	// Models are the models made, by name (none in a dry run): each says
	// what a request's settings send (model.SendSettings), which is what
	// the request carries and the output records.
	Models map[string]model.Model
	// Problems, when set, gathers every problem of the sheets and their
	// questions, where a run (nil) stops at the first: evalmd check -f.
	Problems *Problems
	// Check, when set, is given every question of every output as Outputs
	// builds it to check it (none is kept): an error stops the plan.
	Check func(o *plan.Output, i int, t *model.Task, q *result.Question) error
}

// Problems are what a check finds in the sheets: the problems that stop
// a run, and the warnings a run says and goes on.
type Problems struct {
	Errors   []error
	Warnings []string
}

// stop is what becomes of err, a problem that stops a run: the run's
// error, or noted in p, which goes on.
func (p *Problems) stop(err error) error {
	if p == nil || err == nil {
		return err
	}
	p.Errors = append(p.Errors, err)
	return nil
}

// Sheet is a sheet read.
type Sheet struct {
	Path  string
	Info  sheet.Info
	Items []sheet.Item

	// resolved says settings and run hold the settings resolved (resolve).
	resolved bool
	// settings are each item's settings, resolved once for the run and
	// shared by its jobs (each model's, each epoch's, each shard's).
	settings []*setting.Resolved
	// run are the sheet's run-level settings: its meta under the run's;
	// config the run's alone (flags and config files), which name the
	// model's configuration (result.Sheet.Configuration).
	run, config *setting.Resolved
}

// resolve resolves, once, each question's settings and the sheet's
// run-level ones under the run's (run). The questions without meta of
// their own (LIME copies the sheet's meta only into questions with a meta
// section) share one resolution, their settings being the same; an error,
// which names its question, is each one's.
func (s *Sheet) resolve(run []setting.Layer) {
	if s.resolved {
		return
	}
	s.resolved = true
	sheetLayer := setting.Layer{Source: setting.SheetMeta, File: s.Path, Values: s.Info.Meta, Lines: s.Info.MetaLines}
	s.run = setting.ResolveKept("", append([]setting.Layer{sheetLayer}, run...)...)
	s.config = setting.ResolveKept("", run...)
	s.settings = make([]*setting.Resolved, len(s.Items))
	var shared *setting.Resolved
	for i := range s.Items {
		it := &s.Items[i]
		if it.Meta == nil && it.Name != "" && shared != nil && shared.Err == nil {
			s.settings[i] = shared
			continue
		}
		r := setting.ResolveKept(it.Name, prompt.Layers(s.Path, s.Info.Meta, s.Info.MetaLines, it, run)...)
		if it.Meta == nil && it.Name != "" && shared == nil {
			shared = r
		}
		s.settings[i] = r
	}
}

// Plan is the sheet as the plan step sees it: each question's settings
// resolved once under the run's (run), kept for its requests, and its
// epochs. An epochs value that is not one is Plan's error; another
// setting's error is said as the question's request is built.
func (s *Sheet) Plan(run []setting.Layer, p *Problems) (plan.Sheet, error) {
	key, err := filepath.Abs(s.Path) // once a sheet: a relative path costs a getwd
	if err != nil {
		key = s.Path
	}
	s.resolve(run)
	ps := plan.Sheet{Path: s.Path, Key: key, Questions: make([]plan.Question, len(s.Items))}
	for i := range s.Items {
		it := &s.Items[i]
		v := s.settings[i].Values
		if s.settings[i].Err != nil {
			// Another setting's error may have come first: the epochs
			// are resolved alone.
			layers := prompt.Layers(s.Path, s.Info.Meta, s.Info.MetaLines, it, run)
			for j := range layers {
				layers[j] = layers[j].Only("epochs")
			}
			if v, err = setting.Resolve(it.Name, nil, layers...); err != nil {
				if err := p.stop(err); err != nil {
					return ps, err
				}
			}
		}
		ps.Questions[i] = plan.Question{Name: it.Name, ID: strings.TrimSpace(it.Meta["id"]), Epochs: v.Epochs}
	}
	return ps, nil
}

// Read parses the sheets, saying each warning (and how many were said):
// the parser's, and a meta key no setting, package or benchmark reads. A
// sheet that lacks a question, a question's question or its answer
// (sheet.Doc.Incomplete: saved half-written) stops the run before
// anything is asked or written.
func Read(paths []string, opt Options) ([]Sheet, int, error) {
	warnings := 0
	var out []Sheet
	for _, path := range paths {
		doc, err := sheet.ParseFile(path, opt.Schema)
		if err != nil {
			if err := opt.Problems.stop(err); err != nil {
				return nil, warnings, err
			}
			continue
		}
		// The parser's warnings first: a misspelt section ("#### answr",
		// did you mean "answer"?) is why a question has none. One at the
		// line a refusal names says what the refusal says.
		incomplete := doc.Incomplete(!opt.DryRun)
		if opt.Problems == nil && len(incomplete) > 0 {
			incomplete = incomplete[:1] // where the run stops
		}
		refused := map[int]bool{}
		for _, err := range incomplete {
			if se := (*sheet.Error)(nil); errors.As(err, &se) {
				refused[se.Line] = true
			}
		}
		for _, w := range doc.Warnings {
			if !refused[w.Line] {
				opt.warn(w.String())
				warnings++
			}
		}
		for _, err := range incomplete {
			if err := opt.Problems.stop(fmt.Errorf("not run: %w", err)); err != nil {
				return nil, warnings, err
			}
		}
		info, items := doc.TakeItems()
		for _, w := range unknownKeys(path, info, items, opt.DataKeys) {
			opt.warn(w)
			warnings++
		}
		out = append(out, Sheet{Path: path, Info: info, Items: items})
	}
	return out, warnings, nil
}

func (opt Options) say(format string, args ...any) {
	fmt.Fprint(opt.Stderr, opt.Clear+fmt.Sprintf(format, args...)+"\n")
}

// warn says a warning, or notes it in Problems.
func (opt Options) warn(msg string) {
	if opt.Problems != nil {
		opt.Problems.Warnings = append(opt.Problems.Warnings, msg)
		return
	}
	opt.say("warning: %s", msg)
}

// unknownKeys are the warnings about the meta keys of a sheet that no
// setting, package or benchmark reads (a misspelt setting does nothing),
// each once.
func unknownKeys(path string, info sheet.Info, items []sheet.Item, data []string) []string {
	keys := setting.NewKeyChecker(data)
	out := keys.Check(path, info.Meta, info.MetaLines)
	seen := map[string]bool{}
	for _, w := range out {
		seen[w] = true
	}
	for i := range items {
		for _, w := range keys.Check(path, items[i].Meta, items[i].MetaLines) {
			if !seen[w] { // a question's meta holds its sheet's
				seen[w] = true
				out = append(out, w)
			}
		}
	}
	return out
}

// Outputs makes the output of each job: its unanswered output file's
// sheet record and the builder of its questions' requests and records
// (plan.Output.Build), each question built once here to check it
// (Options.Check) and none kept: a run builds each again as it asks it.
// infos describe the models by name. It returns the warnings said once
// for the run.
func Outputs(ctx context.Context, sheets []Sheet, jobs []plan.Job, infos map[string]model.Info, runID string, opt Options) ([]*plan.Output, int, error) {
	notes := &notes{said: map[string]bool{}, missing: map[string]bool{}, noImages: map[string]map[string]bool{}}
	outs := make([]*plan.Output, 0, len(jobs))
	checked := map[int]bool{}
	for _, job := range jobs {
		s := &sheets[job.Sheet]
		if !opt.Reformat && !opt.DryRun && opt.Problems == nil && !checked[job.Sheet] {
			checked[job.Sheet] = true
			if err := checkReformat(s, job.Questions); err != nil {
				return nil, 0, err
			}
		}
		o, err := prepare(ctx, opt, s, job, infos[job.Model], runID, notes)
		if err != nil {
			return nil, 0, err
		}
		outs = append(outs, o)
	}
	warnings := 0
	if n := len(notes.missingOrder); n > 0 {
		opt.warn(fmt.Sprintf("%d parquet table%s named by chat questions do%s not exist (first: %s): the prompts name them, code or agent mode would need them",
			n, map[bool]string{true: "", false: "s"}[n == 1], map[bool]string{true: "es", false: ""}[n == 1], notes.missingOrder[0]))
		warnings++
	}
	for _, line := range notes.imagelessLines() {
		opt.warn(line)
		warnings++
	}
	return outs, warnings, nil
}

// checkReformat refuses a sheet whose questions asked (by index) need
// InfiAgent's reformat step when the run has no reformat model.
func checkReformat(s *Sheet, questions []int) error {
	for _, q := range questions {
		it := &s.Items[q]
		if strings.TrimSpace(sheet.Steering(it.Meta, s.Info.Meta)["reformat"]) == "required" {
			return fmt.Errorf("%s:%d: question %q has reformat: required (its prompt has no answer format; InfiAgent's reformat step adds it): run with --reformat MODEL (InfiAgent's is gpt-3.5-turbo-16k)", s.Path, it.Line, it.Name)
		}
	}
	return nil
}

// prepare makes the output of one job: its file's sheet record and its
// questions' builder, with which it checks every question (opt.Check);
// notes gathers what is said once for the run.
func prepare(ctx context.Context, opt Options, s *Sheet, job plan.Job, minfo model.Info, runID string, notes *notes) (*plan.Output, error) {
	out := newOutputFile(opt, s, job, minfo, runID)
	// The run-level settings: the sheet's meta under the flags. A
	// question's own meta may differ; its record holds what was sent.
	s.resolve(opt.Settings)
	if err := opt.Problems.stop(s.run.Err); err != nil {
		return nil, err
	}
	qb := &questions{opt: opt, s: s, job: job, model: opt.Models[job.Model], notes: notes,
		b: newBuilder(opt, s, job.Model, minfo, notes), sayImages: opt.saysImages(job.Model, minfo)}
	qb.send = func(st model.Settings) (model.Settings, []model.SettingNote, error) {
		return model.SendSettings(qb.model, minfo, st)
	}
	run := s.run.Values
	if !opt.NoModel {
		// Recorded as sent; the questions say what is not.
		if st, _, err := qb.send(run.Gen); err == nil {
			run.Gen = st
		}
	}
	if !run.Gen.IsZero() {
		out.Sheet.Settings = &run.Gen
	}
	if c := s.config.Values.Gen; s.config.Err == nil && !c.IsZero() {
		out.Sheet.Configuration = &c
	}
	o := &plan.Output{Job: job, SheetPath: s.Path, File: out,
		Build: func(ctx context.Context, i int) (model.Task, result.Question, error) { return qb.build(ctx, i, true) },
		Item:  func(i int) *sheet.Item { return &s.Items[job.Questions[i]] }}
	var shared model.CommonPrefix
	for i := range job.Questions {
		t, q, err := qb.build(ctx, i, false)
		if err != nil {
			if err := opt.Problems.stop(err); err != nil {
				return nil, err
			}
			continue
		}
		shared.Add(t.Request)
		o.Solve = o.Solve || t.Solve != nil
		if opt.Check != nil {
			if err := opt.Check(o, i, &t, &q); err != nil {
				return nil, err
			}
		}
	}
	if run.PromptCache != "off" {
		qb.prefix = cachedPrefix(shared, minfo)
		o.Prefix = qb.prefix
	}
	return o, nil
}

// cachedPrefix is the prefix the questions of an output share, when the
// model's provider caches one that long (model.Info.CacheMin), its tokens
// counted by tiktoken (the model's encoding, else o200k_base, as the dry
// run's estimate counts: an estimate for a model that is not OpenAI's);
// else none.
func cachedPrefix(shared model.CommonPrefix, minfo model.Info) model.Prefix {
	p := shared.Prefix()
	if minfo.CacheMin <= 0 || p.IsZero() {
		return model.Prefix{}
	}
	enc, err := tokens.EncodingFor(minfo.Model)
	if err != nil || enc == "" {
		enc = tokens.O200kBase
	}
	n, err := tokens.Count(shared.SharedText(), enc)
	if err != nil || n < minfo.CacheMin {
		return model.Prefix{}
	}
	p.Tokens = n
	return p
}

// questions builds the questions of one output: each one's request and
// unanswered record. It is used from the run's workers at once: the
// prompt builder and notes are safe for that.
type questions struct {
	opt   Options
	s     *Sheet
	job   plan.Job
	b     *prompt.Builder
	model model.Model // nil in a dry run
	send  func(model.Settings) (model.Settings, []model.SettingNote, error)
	notes *notes
	// prefix is what the questions share, marked for the provider's
	// prompt cache; zero when none is (cachedPrefix).
	prefix model.Prefix
	// sayImages says a question's images not sent are told of (notes):
	// not when the run said --vision off, which asked for it, nor for an
	// offline model, which no image could inform.
	sayImages bool
}

// build makes question i of the job: its task and record, the record's
// request key (reuse.Key) when keyed and the run has the model.
func (qb *questions) build(ctx context.Context, i int, keyed bool) (model.Task, result.Question, error) {
	job, it := qb.job, &qb.s.Items[qb.job.Questions[i]]
	req, values, err := qb.b.BuildResolved(ctx, qb.s.Path, it, qb.s.settings[job.Questions[i]])
	if err != nil {
		return req, result.Question{}, err
	}
	if !qb.opt.NoModel {
		if req.Settings, err = sendSettings(qb.opt, qb.send, job.Model, it.Name, req.Settings, values, qb.notes.once); err != nil {
			return req, result.Question{}, err
		}
	}
	epochTask(&req, job.Epoch)
	req.Prefix = qb.prefix
	q := questionRecord(it, &req, values, job.Model)
	if len(q.ImagesNotSent) > 0 && qb.sayImages {
		qb.notes.imageless(job.Model, fmt.Sprintf("%s\x00%d", qb.s.Path, job.Questions[i]))
	}
	if !job.Shard.IsZero() {
		q.Position = job.Questions[i] + 1 // the parts merge back in sheet order
	}
	if keyed && qb.model != nil {
		q.RequestKey = reuse.Key(qb.model, req)
	}
	return req, q, nil
}

// saysImages says whether the images a model is not sent are told of
// (notes): not when the run said so (--vision off, or the model's own
// vision setting), nor for an offline model.
func (opt Options) saysImages(modelName string, minfo model.Info) bool {
	_, stated := opt.VisionOf[modelName]
	return opt.Vision == nil && !stated && !minfo.Offline
}

// newBuilder is the prompt builder of a job's requests: for the model
// (its vision, unless the run says, and its context, which a dry run
// without a model does not cut the prompts for).
func newBuilder(opt Options, s *Sheet, modelName string, minfo model.Info, notes *notes) *prompt.Builder {
	vision := minfo.Vision
	if v, ok := opt.VisionOf[modelName]; ok {
		vision = v
	}
	if opt.Vision != nil {
		vision = *opt.Vision
	}
	b := &prompt.Builder{
		Dir: filepath.Dir(s.Path), Model: modelName, Vision: vision, UserFirst: minfo.UserFirst,
		SheetMeta: s.Info.Meta, SheetMetaLines: s.Info.MetaLines,
		Warn:              opt.warn,
		AllowOutsideFiles: opt.AllowOutsideFiles,
		DataRoots:         opt.DataRoots,
		MissingTable:      notes.missingTable,
		RenderWorkbook:    workbook.Render, Settings: opt.Settings,
		Truncate: func(text string, p setting.Prompt) (string, error) {
			return truncate(opt, modelName, minfo, text, p, notes.once)
		},
	}
	if opt.NoModel {
		// A dry run without a model: no context to cut the prompts for,
		// so they are written whole.
		b.Truncate = nil
	}
	return b
}

// newOutputFile is a job's output file as yet without questions: its
// sheet record.
func newOutputFile(opt Options, s *Sheet, job plan.Job, minfo model.Info, runID string) *result.File {
	info := s.Info
	name := info.Name
	if !info.Present {
		name = strings.TrimSuffix(filepath.Base(s.Path), ".md")
	}
	out := &result.File{Sheet: result.Sheet{
		Name: name, RunID: runID, ModelName: job.Model, MetaData: info.Meta, Question: info.Question,
		SheetFile: s.Path, Created: opt.Created.UTC().Format(result.CreatedLayout), ModelInfo: &minfo, DryRun: opt.DryRun,
		Subset: job.Subset, Version: version(s.Items),
	}}
	if job.Epochs > 1 {
		out.Sheet.Epoch, out.Sheet.Epochs = job.Epoch, job.Epochs
	}
	if !job.Shard.IsZero() {
		out.Sheet.Shard, out.Sheet.Shards = job.Shard.K, job.Shard.N
	}
	if opt.NoModel {
		out.Sheet.ModelInfo = nil // no model: nothing to record
	}
	return out
}

// questionRecord is a question's record in the output file, as yet
// unanswered: what its request sends (req) and its settings (values).
func questionRecord(it *sheet.Item, req *model.Task, values setting.Values, modelName string) result.Question {
	sent := req.Settings
	last := len(req.Messages) - 1 // the question, after the conversation's turns
	q := result.Question{
		Name: it.Name, MetaData: it.Meta, GroundTruth: it.GroundTruth, Accepted: it.Accepted,
		Question: req.Messages[last].Content, ModelName: modelName, Settings: &sent, SolveSettings: values.Record(),
		Grader:       cmp.Or(strings.TrimSpace(values.Grader), "lime"),
		Conversation: req.Messages[:last:last], ResponseSchema: string(req.Schema),
	}
	if last == 0 {
		q.Conversation = nil
	}
	if o, ok := values.From["grading"]; ok {
		q.Grading, q.GradingFrom = values.Grading, o.Source.String()
	}
	if it.Template != nil {
		// The message was built by a template; keep the question's own
		// text for a judge (LIME's question_usr).
		q.QuestionUsr = it.Text
	}
	if req.System != "" || it.System != nil {
		s := req.System
		q.System = &s
	}
	if names := prompt.ImageNames(it); len(names) > 0 {
		// The builder sends every image of a question or, for a model
		// without vision, none.
		if len(req.Messages[last].Images) > 0 {
			q.ImagesSent = names
		} else {
			q.ImagesNotSent = names
		}
	}
	return q
}

// epochTask makes a question's task that of epoch k: past the first, the
// epoch is keyed (model.Task.Epoch) and a seed, where one is sent, is the
// question's seed + k - 1, so each epoch is a sample of its own.
func epochTask(t *model.Task, k int) {
	if k <= 1 {
		return
	}
	t.Epoch = k
	if t.Settings.Seed != nil {
		seed := *t.Settings.Seed + int64(k-1)
		t.Settings.Seed = &seed
	}
}

// sendSettings asks what a question's settings send to the model
// (model.SendSettings: its own rules, else model.Info's Sendable), so the
// request and its record hold what is sent. A setting the model cannot
// send stops the run before any call, naming where it was set; each one
// sent otherwise than asked (an OpenAI reasoning model's temperature, a
// thinking budget its server has no member for, Anthropic's temperature
// with thinking) is said once per run and model, naming where it was set,
// instead of a refusal per question.
func sendSettings(opt Options, send func(model.Settings) (model.Settings, []model.SettingNote, error), modelName, question string,
	s model.Settings, values setting.Values, once func(string) bool) (model.Settings, error) {
	at := func(name string) string {
		o, ok := values.From[name]
		switch {
		case !ok:
			return ""
		case o.Source == setting.Flag:
			return " (--" + strings.ReplaceAll(name, "_", "-") + ")"
		}
		return " (" + o.String() + ")"
	}
	sent, notes, err := send(s)
	if err != nil {
		var n *model.SettingNote
		if errors.As(err, &n) {
			if o, ok := values.From[n.Name]; ok && o.Source != setting.Flag {
				return s, fmt.Errorf("%s: question %q: model %s: %w", o, question, modelName, err)
			}
		}
		return s, fmt.Errorf("question %q: model %s: %w", question, modelName, err)
	}
	for _, n := range notes {
		if !once("sendable|" + modelName + "|" + n.Name) {
			continue
		}
		how := "is not sent"
		if n.As != "" {
			how = "is sent as " + n.As
		}
		opt.say("warning: %s: %s %s%s %s: %s; the outputs record the settings sent", modelName, n.Name, setting.Lookup(n.Name).Text(&values), at(n.Name), how, n.Why)
	}
	return sent, nil
}

// truncate cuts a user message as the question's settings ask, for the
// model's context: their context_limit and encoding (--context-limit and
// --encoding win over the meta) win over the model's Info. For a model
// that is not OpenAI's, tiktoken's counts are an estimate, which is said
// once per run and model (once says whether a line is new). An offline model
// (mock, oracle, replay) has no context: without a context_limit its
// prompts are kept whole, as a dry run without a model keeps them, and
// with one they are cut by offlineEncoding unless an encoding is given;
// either is said once.
func truncate(opt Options, modelName string, minfo model.Info, text string, p setting.Prompt, once func(string) bool) (string, error) {
	rule := tokens.Rule{Truncate: p.Truncate, Reserve: p.Reserve, ContextLimit: p.ContextLimit, Encoding: p.Encoding}
	if !rule.Cuts() {
		return text, nil
	}
	sayOnce := func(line string) {
		if once(line) {
			fmt.Fprintln(opt.Stderr, line)
		}
	}
	enc, _ := tokens.EncodingFor(minfo.Model)
	if minfo.Offline {
		if minfo.ContextLimit <= 0 && p.ContextLimit == 0 {
			sayOnce(fmt.Sprintf("%s: prompts are not cut (truncate: %s): an offline model has no context limit; --context-limit N cuts them as a model with N tokens would", modelName, p.Truncate))
			return text, nil
		}
		if enc == "" && p.Encoding == "" {
			enc = offlineEncoding
			sayOnce(fmt.Sprintf("%s: prompts are cut by tiktoken's %s token counts (an offline model has no encoding; --encoding names another)", modelName, enc))
		}
	} else if !minfo.ExactTokens {
		used := cmp.Or(p.Encoding, enc)
		if used != "" {
			sayOnce(fmt.Sprintf("warning: %s: prompts are cut by tiktoken's %s token counts, an estimate for a model that is not OpenAI's", modelName, used))
		}
	}
	return tokens.CutRule(text, rule, tokens.Limits{Model: modelName, ContextLimit: minfo.ContextLimit, Encoding: enc})
}

// notes gathers, while a run is planned and its questions are built (by
// its workers at once), what is said once for the run rather than once
// per sheet.
type notes struct {
	mu           sync.Mutex
	said         map[string]bool // lines said (truncate, settings sent otherwise)
	missing      map[string]bool // tables named by chat questions that do not exist
	missingOrder []string
	// noImages holds, by model, the questions whose images the model is
	// not sent (it takes none); noImagesOrder the models in turn.
	noImages      map[string]map[string]bool
	noImagesOrder []string
}

// imageless records that model is not sent the images of the question
// key names.
func (n *notes) imageless(model, key string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	qs := n.noImages[model]
	if qs == nil {
		qs = map[string]bool{}
		n.noImages[model] = qs
		n.noImagesOrder = append(n.noImagesOrder, model)
	}
	qs[key] = true
}

// imagelessLines are the lines said once for the run about the images
// not sent, one per model.
func (n *notes) imagelessLines() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var out []string
	for _, m := range n.noImagesOrder {
		k := len(n.noImages[m])
		out = append(out, fmt.Sprintf("%s: the images of %d question%s are not sent (no vision by the model's name; --vision on sends them, if the model takes images)",
			m, k, map[bool]string{true: "", false: "s"}[k == 1]))
	}
	return out
}

// once says whether line is said for the first time, and notes it.
func (n *notes) once(line string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.said[line] {
		return false
	}
	n.said[line] = true
	return true
}

// missingTable records a table a chat question names that does not exist.
func (n *notes) missingTable(path string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if !n.missing[path] {
		n.missing[path] = true
		n.missingOrder = append(n.missingOrder, path)
	}
}

// offlineEncoding is the encoding an offline model's prompts are cut by
// when a context limit is given and no encoding: the newest OpenAI models'.
const offlineEncoding = tokens.O200kBase

// version is the version of a sheet's questions (all of them, before a
// subset chooses), which each of its outputs records.
func version(items []sheet.Item) string {
	return result.SheetVersion(len(items), func(i int) (string, string, *string) {
		return items[i].Name, items[i].Prompt, items[i].GroundTruth
	})
}
