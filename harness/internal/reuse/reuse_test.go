package reuse

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/builtin"
	"github.com/evalmd/evalmd/result"
)

func ptr(s string) *string { return &s }

func request(prompt, truth string) model.Task {
	return model.Task{
		Request:  model.Request{Messages: []model.Message{{Role: "user", Content: prompt}}},
		Question: model.QuestionRef{Sheet: "input-s.md", Name: "Q1", GroundTruth: ptr(truth)},
	}
}

// offline is an offline model that does not say what its answers depend on.
type offline struct{}

func (offline) Name() string     { return "blind" }
func (offline) Info() model.Info { return model.Info{Offline: true} }
func (offline) Complete(context.Context, model.Request) (model.Response, error) {
	return model.Response{}, nil
}

// A key changes with what the model's answer depends on: the prompt for
// every model, the ground truth for the oracle and not for mock, mock's
// reply; an offline model that does not say gets no key (never reused).
func TestKey(t *testing.T) {
	r := model.NewRegistry()
	builtin.Register(r)
	get := func(name string, opt model.Options) model.Model {
		m, err := r.New(name, opt)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	mock, oracle := get("mock", model.Options{}), get("oracle", model.Options{})
	base := request("What is 2+2?", "4")
	for _, tc := range []struct {
		name   string
		m      model.Model
		req    model.Task
		same   bool
		versus model.Model
	}{
		{"mock, same request", mock, base, true, nil},
		{"mock, truth edited", mock, request("What is 2+2?", "5"), true, nil},
		{"mock, prompt edited", mock, request("What is 2 + 2?", "4"), false, nil},
		{"oracle, truth edited", oracle, request("What is 2+2?", "5"), false, nil},
		{"oracle, prompt edited", oracle, request("What is 2 + 2?", "4"), false, nil},
		{"mock, another reply", mock, base, false, get("mock", model.Options{Provider: []any{builtin.Options{MockReply: "other"}}})},
		{"random, another seed", get("random", model.Options{Provider: []any{builtin.Options{Seed: 1}}}), base, false, get("random", model.Options{Provider: []any{builtin.Options{Seed: 2}}})},
	} {
		before := Key(tc.m, base)
		m := tc.m
		if tc.versus != nil {
			m = tc.versus
		}
		after := Key(m, tc.req)
		if before == "" || after == "" {
			t.Errorf("%s: no key", tc.name)
		}
		if (before == after) != tc.same {
			t.Errorf("%s: keys equal %v, want %v", tc.name, before == after, tc.same)
		}
	}
	if k := Key(offline{}, base); k != "" {
		t.Errorf("an offline model without a basis has key %q, want none", k)
	}
	if Key(mock, base) == Key(oracle, base) {
		t.Error("mock and oracle share a key")
	}
}

// testKey is the key of the machine the tests run on.
func testKey() *outfile.Key {
	k, err := outfile.NewKey([]byte("the key of the machine of a test"))
	if err != nil {
		panic(err)
	}
	return k
}

// writeOutput writes an output file of model m into dir, sealed as a run
// on this machine seals it.
func writeOutput(t *testing.T, dir, name, m, created string, dry bool, qs ...result.Question) string {
	t.Helper()
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: m, Created: created, DryRun: dry}, Questions: qs}
	p := filepath.Join(dir, name)
	if err := f.Write(p, outfile.Options{Force: true, Seal: testKey()}); err != nil {
		t.Fatal(err)
	}
	return p
}

// Load indexes the answered, keyed questions of the earlier outputs of one
// sheet and model, the newest answer winning, and gives a planned
// question the answer and keeps what the run planned (Take).
func TestIndex(t *testing.T) {
	dir := t.TempDir()
	answered := func(key, completion string) result.Question {
		return result.Question{Name: "old", GroundTruth: ptr("old truth"), Question: "old prompt", Completion: ptr(completion), RequestKey: key,
			Grade: new(bool), GradeDetail: "old detail", InputTokens: 7, ServedModel: "snap-" + completion, Position: 9}
	}
	failed := result.Question{Name: "f", RequestKey: "k-failed", Error: ptr("HTTP 500")}
	writeOutput(t, dir, "output-s-m-1111.json", "m", "2026-01-01T00:00:00Z", false,
		answered("k1", "first"), answered("k2", "older"), failed, result.Question{Name: "lime", Completion: ptr("no key")})
	writeOutput(t, dir, "output-s-m-2222.json", "m", "2026-01-02T00:00:00Z", false, answered("k2", "newer"))
	// A shard's part of a run: its answers are reused like any file's.
	writeOutput(t, dir, "output-s-m-2323-shard2of3.json", "m", "2026-01-02T12:00:00Z", false, answered("k3", "a shard's"))
	writeOutput(t, dir, "output-s-m-x-3333.json", "m-x", "2026-01-03T00:00:00Z", false, answered("k1", "another model"))
	writeOutput(t, dir, "output-s-m-4444.json", "m", "2026-01-04T00:00:00Z", true, answered("k1", "dry run"))
	own := writeOutput(t, dir, "output-s-m-5555.json", "m", "2026-01-05T00:00:00Z", false, answered("k1", "the run's own"))
	if err := os.WriteFile(filepath.Join(dir, "output-s-m-bad.json"), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}

	ix, err := Load(dir, "input-s.md", "m", own, testKey())
	if err != nil {
		t.Fatal(err)
	}
	if ix.Len() != 3 || len(ix.Skipped) != 1 {
		t.Fatalf("indexed %d answers, skipped %v; want 3 and the bad file", ix.Len(), ix.Skipped)
	}
	for _, tc := range []struct {
		key, completion, from string
	}{
		{"k1", "first", "output-s-m-1111.json"},
		{"k2", "newer", "output-s-m-2222.json"},
		{"k3", "a shard's", "output-s-m-2323-shard2of3.json"},
		{"k-failed", "", ""},
		{"k-none", "", ""},
	} {
		q := result.Question{Name: "Q", GroundTruth: ptr("new truth"), Question: "new prompt", RequestKey: tc.key, Grader: "lime", Position: 2}
		_, ok := ix.Take(&q)
		if ok != (tc.from != "") {
			t.Errorf("%s: reused %v", tc.key, ok)
			continue
		}
		if !ok {
			continue
		}
		if *q.Completion != tc.completion || q.ReusedFrom != tc.from || q.InputTokens != 7 || q.ServedModel != "snap-"+tc.completion {
			t.Errorf("%s: completion %q from %q, tokens %d, served by %q; want %q from %q, 7, snap-%[6]s", tc.key, *q.Completion, q.ReusedFrom, q.InputTokens, q.ServedModel, tc.completion, tc.from)
		}
		if q.Name != "Q" || *q.GroundTruth != "new truth" || q.Question != "new prompt" || q.Grader != "lime" || q.RequestKey != tc.key || q.Position != 2 {
			t.Errorf("%s: the planned question was not kept: %+v", tc.key, q)
		}
		if q.Grade != nil || q.GradeDetail != "" {
			t.Errorf("%s: the old grade was kept: %v %q", tc.key, q.Grade, q.GradeDetail)
		}
	}
	// Without the run's own file left out, its newer answer wins.
	ix, err = Load(dir, "input-s.md", "m", "", testKey())
	if err != nil {
		t.Fatal(err)
	}
	q := result.Question{RequestKey: "k1"}
	if _, ok := ix.Take(&q); !ok || *q.Completion != "the run's own" {
		t.Errorf("k1 without skip: %v", q.Completion)
	}
	// A folder that does not exist yet has nothing to reuse.
	if ix, err := Load(filepath.Join(dir, "none"), "input-s.md", "m", "", testKey()); err != nil || ix.Len() != 0 {
		t.Errorf("missing folder: %v, %v", ix, err)
	}
}

// Two runs started in one second are ordered by their recorded start
// (milliseconds, result.CreatedLayout), not by their files' modification
// times, which a regrade (grade -w) changes.
func TestIndexOrdersBySubsecondStart(t *testing.T) {
	dir := t.TempDir()
	q := func(c string) result.Question {
		return result.Question{Name: "q", Completion: ptr(c), RequestKey: "k"}
	}
	later := writeOutput(t, dir, "output-s-m-1111.json", "m", "2026-01-01T00:00:05.900Z", false, q("later run"))
	writeOutput(t, dir, "output-s-m-2222.json", "m", "2026-01-01T00:00:05.100Z", false, q("earlier run"))
	// The earlier run's file was rewritten last (a regrade).
	old := time.Now().Add(-time.Hour)
	if err := os.Chtimes(later, old, old); err != nil {
		t.Fatal(err)
	}
	ix, err := Load(dir, "input-s.md", "m", "", testKey())
	if err != nil {
		t.Fatal(err)
	}
	got := result.Question{RequestKey: "k"}
	if _, ok := ix.Take(&got); !ok || *got.Completion != "later run" {
		t.Errorf("reused %q, want the later run's answer", *got.Completion)
	}
}

// Len is the number of reusable answers.
func (ix *Index) Len() int { return len(ix.byKey) }

// An answer is read from its file when taken: a file rewritten since Load
// read it (its questions moved) gives no answer, and the question is
// asked, rather than another question's answer taken.
func TestTakeFromRewrittenFile(t *testing.T) {
	dir := t.TempDir()
	q := func(name, key, c string) result.Question {
		return result.Question{Name: name, Completion: ptr(c), RequestKey: key}
	}
	path := writeOutput(t, dir, "output-s-m-1111.json", "m", "2026-01-01T00:00:00Z", false, q("a", "k1", "first"), q("b", "k2", "second"))
	ix, err := Load(dir, "input-s.md", "m", "", testKey())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	writeOutput(t, dir, filepath.Base(path), "m", "2026-01-01T00:00:00Z", false, q("z", "k0", "inserted"), q("a", "k1", "first"), q("b", "k2", "second"))
	for _, key := range []string{"k1", "k2"} {
		got := result.Question{RequestKey: key}
		if _, ok := ix.Take(&got); ok {
			t.Errorf("%s: took %q from a file rewritten since", key, *got.Completion)
		}
	}
}

// Only outputs sealed on this machine as they are now are reused from: a
// file written unsealed, sealed and edited since (its Record line made
// true by hand), sealed under another machine's key, or planted in
// superseded/ is a stranger, none of its answers taken, named with how
// many it holds, and no earlier output of the run; without a key every
// file is one.
func TestStrangersNotReused(t *testing.T) {
	other, _ := outfile.NewKey([]byte("the key of another machine, xxxx"))
	answer := func(key string) result.Question {
		return result.Question{Name: "Q", Completion: ptr("planted " + key), RequestKey: key}
	}
	write := func(t *testing.T, dir string, opt outfile.Options) string {
		f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", Created: "2026-01-01T00:00:00Z"}, Questions: []result.Question{answer("k1"), answer("k2")}}
		p := filepath.Join(dir, "output-s-m-1111.json")
		os.MkdirAll(dir, 0o755)
		if err := f.Write(p, opt); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name     string
		plant    func(t *testing.T, dir string)
		key      *outfile.Key
		stranger bool
	}{
		{"sealed here", func(t *testing.T, dir string) { write(t, dir, outfile.Options{Seal: testKey()}) }, testKey(), false},
		{"unsealed", func(t *testing.T, dir string) { write(t, dir, outfile.Options{}) }, testKey(), true},
		{"edited since", func(t *testing.T, dir string) {
			p := write(t, dir, outfile.Options{Seal: testKey()})
			data, _ := os.ReadFile(p)
			edited := []byte(strings.Replace(string(data), "planted k1", "forged k1", 1))
			if err := outfile.Write(p, edited, outfile.Options{}); err != nil {
				t.Fatal(err)
			}
		}, testKey(), true},
		{"sealed elsewhere", func(t *testing.T, dir string) { write(t, dir, outfile.Options{Seal: other}) }, testKey(), true},
		{"planted in superseded", func(t *testing.T, dir string) {
			write(t, filepath.Join(dir, result.Superseded), outfile.Options{Seal: other})
		}, testKey(), true},
		{"no key", func(t *testing.T, dir string) { write(t, dir, outfile.Options{Seal: testKey()}) }, nil, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.plant(t, dir)
			ix, err := Load(dir, "input-s.md", "m", "", tc.key)
			if err != nil {
				t.Fatal(err)
			}
			defer ix.Close()
			q := result.Question{RequestKey: "k1"}
			_, took := ix.Take(&q)
			if took == tc.stranger {
				t.Errorf("took an answer: %v, want %v", took, !tc.stranger)
			}
			if !tc.stranger {
				return
			}
			if len(ix.Strangers) != 1 || ix.Strangers[0].Answers != 2 || ix.Len() != 0 || len(ix.Earlier) != 0 || !ix.Empty() {
				t.Errorf("strangers %+v, %d answers indexed, %d earlier; want the one file with its 2 answers, nothing else", ix.Strangers, ix.Len(), len(ix.Earlier))
			}
		})
	}
}

// A reused answer names the file it was taken from, which holds it, and,
// when that file had reused it itself, the run that asked (asked_in), so
// it stays one sample; never a name only the file's claim makes.
func TestReusedFromNamesTheSource(t *testing.T) {
	dir := t.TempDir()
	q := func(key, from, asked string) result.Question {
		return result.Question{Name: "Q" + key, Completion: ptr("a"), RequestKey: key, ReusedFrom: from, AskedIn: asked}
	}
	writeOutput(t, dir, "output-s-m-2222.json", "m", "2026-01-02T00:00:00Z", false,
		q("k1", "", ""), q("k2", "output-s-m-1111.json", ""), q("k3", "output-s-m-1111.json", "output-s-m-0000.json"))
	ix, err := Load(dir, "input-s.md", "m", "", testKey())
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	for _, tc := range []struct{ key, asked string }{{"k1", ""}, {"k2", "output-s-m-1111.json"}, {"k3", "output-s-m-0000.json"}} {
		got := result.Question{RequestKey: tc.key}
		if _, ok := ix.Take(&got); !ok || got.ReusedFrom != "output-s-m-2222.json" || got.AskedIn != tc.asked {
			t.Errorf("%s: reused %v from %q, asked in %q; want output-s-m-2222.json, %q", tc.key, ok, got.ReusedFrom, got.AskedIn, tc.asked)
		}
	}
}
