package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/jsonl"
	"github.com/evalmd/evalmd/model"
)

func rec(key, text string) string {
	b, _ := json.Marshal(journalRecord{Key: key, Fingerprint: "fp-" + key, Text: text})
	return string(b) + "\n"
}

func TestReadJournal(t *testing.T) {
	for _, tc := range []struct {
		name     string
		in       string
		wantKeys map[string]string // key -> text
		wantTorn bool
		wantGood int // -1: len(in)
		wantErr  string
	}{
		{name: "empty", in: "", wantKeys: map[string]string{}, wantGood: -1},
		{name: "two records", in: rec("a", "A") + rec("b", "B"), wantKeys: map[string]string{"a": "A", "b": "B"}, wantGood: -1},
		{name: "torn last line", in: rec("a", "A") + `{"key":"b","req":"fp-b","te`, wantKeys: map[string]string{"a": "A"},
			wantTorn: true, wantGood: len(rec("a", "A"))},
		{name: "torn last line of NULs", in: rec("a", "A") + "\x00\x00\x00", wantKeys: map[string]string{"a": "A"},
			wantTorn: true, wantGood: len(rec("a", "A"))},
		{name: "complete record without its newline is torn too", in: strings.TrimSuffix(rec("a", "A"), "\n"),
			wantKeys: map[string]string{}, wantTorn: true, wantGood: 0},
		{name: "blank lines", in: "\n" + rec("a", "A") + "  \n", wantKeys: map[string]string{"a": "A"}, wantGood: -1},
		{name: "later record wins", in: rec("a", "old") + rec("a", "new"), wantKeys: map[string]string{"a": "new"}, wantGood: -1},
		{name: "text with newlines", in: rec("a", "line1\nline2\r\n"), wantKeys: map[string]string{"a": "line1\nline2\r\n"}, wantGood: -1},
		{name: "garbage in the middle", in: rec("a", "A") + "not json\n" + rec("b", "B"), wantErr: "j.jsonl:2: not a journal record"},
		{name: "record without key", in: `{"req":"x","text":"t"}` + "\n", wantErr: "j.jsonl:1: record has no key"},
		{name: "record without fingerprint", in: `{"key":"x"}` + "\n", wantErr: `j.jsonl:1: record "x" has no request fingerprint`},
		{name: "wrong types", in: `{"key":1}` + "\n", wantErr: "j.jsonl:1: not a journal record"},
		{name: "a JSON array", in: "[]\n" + rec("a", "A"), wantErr: "j.jsonl:1:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, good, torn, err := readJournal(strings.NewReader(tc.in), "j.jsonl")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != len(tc.wantKeys) {
				t.Errorf("got %d records, want %d", len(recs), len(tc.wantKeys))
			}
			for k, text := range tc.wantKeys {
				if recs[k].Text != text {
					t.Errorf("%s: text %q, want %q", k, recs[k].Text, text)
				}
			}
			wantGood := tc.wantGood
			if wantGood < 0 {
				wantGood = len(tc.in)
			}
			if good != int64(wantGood) || torn != tc.wantTorn {
				t.Errorf("good %d torn %v, want %d %v", good, torn, wantGood, tc.wantTorn)
			}
		})
	}
}

func TestOpenJournalTruncatesTornLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte(rec("a", "A")+`{"key":"b","te`), 0o644); err != nil {
		t.Fatal(err)
	}
	j, recs, err := openJournal(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 {
		t.Fatalf("%d records", len(recs))
	}
	if err := j.append(journalRecord{Key: "c", Fingerprint: "fp-c", Text: "C"}); err != nil {
		t.Fatal(err)
	}
	if err := j.sync(); err != nil {
		t.Fatal(err)
	}
	if err := j.close(); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	recs, _, torn, err := readJournal(bytes.NewReader(data), path)
	if err != nil || torn || len(recs) != 2 || recs["c"].Text != "C" {
		t.Fatalf("after append: %q (err %v, torn %v)", data, err, torn)
	}
}

func TestRunReportsCorruptJournal(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	if err := os.WriteFile(path, []byte(rec("a", "A")+"garbage\n"+rec("b", "B")), 0o644); err != nil {
		t.Fatal(err)
	}
	m := newFuncModel(echo)
	_, err := Run(context.Background(), m, makeJobs(3), Options{Journal: path}, nil)
	if err == nil || !strings.Contains(err.Error(), path+":2:") {
		t.Fatalf("err = %v, want file:line", err)
	}
	if m.calls.Load() != 0 {
		t.Error("model called despite a corrupt journal")
	}
}

// FuzzReadJournal: the reader never panics; what it accepts is a prefix of
// the input that ends at a line boundary; a torn tail never changes what
// the well-formed prefix holds.
func FuzzReadJournal(f *testing.F) {
	f.Add([]byte(rec("a", "A") + rec("b", "B")))
	f.Add([]byte(rec("a", "A") + `{"key":"b"`))
	f.Add([]byte("\n\n" + rec("a", "x\ny")))
	f.Add([]byte(`{"key":"a","req":"f","elapsed":1e309}` + "\n"))
	f.Add([]byte("\x00\x00\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, good, torn, err := readJournal(bytes.NewReader(data), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "journal fuzz:") {
				t.Fatalf("error without file:line: %v", err)
			}
			return
		}
		if good < 0 || good > int64(len(data)) {
			t.Fatalf("good %d outside [0, %d]", good, len(data))
		}
		if good > 0 && data[good-1] != '\n' {
			t.Fatalf("prefix does not end at a line boundary")
		}
		if torn != (good < int64(len(data))) {
			t.Fatalf("torn %v with good %d of %d", torn, good, len(data))
		}
		for k, r := range recs {
			if k == "" || r.Key != k || r.Fingerprint == "" {
				t.Fatalf("bad record accepted: %+v", r)
			}
		}
		again, good2, torn2, err := readJournal(bytes.NewReader(data[:good]), "fuzz")
		if err != nil || good2 != good || torn2 || len(again) != len(recs) {
			t.Fatalf("prefix reads differently: %v %d %v %d/%d", err, good2, torn2, len(again), len(recs))
		}
	})
}

func TestJournaledOutcomesComeFirst(t *testing.T) {
	path := filepath.Join(t.TempDir(), "j.jsonl")
	jobs := makeJobs(40)
	// Run 1 answers the even questions only.
	var even []Job
	for i, j := range jobs {
		if i%2 == 0 {
			even = append(even, j)
		}
	}
	if _, err := Run(context.Background(), newFuncModel(echo), even, Options{Journal: path}, nil); err != nil {
		t.Fatal(err)
	}
	var order []bool // FromJournal, in emit order
	_, err := Run(context.Background(), newFuncModel(echo), jobs, Options{Journal: path, Concurrency: 4}, func(o Outcome) {
		order = append(order, o.FromJournal)
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(order) != 40 {
		t.Fatalf("%d outcomes", len(order))
	}
	for i, fj := range order {
		if fj != (i < 20) {
			t.Fatalf("outcome %d FromJournal=%v; want the 20 journaled ones first: %v", i, fj, order)
		}
	}
}

// Every field of a response survives the journal (a code- or agent-mode
// answer's work, the finish reason that notes a refusal, the reasoning),
// so a resumed run has it without asking again. ToolCalls and
// ReasoningBlocks are the agent loop's, inside its work (the transcript),
// never a settled answer's.
func TestJournalKeepsWork(t *testing.T) {
	answer := "42"
	work := &model.ToolRun{Mode: "agent", Turns: 2, Limit: "max_turns", Answer: &answer,
		Transcript: []model.Message{
			{Role: "assistant", Reasoning: "try 1", ToolCalls: []model.ToolCall{{ID: "c1", Name: "python", Arguments: `{"code":"1"}`}}},
			{Role: "tool", ToolCallID: "c1", Content: "1", ToolLimit: "timeout"},
		}}
	want := model.Response{Text: "42", InputTokens: 9, OutputTokens: 9, Model: "m", Work: work, FinishReason: model.FinishRefusal,
		Reasoning: "six times seven", ReasoningTokens: 7, CacheReadTokens: 5, CacheWriteTokens: 2}
	rv := reflect.ValueOf(want)
	for i := 0; i < rv.NumField(); i++ {
		if f := rv.Type().Field(i); f.Name != "ToolCalls" && f.Name != "ReasoningBlocks" && rv.Field(i).IsZero() {
			t.Errorf("Response.%s is zero in the test value", f.Name)
		}
	}
	b, err := json.Marshal(recordOf(Outcome{Key: "k", Response: want}, "fp", time.Unix(0, 0)))
	if err != nil {
		t.Fatal(err)
	}
	rec, err := parseRecord(b)
	if err != nil {
		t.Fatal(err)
	}
	if got := rec.outcome().Response; !reflect.DeepEqual(got, want) {
		t.Errorf("response after the journal = %+v, want %+v", got, want)
	}
}

// readJournal reads journal records from r; name is used in errors.
// It returns the records by key, the length of the well-formed prefix (where
// appending may start) and whether a torn last line was dropped.
func readJournal(r io.Reader, name string) (recs map[string]journalRecord, good int64, torn bool, err error) {
	recs = make(map[string]journalRecord)
	good, torn, err = jsonl.Read(r, "journal "+name, takeRecord(recs, name))
	if err != nil {
		return nil, 0, false, err
	}
	return recs, good, torn, nil
}
