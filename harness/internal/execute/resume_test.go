package execute

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
)

// TestRerunAsksWhatIsMissing: the rerun of a run that did not finish
// (failed questions, a stop, a journal whose last line a crash cut)
// asks only the questions its journal lacks, into the same output file,
// and removes the journal once every answer is in.
func TestRerunAsksWhatIsMissing(t *testing.T) {
	tests := []struct {
		name  string
		first *scripted
		// torn is appended to the journal between the runs.
		torn    string
		asked   []string // by the rerun
		resumed int
	}{
		{name: "a failed question", first: &scripted{name: "m1", fail: map[string]bool{"B": true}},
			asked: []string{"B"}, resumed: 2},
		{name: "a half-written journal", first: &scripted{name: "m1", fail: map[string]bool{"C": true}},
			torn: `{"key":"m1|`, asked: []string{"C"}, resumed: 2},
		{name: "a stop after the first answer", first: &scripted{name: "m1"},
			asked: []string{"B", "C"}, resumed: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if len(tt.first.fail) == 0 {
				tt.first.after = func(string) { cancel() }
			}
			b := newBench(t, []model.Model{tt.first}, "input-s1.md", threeQuestions)
			_, outs, err := b.run(ctx, runner.Options{})
			if _, serr := os.Stat(b.journal()); serr != nil {
				t.Fatalf("first run (%v): journal %v", err, serr)
			}
			if tt.torn != "" {
				f, err := os.OpenFile(b.journal(), os.O_APPEND|os.O_WRONLY, 0)
				if err != nil {
					t.Fatal(err)
				}
				f.WriteString(tt.torn)
				f.Close()
			}
			again := &scripted{name: "m1"}
			b.models = []model.Model{again}
			b.console.Reset()
			res, outs2, err := b.run(context.Background(), runner.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(again.questions(), tt.asked) {
				t.Errorf("rerun asked %v, want %v", again.questions(), tt.asked)
			}
			if outs2[0].OutPath != outs[0].OutPath {
				t.Errorf("rerun wrote %s, want the first run's %s", outs2[0].OutPath, outs[0].OutPath)
			}
			if res.Failed != 0 || res.Files[0].Tally.Correct != 3 {
				t.Errorf("rerun: %d failed, %d correct", res.Failed, res.Files[0].Tally.Correct)
			}
			want := "(0 cached, " + string(rune('0'+tt.resumed)) + " resumed)"
			if !strings.Contains(b.console.String(), want) {
				t.Errorf("console lacks %q:\n%s", want, b.console.String())
			}
			if _, err := os.Stat(b.journal()); err == nil {
				t.Error("journal kept after every answer is in")
			}
			if f := readOutput(t, outs[0].OutPath); f.Sheet.RunID != "r1" {
				t.Errorf("run id %q, want the first run's r1", f.Sheet.RunID)
			}
		})
	}
}

// TestLoadResume: the state beside a journal gives the earlier run's id
// and the outputs it wrote; a state that is no JSON starts afresh, one
// whose run id is not one is an error naming the file.
func TestLoadResume(t *testing.T) {
	tests := []struct {
		name, state string // "" writes no state file
		exists      bool
		runID       string
		err         string
	}{
		{name: "no state"},
		{name: "a run id", state: `{"run_id":"abc123","written":{"/o.json":"s"}}`, exists: true, runID: "abc123"},
		{name: "written null", state: `{"run_id":"abc123","written":null}`, exists: true, runID: "abc123"},
		{name: "not JSON", state: `{"run_id":`},
		{name: "a crafted run id", state: `{"run_id":"x/../../trav"}`, err: "remove the file to start afresh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			state := filepath.Join(dir, "r.run")
			if tt.state != "" {
				if err := os.WriteFile(state, []byte(tt.state), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			st, err := LoadResume(filepath.Join(dir, "r.journal"), state)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.HasPrefix(err.Error(), state+": ") {
					t.Errorf("error %v, want one naming %s and saying %q", err, state, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if st.Exists != tt.exists || st.RunID != tt.runID || st.Written == nil {
				t.Errorf("got exists %v, run id %q, written %v; want %v, %q, a map", st.Exists, st.RunID, st.Written, tt.exists, tt.runID)
			}
		})
	}
}

// TestResumeSavedAndRemoved: what Wrote saves a later LoadResume reads;
// remove takes away the journal, the state and each model's batch
// journal, and nothing else.
func TestResumeSavedAndRemoved(t *testing.T) {
	dir := t.TempDir()
	journal, state := filepath.Join(dir, ".evalmd-run-x.journal"), filepath.Join(dir, "sub", ".evalmd-run-x.run")
	st, err := LoadResume(journal, state)
	if err != nil {
		t.Fatal(err)
	}
	st.RunID = "r9"
	if err := st.Wrote("/out/output-s-m-r9.json", "sum1"); err != nil {
		t.Fatal(err)
	}
	again, err := LoadResume(journal, state)
	if err != nil || !again.Exists || again.RunID != "r9" || again.Written["/out/output-s-m-r9.json"] != "sum1" {
		t.Fatalf("reloaded %+v, %v", again, err)
	}
	batch := batchJournal(journal, "openai/gpt-4o")
	if want := filepath.Join(dir, ".evalmd-run-x.batch-openai_gpt-4o.journal"); batch != want {
		t.Errorf("batch journal %s, want %s", batch, want)
	}
	other := filepath.Join(dir, "output-s-m-r9.json")
	for _, p := range []string{journal, batch, other} {
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	again.remove()
	for _, p := range []string{journal, state, batch} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s kept", p)
		}
	}
	if _, err := os.Stat(other); err != nil {
		t.Errorf("%s removed: %v", other, err)
	}
}
