package aggcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// What agg counts: a corrupt file is named and counted and fails the exit
// status (the report is still written); a run copied into a subfolder
// counts once, with a warning; a dry run is left out unless
// --include-dry-runs; a run without answers is named, and so is a subset
// (run --limit, --questions), whose score is not its sheet's.
func TestAggCountsRunsOnce(t *testing.T) {
	src := shared.Path(t, "corpora", "lime", "results", "output-rules-qa-1-gpt-4-09fa.json")
	f, err := result.Read(src)
	if err != nil {
		t.Fatal(err)
	}
	n := len(f.Questions)
	dir := t.TempDir()
	write := func(name string, f *result.File) {
		p := filepath.Join(dir, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := f.Write(p, outfile.Options{}); err != nil {
			t.Fatal(err)
		}
	}
	write("output-rules-qa-1-gpt-4-09fa.json", f)
	write("copy/output-rules-qa-1-gpt-4-09fa.json", f) // the same run again

	dry := *f
	dry.Sheet.RunID, dry.Sheet.DryRun = "dry1", true
	write("output-rules-qa-1-gpt-4-dry1.json", &dry)

	none := *f
	none.Sheet.RunID = "down"
	none.Questions = append([]result.Question(nil), f.Questions...)
	for i := range none.Questions {
		msg := "connection refused"
		none.Questions[i].Completion, none.Questions[i].Error, none.Questions[i].Grade = nil, &msg, nil
	}
	write("output-rules-qa-1-gpt-4-down.json", &none)
	sub := *f
	sub.Sheet.RunID = "sub1"
	sub.Questions = f.Questions[:1]
	sub.Sheet.Subset = &result.Subset{Limit: 1, Of: n}
	write("output-rules-qa-1-gpt-4-sub1.json", &sub)
	os.WriteFile(filepath.Join(dir, "output-cut.json"), []byte(`{"sheet": {"name": "x"}, "questions": [`), 0o644)

	for _, tc := range []struct {
		args      []string
		questions int // as LIME's verbose count says
		stderr    []string
	}{
		{nil, 2*n + 1, []string{
			"output-cut.json:1: not an output file: questions: unexpected EOF",
			"output-rules-qa-1-gpt-4-09fa.json: the same run as",
			"left out 1 dry-run outputs",
			"no answers in " + filepath.Join(dir, "output-rules-qa-1-gpt-4-down.json"),
			"1 of 6 output files could not be read",
			"a subset in " + filepath.Join(dir, "output-rules-qa-1-gpt-4-sub1.json") + " (model gpt-4, sheet Rule-QA-1): 1 of " + itoa(n) + " questions (--limit 1): its scores cover only those",
		}},
		{[]string{"--include-dry-runs"}, 3*n + 1, []string{"1 of 6 output files could not be read"}},
	} {
		var stdout, stderr bytes.Buffer
		err := aggregate(context.Background(), &stdout, &stderr, append([]string{"-i", dir, "-o", "-", "-v"}, tc.args...))
		if err == nil {
			t.Errorf("%q: no error for the corrupt file", tc.args)
		} else {
			stderr.WriteString(err.Error())
		}
		msg := stderr.String()
		for _, want := range tc.stderr {
			if !strings.Contains(msg, want) {
				t.Errorf("%q: no %q in\n%s", tc.args, want, msg)
			}
		}
		if want := "questions found: " + itoa(tc.questions) + "\n"; !strings.Contains(msg, want) {
			t.Errorf("%q: want %q in\n%s", tc.args, want, msg)
		}
		if !strings.HasPrefix(stdout.String(), "### Leaderboard") {
			t.Errorf("%q: no report", tc.args)
		}
	}
}

func itoa(n int) string {
	var b []byte
	for {
		b = append([]byte{byte('0' + n%10)}, b...)
		if n /= 10; n == 0 {
			return string(b)
		}
	}
}
