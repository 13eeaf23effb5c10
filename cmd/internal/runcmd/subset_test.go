package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// subsetSheet writes a sheet of n questions Q1..Qn, the even ones with an
// id meta (id-2, id-4...), and returns its path.
func subsetSheet(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Subset\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "## Q%d\n", i)
		if i%2 == 0 {
			fmt.Fprintf(&b, "#### meta\n- id: id-%d\n", i)
		}
		fmt.Fprintf(&b, "#### answer\n%d<EVAL-ENDCHAR>\n#### question\nSay %d.\n<EVAL-ENDCHAR>\n\n", i, i)
	}
	p := filepath.Join(t.TempDir(), "input-subset.md")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// --questions and --limit ask only the chosen questions (filter, then
// limit, in sheet order); the output records the subset, its markdown and
// the run's summary say it.
func TestRunSubset(t *testing.T) {
	sheet := subsetSheet(t, 10)
	for _, tc := range []struct {
		flags []string
		names []string
		rec   result.Subset
		said  string
	}{
		{[]string{"--limit", "3"}, []string{"Q1", "Q2", "Q3"}, result.Subset{Limit: 3, Of: 10}, "3 of 10 questions (--limit 3)"},
		{[]string{"--questions", "Q1?,id-[2-5]"}, []string{"Q2", "Q4", "Q10"}, result.Subset{Questions: []string{"Q1?", "id-[2-5]"}, Of: 10},
			"3 of 10 questions (--questions Q1?,id-[2-5])"},
		{[]string{"--questions", "Q*", "--limit", "2", "--questions", "id-8"}, []string{"Q1", "Q2"}, result.Subset{Limit: 2, Questions: []string{"Q*", "id-8"}, Of: 10},
			"2 of 10 questions (--questions Q*,id-8 --limit 2)"},
	} {
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"-f", sheet, "-m", "mock", "-o", out, "-u", "0"}, tc.flags...)
		if err := run(context.Background(), &stdout, &stderr, args); err != nil {
			t.Fatalf("%v: %v\n%s", tc.flags, err, stderr.String())
		}
		p := filepath.Join(out, "output-subset-mock.json")
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, q := range f.Questions {
			names = append(names, q.Name)
		}
		if !reflect.DeepEqual(names, tc.names) {
			t.Errorf("%v: asked %v, want %v", tc.flags, names, tc.names)
		}
		if f.Sheet.Subset == nil || !reflect.DeepEqual(*f.Sheet.Subset, tc.rec) {
			t.Errorf("%v: recorded subset %+v, want %+v", tc.flags, f.Sheet.Subset, tc.rec)
		}
		md, _ := os.ReadFile(result.MarkdownPath(p))
		if !strings.Contains(string(md), "**Subset:** "+tc.said+"\n") {
			t.Errorf("%v: the markdown does not say %q:\n%s", tc.flags, tc.said, md)
		}
		if !strings.Contains(stderr.String(), "0/"+fmt.Sprint(len(tc.names))+" correct, "+tc.said+",") {
			t.Errorf("%v: the sheet's line does not say %q:\n%s", tc.flags, tc.said, stderr.String())
		}
		if want := fmt.Sprintf("| %d of 10 |", len(tc.names)); !strings.Contains(strings.ReplaceAll(stdout.String(), "  ", ""), want) {
			t.Errorf("%v: the summary does not say %q:\n%s", tc.flags, want, stdout.String())
		}
	}

	// Without the flags nothing is recorded.
	out := t.TempDir()
	var stderr bytes.Buffer
	if err := run(context.Background(), &stderr, &stderr, []string{"-f", sheet, "-m", "mock", "-o", out, "-u", "0"}); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(out, "output-subset-mock.json")); bytes.Contains(b, []byte(`"subset"`)) {
		t.Error("a run of every question records a subset")
	}
}

// A question whose epochs are below its sheet's is left out of the later
// epochs' files, which say so and why: "2 of 3 questions (those of epochs
// 2 or more)", with --limit beside it. Before, the reason was an empty
// "()".
func TestRunFewerEpochsSaid(t *testing.T) {
	for _, tc := range []struct {
		flags []string
		said  string // of epoch 2
	}{
		{nil, "2 of 3 questions (those of epochs 2 or more)"},
		{[]string{"--limit", "2"}, "1 of 3 questions (--limit 2; those of epochs 2 or more)"},
	} {
		dir := t.TempDir()
		sheet := epochSheet(t, dir, 3, "epochs: 2")
		text, _ := os.ReadFile(sheet)
		text = bytes.Replace(text, []byte("## Q1\n"), []byte("## Q1\n#### meta\n- epochs: 1\n"), 1)
		if err := os.WriteFile(sheet, text, 0o644); err != nil {
			t.Fatal(err)
		}
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"-f", sheet, "-m", "mock", "-o", out, "-u", "0"}, tc.flags...)
		if err := run(context.Background(), &stdout, &stderr, args); err != nil {
			t.Fatalf("%v: %v\n%s", tc.flags, err, stderr.String())
		}
		if !strings.Contains(stderr.String(), tc.said+",") || strings.Contains(stderr.String(), "()") {
			t.Errorf("%v: the sheet's line does not say %q:\n%s", tc.flags, tc.said, stderr.String())
		}
	}
}

// A glob that matches no question of the whole run is an error before any
// call, in one line naming it; one that matches in another sheet is not.
func TestRunSubsetNoMatch(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20})
	dir := t.TempDir()
	a, b := subsetSheet(t, 3), subsetSheet(t, 12)
	os.MkdirAll(filepath.Join(dir, "a"), 0o755)
	os.MkdirAll(filepath.Join(dir, "b"), 0o755)
	os.Rename(a, filepath.Join(dir, "a", "input-subset.md"))
	os.Rename(b, filepath.Join(dir, "b", "input-subset.md"))
	out := t.TempDir()
	base := []string{"-d", dir, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out}
	var stderr bytes.Buffer
	err := run(context.Background(), &stderr, &stderr, append(base, "--questions", "Q1,Nope*,Q2"))
	if err == nil || err.Error() != `--questions "Nope*": no question of the run's sheets has that name or id` {
		t.Errorf("err %v", err)
	}
	if srv.Count() != 0 {
		t.Errorf("%d calls before the error", srv.Count())
	}
	if err := run(context.Background(), &stderr, &stderr, []string{"-f", "x.md", "--questions", "[x"}); err == nil || !strings.Contains(err.Error(), `--questions "[x"`) {
		t.Errorf("a malformed glob: %v", err)
	}
	// Q11 is only in b's sheet: a is not written at all.
	if err := run(context.Background(), &stderr, &stderr, append(base, "--questions", "Q11", "-u", "0")); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "a", "output-subset-openai-api_local_tiny.json")); err == nil {
		t.Error("a sheet none of whose questions is asked has an output")
	}
	if f, err := result.Read(filepath.Join(out, "b", "output-subset-openai-api_local_tiny.json")); err != nil || len(f.Questions) != 1 {
		t.Errorf("b's output: %v", err)
	}
}

// A rerun with the same subset resumes its run; a run with another subset
// in between is a run of its own, and leaves the first one's journal and
// output alone.
func TestRunSubsetResumes(t *testing.T) {
	var mu sync.Mutex
	failing := true
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 50,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			mu.Lock()
			defer mu.Unlock()
			if failing {
				return fakeserver.Reply{Status: 400, Message: "not today"}
			}
			return fakeserver.Reply{Text: "1"}
		}})
	sheet := subsetSheet(t, 6)
	out := t.TempDir()
	base := []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out}
	var stderr bytes.Buffer
	if err := run(context.Background(), &stderr, &stderr, append(base, "--limit", "3")); err == nil {
		t.Fatal("the failing run succeeded")
	}
	first, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(first) != 1 {
		t.Fatalf("outputs %v", first)
	}
	mu.Lock()
	failing = false
	mu.Unlock()

	stderr.Reset()
	if err := run(context.Background(), &stderr, &stderr, append(base, "--limit", "2")); err != nil {
		t.Fatalf("--limit 2: %v\n%s", err, stderr.String())
	}
	if strings.Contains(stderr.String(), "resuming") {
		t.Errorf("another subset resumed the first run:\n%s", stderr.String())
	}
	if f, err := result.Read(first[0]); err != nil || len(f.Questions) != 3 || f.Questions[0].Error == nil {
		t.Errorf("the --limit 3 output was changed by the --limit 2 run: %v", err)
	}

	stderr.Reset()
	if err := run(context.Background(), &stderr, &stderr, append(base, "--limit", "3")); err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "resuming run") {
		t.Errorf("the same subset did not resume:\n%s", stderr.String())
	}
	f, err := result.Read(first[0])
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Questions) != 3 || f.Sheet.Subset == nil || f.Sheet.Subset.Limit != 3 {
		t.Errorf("after the resume: %d questions, subset %+v", len(f.Questions), f.Sheet.Subset)
	}
	for _, q := range f.Questions {
		if q.Completion == nil || q.Error != nil {
			t.Errorf("%s: not answered after the resume: %v", q.Name, q.Error)
		}
	}
	// The --limit 2 output is superseded: its answers are all in the
	// --limit 3 one's, reused.
	all, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	aside, _ := filepath.Glob(filepath.Join(out, result.Superseded, "output-*.json"))
	if len(all) != 1 || len(aside) != 1 {
		t.Errorf("outputs %v, superseded %v; want the --limit 3 run's, and the --limit 2 one's put aside", all, aside)
	}
}
