package execute

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/harness/internal/prepare"
	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/harness/internal/write"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/syncbuf"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/builtin"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/schema"
)

// threeQuestions is a sheet whose answers are the question names in
// lower case, so that a model answering the name is right on each.
const threeQuestions = "# S\n## A\n#### question\nsay a\n#### answer\na\n## B\n#### question\nsay b\n#### answer\nb\n## C\n#### question\nsay c\n#### answer\nc\n"

// scripted is a model for the execute step's decisions: it answers each
// question by its name (replies; the name in lower case when absent),
// or with the whole response of responses, fails the questions of fail,
// and records the questions asked, in order. The first busy[name] times
// a question is asked, the server is overloaded (a 503).
// after, when set, runs after each answer (a test stops the run there).
type scripted struct {
	name      string
	replies   map[string]string
	responses map[string]model.Response
	fail      map[string]bool
	busy      map[string]int
	after     func(question string)

	mu    sync.Mutex
	asked []string
}

func (m *scripted) Name() string { return m.name }

func (m *scripted) Info() model.Info {
	return model.Info{Provider: "test", Model: m.name, Offline: true, Price: &model.Price{In: 1e6, Out: 2e6}}
}

func (m *scripted) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return m.Answer(ctx, model.Task{Request: req})
}

func (m *scripted) Answer(ctx context.Context, t model.Task) (model.Response, error) {
	name := t.Question.Name
	m.mu.Lock()
	m.asked = append(m.asked, name)
	m.mu.Unlock()
	if m.after != nil {
		defer m.after(name)
	}
	if err := ctx.Err(); err != nil {
		return model.Response{}, fmt.Errorf("model %s: %w", m.name, err)
	}
	m.mu.Lock()
	busy := m.busy[name] > 0
	if busy {
		m.busy[name]--
	}
	m.mu.Unlock()
	if busy {
		return model.Response{}, &model.APIError{Provider: "test", Status: 503, Retryable: true, Message: "overloaded"}
	}
	if m.fail[name] {
		return model.Response{}, fmt.Errorf("model %s, question %q: the server broke", m.name, name)
	}
	if r, ok := m.responses[name]; ok {
		return r, nil
	}
	reply, ok := m.replies[name]
	if !ok {
		reply = string(rune(name[0] - 'A' + 'a'))
	}
	return model.Response{Text: reply, InputTokens: 3, OutputTokens: 1}, nil
}

// ReuseBasis lets earlier outputs' answers be reused (reuse.BasisModel).
func (m *scripted) ReuseBasis(model.QuestionRef) string { return "scripted" }

// questions are the questions asked so far.
func (m *scripted) questions() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.asked)
}

// builtinModel makes one of model/builtin's offline models.
func builtinModel(t *testing.T, name string) model.Model {
	t.Helper()
	r := model.NewRegistry()
	builtin.Register(r)
	m, err := r.New(name, model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// bench is a folder of sheets and the execute step run over them as the
// harness runs it: the sheets read and planned (prepare, plan), then Run
// with one journal in the folder.
type bench struct {
	t       *testing.T
	dir     string
	sheets  []string
	models  []model.Model
	console syncbuf.Buffer // written by the step and a batch's progress at once
	// key seals the outputs written, so a later run reuses their answers.
	key *outfile.Key
	// writer, when set, replaces the output files' writer.
	writer write.Writer
	// runID is a new run's id ("" is r1); reuse gives each output the
	// answers of the earlier outputs in its folder, and puts aside those
	// it supersedes, as the harness does unless run --fresh.
	runID string
	reuse bool
	runs  int
	// batch sends through the models' batch APIs (run --batch).
	batch *Batch
	// prices override the models' (--price).
	prices plan.Prices
}

// newBench writes the sheets (file name, text) into a new folder.
func newBench(t *testing.T, models []model.Model, sheets ...string) *bench {
	t.Helper()
	b := &bench{t: t, dir: t.TempDir(), models: models, key: outfile.RandomKey()}
	for i := 0; i+1 < len(sheets); i += 2 {
		p := filepath.Join(b.dir, sheets[i])
		if err := os.WriteFile(p, []byte(sheets[i+1]), 0o644); err != nil {
			t.Fatal(err)
		}
		b.sheets = append(b.sheets, p)
	}
	return b
}

// consoleOf is the console the step says its lines on.
func (b *bench) consoleOf() write.Console { return write.Console{W: &b.console} }

// journal is the run's journal path.
func (b *bench) journal() string { return filepath.Join(b.dir, ".evalmd-run-test.journal") }

// outputs plans the run: one output per sheet and model, in that order.
func (b *bench) outputs(ctx context.Context, runID string) []*plan.Output {
	b.t.Helper()
	made := map[string]model.Model{}
	infos := map[string]model.Info{}
	var names []string
	for _, m := range b.models {
		made[m.Name()], infos[m.Name()] = m, m.Info()
		names = append(names, m.Name())
	}
	// Each run starts a minute after the one before: the newer answer
	// wins a reuse.
	b.runs++
	popt := prepare.Options{Schema: schema.Default(), Created: time.Unix(1e9+60*int64(b.runs), 0).UTC(), Stderr: io.Discard, Models: made}
	sheets, _, err := prepare.Read(b.sheets, popt)
	if err != nil {
		b.t.Fatal(err)
	}
	planned := make([]plan.Sheet, len(sheets))
	for i := range sheets {
		if planned[i], err = sheets[i].Plan(nil, nil); err != nil {
			b.t.Fatal(err)
		}
	}
	jobs, err := plan.Make(planned, plan.Options{Models: names, RunID: runID})
	if err != nil {
		b.t.Fatal(err)
	}
	outs, _, err := prepare.Outputs(ctx, sheets, jobs, infos, runID, popt)
	if err != nil {
		b.t.Fatal(err)
	}
	return outs
}

// run is one run of the same command: a resumed one when the journal of
// an unfinished one is there. It returns the step's result and error,
// and the outputs it was given.
func (b *bench) run(ctx context.Context, ropt runner.Options) (Result, []*plan.Output, error) {
	b.t.Helper()
	st, err := LoadResume(b.journal(), filepath.Join(b.dir, ".evalmd-run-test.run"))
	if err != nil {
		b.t.Fatal(err)
	}
	if !st.Exists {
		st.RunID = cmp.Or(b.runID, "r1")
	}
	files := &write.Files{Wrote: st.Wrote, Seal: b.key}
	if st.Exists {
		files.Resumed = st.Written
	}
	outs := b.outputs(ctx, st.RunID)
	for _, o := range outs {
		if err := files.Check(o.OutPath); err != nil {
			b.t.Fatal(err)
		}
	}
	if b.reuse {
		b.reused(outs, st.Exists)
	}
	if b.batch != nil {
		// A batch is made of every request at once, as the plan makes
		// it for --batch.
		for _, o := range outs {
			if err := o.Materialize(ctx); err != nil {
				b.t.Fatal(err)
			}
		}
	}
	var w write.Writer = write.All{files, &write.Supersede{Console: b.consoleOf()}}
	if b.writer != nil {
		w = b.writer
	}
	if ropt.Concurrency == 0 {
		ropt.Concurrency = 1 // the questions asked in job order
	}
	ropt.MaxAttempts, ropt.BaseBackoff = max(ropt.MaxAttempts, 1), time.Millisecond
	opt := Options{Runner: ropt, Resume: st, Batch: b.batch, Prices: b.prices, Graders: regrade.NewGraders(nil, grade.Options{}, ""),
		Writer: w, Console: b.consoleOf()}
	res, err := Run(ctx, outs, made(b.models), opt)
	return res, outs, err
}

// reused gives each output the earlier outputs of its sheet and model
// (reuse.Load), but for the one a resumed run writes itself.
func (b *bench) reused(outs []*plan.Output, resuming bool) {
	b.t.Helper()
	for _, o := range outs {
		skip := ""
		if resuming {
			skip = o.OutPath
		}
		ix, err := reuse.Load(filepath.Dir(o.OutPath), o.SheetPath, o.Model, skip, b.key)
		if err != nil {
			b.t.Fatal(err)
		}
		if !ix.Empty() {
			o.Reuse, o.Earlier = ix, ix.Earlier
		}
	}
}

// made is models by name.
func made(models []model.Model) map[string]model.Model {
	m := map[string]model.Model{}
	for _, x := range models {
		m[x.Name()] = x
	}
	return m
}

// readOutput reads an output file written.
func readOutput(t *testing.T, path string) *result.File {
	t.Helper()
	f, err := result.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// failingWriter refuses every output, as a full disk would.
type failingWriter struct{ n int }

var errDiskFull = errors.New("no space left on device")

func (w *failingWriter) Write(o *plan.Output, _ *write.Spill) error {
	w.n++
	return fmt.Errorf("%s: %w", o.OutPath, errDiskFull)
}

func (w *failingWriter) Close() error { return nil }
