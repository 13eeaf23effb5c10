package result

import (
	"bytes"
	"encoding/json"
	"github.com/evalmd/evalmd/model"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// Every real LIME output file loads, and rewriting it unchanged keeps every
// field and value.
func TestLIMEFilesRoundTrip(t *testing.T) {
	paths, _ := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	if len(paths) != 26 {
		t.Fatalf("found %d LIME output files, want 26", len(paths))
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Read(p)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if len(f.Questions) == 0 || f.Sheet.Name == "" || f.Sheet.ModelName == "" {
			t.Errorf("%s: sheet %q model %q questions %d", p, f.Sheet.Name, f.Sheet.ModelName, len(f.Questions))
		}
		out, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: rewriting changed the file", filepath.Base(p))
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n\"sheet\": {\n", ":3: not an output file"},
		{"[1,2]", ":1: not an output file"},
		{"{}", ":1: not an output file"},
		{"{\"sheet\": {\"name\": 3}}", ":1: not an output file"},
		// A member of another type, or a null name, is refused at its
		// line (agg read such values leniently).
		{"{\n\"sheet\": {\n\"name\": \"s\",\n\"created\": 5},\n\"questions\": []}", ":4: not an output file: sheet: created: json: cannot unmarshal number"},
		{"{\"sheet\": {\"name\": \"s\", \"run_id\": 12},\n\"questions\": []}", ":1: not an output file: sheet: run_id: json: cannot unmarshal number"},
		{"{\"sheet\": {\"name\": \"s\"},\n\"questions\": [{},\n{\"name\": \"q\",\n \"meta_data\": {\"level\": 1}}]}", ":4: not an output file: questions: question 2: meta_data: json: cannot unmarshal number"},
		{"{\"sheet\": {\"name\": \"s\"},\n\"questions\": [\n\n{\"name\": \"q\", \"grade\": \"yes\"}]}", ":4: not an output file: questions: question 1: grade: json: cannot unmarshal string"},
		{"{\"sheet\": {\"name\": \"s\"},\n\"questions\": [{\"name\": \"x\"}, {\n\"name\": null}]}", ":3: not an output file: questions: question 2: name: null, want a string"},
		{"{\"sheet\": {\"model_name\": null},\n\"questions\": []}", ":1: not an output file: sheet: model_name: null, want a string"},
	} {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want prefix %q", tc.in, err, tc.want)
		}
	}
}

func TestFileName(t *testing.T) {
	for _, tc := range []struct{ sheet, model, id, want string }{
		{"a/input-rules-qa-1.md", "gpt-4", "09fa", "output-rules-qa-1-gpt-4-09fa.json"},
		{"input-dsbench-00000001.md", "openai/gpt-4o", "ab12", "output-dsbench-00000001-openai_gpt-4o-ab12.json"},
		{"x/input_one.md", "replay:r.jsonl", "1", "output-one-replay_r.jsonl-1.json"},
	} {
		if got := FileName(tc.sheet, tc.model, tc.id); got != tc.want {
			t.Errorf("FileName(%q,%q,%q) = %q, want %q", tc.sheet, tc.model, tc.id, got, tc.want)
		}
	}
}

// TestFileNameValidOnWindows: whatever the sheet, model and run id, an
// output name holds none of <>:"/\|?* or a control character, is not a
// reserved device name and does not end with a dot or a space.
func TestFileNameValidOnWindows(t *testing.T) {
	reserved := regexp.MustCompile(`(?i)^(CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])(\.|$)`)
	sheets := []string{"input-s.md", "d/input-a:b.md", "input-x|y?.md", "input-CON.md", "input-tab\there.md"}
	models := []string{"gpt-4", "replay:../out/r.jsonl", "mock:x", `a<b>c"d|e?f*g\h`, "tab\tmodel", "new\nline", "CON", "nul."}
	for _, sheet := range sheets {
		for _, model := range models {
			for _, id := range []string{"", "09fa", "a:b", "x\x00"} {
				name := FileName(sheet, model, id)
				bad := strings.ContainsAny(name, `<>:"/\|?*`) || strings.ContainsFunc(name, func(r rune) bool { return r < 0x20 }) ||
					reserved.MatchString(name) || strings.HasSuffix(name, ".") || strings.HasSuffix(name, " ")
				if bad {
					t.Errorf("FileName(%q, %q, %q) = %q: not a Windows file name", sheet, model, id, name)
				}
			}
		}
	}
}

// nonZero fails for an exported field left at its zero value, so a field
// added to a struct must also be added to TestEveryFieldRoundTrips.
func nonZero(t *testing.T, v any) {
	t.Helper()
	rv := reflect.ValueOf(v)
	for i := 0; i < rv.NumField(); i++ {
		if f := rv.Type().Field(i); f.IsExported() && rv.Field(i).IsZero() {
			t.Errorf("%s.%s is zero in the test value", rv.Type().Name(), f.Name)
		}
	}
}

// Every field survives Marshal then Parse: each decoder takes the members
// from the struct tags (record), and a field they missed would land in the
// unknown members and read back empty.
func TestEveryFieldRoundTrips(t *testing.T) {
	s := func(x string) *string { return &x }
	ft, tr, no, cost := 1.5, true, false, 0.25
	q := Question{
		Name: "Q", MetaData: map[string]string{"id": "7"}, GroundTruth: s("B"), Question: "ask",
		Completion: s("B"), Reasoning: "B, surely", ThinkBlocks: "<think>B, surely</think>", ReasoningTokens: 2, Error: s("none"), ModelName: "m", EvalTime: &ft, Grade: &tr,
		QuestionUsr: "own", System: s("sys"), Conversation: []model.Message{{Role: "user", Content: "2+2?"}, {Role: "assistant", Content: "4"}}, ResponseSchema: `{"type":"object"}`, ImagesSent: []string{"chart.png"}, ImagesNotSent: []string{"b.jpg"}, Accepted: []string{"b", " B\n"}, InputTokens: 3, OutputTokens: 4, CacheReadTokens: 2, CacheWriteTokens: 1, Cost: &cost, CacheSaved: &cost,
		Grader: "choice", GradeDetail: "extracted B", SubAnswers: []SubAnswer{{Name: "a", Want: "1", Got: "1", Found: true, Correct: true}},
		AlsoGraded: []AlsoGrade{{Grader: "json", Grade: &no, Detail: "json (whole): $.Q: 2 != 1"}},
		Unanswered: true, Judge: json.RawMessage(`{"reply":"True"}`), Settings: &model.Settings{MaxTokens: 5, Stop: []string{"\n"}, ReasoningEffort: "high", ReasoningTokens: 9}, FinishReason: "length", Note: "the reply had no text", BatchID: "batch_1", RequestKey: "ab12", ReusedFrom: "output-s-m-1.json", AskedIn: "output-s-m-0.json", ServedModel: "gpt-4-0613", Position: 4, Grading: GradingLiberal, GradingFrom: GradingFromFlag, Review: &Review{By: "ann", At: "2026-12-02T01:00:00Z", Reason: "said Paris", GraderGrade: &no},
		Mode: "code", CodeExtract: "baseline", Code: s("df.shape[0]"), Answer: s("3"), CodeError: "none",
		Transcript: []model.Message{{Role: "tool", Content: "3", ToolCallID: "c1", ToolLimit: "timeout"},
			{Role: "assistant", Reasoning: "run it", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: "{}"}}}},
		Turns: 2, Limit: "max_turns", LimitValue: 10, Sandbox: map[string]string{"pandas": "1.5.3"}, SolveSettings: map[string]string{"agent_style": "react"}, ReformatModel: "openai/gpt-3.5-turbo-16k",
	}
	sh := Sheet{Name: "S", RunID: "ab", ModelName: "m", MetaData: map[string]string{"k": "v"}, Question: s("sq"),
		SheetFile: "input-s.md", Created: "2026-01-01T00:00:00Z", Totals: &Totals{Questions: 1, ReasoningTokens: 2, CacheReadTokens: 2, CacheWriteTokens: 1}, DryRun: true, Version: "0123456789ab", Subset: &Subset{Limit: 3, Questions: []string{"a*"}, Of: 10}, Epoch: 2, Epochs: 3, Shard: 2, Shards: 4,
		ModelInfo: &model.Info{Provider: "openai-api", Label: "box", Model: "gpt-4", BaseURL: "http://box/v1", ContextLimit: 4096},
		Settings:  &model.Settings{Temperature: &ft}, Configuration: &model.Settings{MaxTokens: 9},
		ConnectionLimits: []aimd.Change{{Time: time.Date(2026, 1, 1, 0, 0, 1, 0, time.UTC), Limit: 8, From: 10, Reason: "HTTP 429"}}}
	nonZero(t, q)
	nonZero(t, sh)
	want := &File{Sheet: sh, Questions: []Question{q}}
	data, err := want.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	got, err := Parse(data)
	if err != nil {
		t.Fatal(err)
	}
	// The indented encoder re-indents raw JSON; compare it as a value.
	var compact bytes.Buffer
	if err := json.Compact(&compact, got.Questions[0].Judge); err != nil {
		t.Fatal(err)
	}
	got.Questions[0].Judge = compact.Bytes()
	if !reflect.DeepEqual(got, want) {
		t.Errorf("round trip changed the file:\n got %+v\nwant %+v", got, want)
	}
	if len(got.extra)+len(got.Sheet.extra)+len(got.Questions[0].extra) != 0 {
		t.Errorf("known members read as unknown: %v %v %v", got.extra, got.Sheet.extra, got.Questions[0].extra)
	}
}

// TestEpochMembers: epoch and epochs are written only for a run of several
// epochs, read back, and a file without them is epoch 1 of 1; the epochs
// of one run have names of their own beside each other.
func TestEpochMembers(t *testing.T) {
	for _, tc := range []struct {
		epoch, epochs int
		json          string
		k, n          int
	}{
		{0, 0, `"name":"s","run_id":"r","model_name":"m","meta_data":null,"question":null}`, 1, 1},
		{2, 5, `"name":"s","run_id":"r","model_name":"m","meta_data":null,"question":null,"epoch":2,"epochs":5}`, 2, 5},
	} {
		f := &File{Sheet: Sheet{Name: "s", RunID: "r", ModelName: "m", Epoch: tc.epoch, Epochs: tc.epochs}, Questions: []Question{}}
		data, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(bytes.Join(bytes.Fields(data), nil)), tc.json) {
			t.Errorf("epoch %d of %d: wrote %s, want the sheet %s", tc.epoch, tc.epochs, data, tc.json)
		}
		g, err := Parse(data)
		if err != nil {
			t.Fatal(err)
		}
		if k, n := g.Sheet.EpochOf(); k != tc.k || n != tc.n {
			t.Errorf("EpochOf = %d of %d, want %d of %d", k, n, tc.k, tc.n)
		}
	}
	if _, err := Parse([]byte(`{"sheet": {"name": "s", "epoch": 4, "epochs": 3}, "questions": []}`)); err == nil || !strings.Contains(err.Error(), "epoch 4 of 3") {
		t.Errorf("Parse of epoch 4 of 3 = %v, want an error naming it", err)
	}
	if got, want := EpochName("output-s-m-r.json", 3, 5), "output-s-m-r-epoch3.json"; got != want {
		t.Errorf("EpochName = %q, want %q", got, want)
	}
	if got := EpochName("output-s-m-r.json", 1, 1); got != "output-s-m-r.json" {
		t.Errorf("EpochName of a one-epoch run = %q", got)
	}
	for _, tc := range []struct {
		epoch, epochs int
		ok            bool
	}{{0, 0, true}, {1, 2, true}, {5, 5, true}, {1, 0, false}, {0, 3, false}, {4, 3, false}, {1, 1, false}, {1, MaxEpochs + 1, false}} {
		if err := CheckEpoch(tc.epoch, tc.epochs); (err == nil) != tc.ok {
			t.Errorf("CheckEpoch(%d, %d) = %v", tc.epoch, tc.epochs, err)
		}
	}
}

// A shard's file records its shard and the run's shards, read back; a
// shard outside 1..shards is refused by both decoders; the shards of one
// run have names of their own beside each other.
func TestShardMembers(t *testing.T) {
	for _, tc := range []struct {
		data string
		err  string // "" for none
	}{
		{`{"sheet": {"name": "s", "shard": 2, "shards": 4}, "questions": [{"name": "q", "position": 7}]}`, ""},
		{`{"sheet": {"name": "s", "shard": 1, "shards": 1}, "questions": []}`, ""},
		{`{"sheet": {"name": "s", "shard": 5, "shards": 4}, "questions": []}`, "shard 5 of 4: 1 to 4"},
		{`{"sheet": {"name": "s", "shard": 0, "shards": 4}, "questions": []}`, "shard 0 of 4"},
		{`{"sheet": {"name": "s", "shard": 1}, "questions": []}`, "shards 0: 1 to 10000"},
		{`{"sheet": {"name": "s", "shard": 1, "shards": 10001}, "questions": []}`, "shards 10001"},
		{`{"sheet": {"name": "s", "shard": 1, "shards": 4, "x": 1}, "questions": [{"name": "q", "y": 2}]}`, ""}, // the walk, not the fast path
	} {
		f, err := Parse([]byte(tc.data))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %v, want an error with %q", tc.data, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.data, err)
			continue
		}
		if f.Sheet.Shard < 1 || f.Sheet.Shards < f.Sheet.Shard {
			t.Errorf("%s: read shard %d of %d", tc.data, f.Sheet.Shard, f.Sheet.Shards)
		}
	}
	if got, want := ShardName(EpochName("output-s-m-r.json", 3, 5), 2, 4), "output-s-m-r-epoch3-shard2of4.json"; got != want {
		t.Errorf("ShardName = %q, want %q", got, want)
	}
	if got := ShardName("output-s-m-r.json", 0, 0); got != "output-s-m-r.json" {
		t.Errorf("ShardName of no shard = %q", got)
	}
}

func TestSubsetDescribe(t *testing.T) {
	for _, tc := range []struct {
		s    Subset
		n    int
		want string
	}{
		{Subset{Limit: 3, Of: 10}, 3, "3 of 10 questions (--limit 3)"},
		{Subset{Questions: []string{"Q*", "id-8"}, Limit: 2, Of: 10}, 2, "2 of 10 questions (--questions Q*,id-8 --limit 2)"},
		{Subset{Of: 10, Epoch: 2}, 9, "9 of 10 questions (those of epochs 2 or more)"},
		{Subset{Limit: 5, Of: 10, Epoch: 3}, 4, "4 of 10 questions (--limit 5; those of epochs 3 or more)"},
		{Subset{Of: 10}, 9, "9 of 10 questions"},
	} {
		if got := tc.s.Describe(tc.n); got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.s, got, tc.want)
		}
	}
}

// A file's totals size a reader's memory only as far as its bytes could
// hold questions.
func TestQuestionsHint(t *testing.T) {
	for _, tc := range []struct {
		totals *Totals
		size   int64
		want   int
	}{
		{nil, 1000, 0},
		{&Totals{Questions: -1}, 1000, 0},
		{&Totals{Questions: 1000000000000}, 300, 100},
		{&Totals{Questions: 40}, 1 << 20, 40},
		{&Totals{Questions: 40}, 0, 0},
	} {
		s := Sheet{Totals: tc.totals}
		if got := s.QuestionsHint(tc.size); got != tc.want {
			t.Errorf("totals %+v, %d bytes: hint %d, want %d", tc.totals, tc.size, got, tc.want)
		}
	}
}
