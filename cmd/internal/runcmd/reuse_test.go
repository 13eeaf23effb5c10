package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

const reuseSheet = `# Edit
#### question
Answer only.
<EVAL-ENDCHAR>

## Q1
#### answer
Paris<EVAL-ENDCHAR>
#### question
Capital of France?
<EVAL-ENDCHAR>

## Q2
#### answer
8<EVAL-ENDCHAR>
#### question
Planets?
<EVAL-ENDCHAR>

## Q3
#### answer
100<EVAL-ENDCHAR>
#### question
Boiling point of water in C?
<EVAL-ENDCHAR>
`

// editOutputs reads the outputs of model m in dir, by run id.
func editOutputs(t *testing.T, dir, m string) map[string]*result.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "output-edit-"+m+"-*.json"))
	out := map[string]*result.File{}
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		out[f.Sheet.RunID] = f
	}
	return out
}

// newest is the output of m in dir that the last run wrote (the one run
// id not in before).
func newest(t *testing.T, dir, m string, before map[string]*result.File) *result.File {
	t.Helper()
	for id, f := range editOutputs(t, dir, m) {
		if before[id] == nil {
			return f
		}
	}
	t.Fatalf("no new output of %s in %s", m, dir)
	return nil
}

// Rerunning after an edit of one question and one answer asks only the
// questions whose request changed: for mock the edited question (its
// answer does not depend on the truth), for the oracle the edited answer
// too. Reused answers are marked, graded against the current truth, and
// said on the console and in the summary; --fresh asks everything.
func TestRerunReusesUnchanged(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-edit.md")
	out := filepath.Join(dir, "results")
	if err := os.WriteFile(sheet, []byte(reuseSheet), 0o644); err != nil {
		t.Fatal(err)
	}
	runOnce := func(extra ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		args := append([]string{"-f", sheet, "-m", "mock,oracle", "-o", out, "--mock-reply", "100"}, extra...)
		if err := run(context.Background(), &stdout, &stderr, args); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	runOnce()
	first := editOutputs(t, out, "mock")
	firstOracle := editOutputs(t, out, "oracle")

	edited := strings.Replace(strings.Replace(reuseSheet, "Capital of France?", "Capital city of France?", 1), "100<EVAL", "99.97<EVAL", 1)
	if err := os.WriteFile(sheet, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr := runOnce()
	for _, want := range []string{"mock on input-edit.md: 0/3 correct, 1 asked, 2 reused (unchanged since output-edit-mock-",
		"oracle on input-edit.md: 3/3 correct, 2 asked, 1 reused (unchanged since output-edit-oracle-"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("the console does not say %q:\n%s", want, stderr)
		}
	}
	if !strings.Contains(stdout, "3 (1 asked, 2 reused)") || !strings.Contains(stdout, "3 (2 asked, 1 reused)") {
		t.Errorf("the summary does not say what was asked and reused:\n%s", stdout)
	}
	mock := newest(t, out, "mock", first)
	var from string
	for id := range first {
		from = "output-edit-mock-" + id + ".json"
	}
	wantReused := map[string]bool{"Q1": false, "Q2": true, "Q3": true}
	for _, q := range mock.Questions {
		if q.RequestKey == "" {
			t.Errorf("%s: no request key recorded", q.Name)
		}
		if got := q.ReusedFrom != ""; got != wantReused[q.Name] {
			t.Errorf("%s: reused %v (%q), want %v", q.Name, got, q.ReusedFrom, wantReused[q.Name])
		} else if got && q.ReusedFrom != from {
			t.Errorf("%s: reused from %q, want %q", q.Name, q.ReusedFrom, from)
		}
	}
	// Q3's reused answer "100" was right; against the edited truth it is
	// graded again, and wrong.
	if q := mock.Questions[2]; q.Grade == nil || *q.Grade || *q.GroundTruth != "99.97" {
		t.Errorf("Q3 was not graded against the current truth: grade %v, truth %q", q.Grade, *q.GroundTruth)
	}
	md, _ := os.ReadFile(filepath.Join(out, "output-edit-mock-"+mock.Sheet.RunID+".md"))
	if strings.Count(string(md), "**Reused from:**") != 2 {
		t.Errorf("the markdown does not mark the 2 reused answers:\n%s", md)
	}
	oracle := newest(t, out, "oracle", firstOracle)
	if oracle.Questions[2].ReusedFrom != "" || *oracle.Questions[2].Completion != "99.97" {
		t.Errorf("the oracle reused its answer to an edited truth: %q from %q", *oracle.Questions[2].Completion, oracle.Questions[2].ReusedFrom)
	}
	for _, f := range first {
		if f.Sheet.Version == "" || f.Sheet.Version == mock.Sheet.Version {
			t.Errorf("versions before and after the edit: %q and %q", f.Sheet.Version, mock.Sheet.Version)
		}
	}

	// --fresh asks everything.
	_, stderr = runOnce("--fresh")
	if !strings.Contains(stderr, "mock on input-edit.md: 0/3 correct, 3 answered,") {
		t.Errorf("--fresh reused answers:\n%s", stderr)
	}
}

// A rerun after an edit that is interrupted (a question failed) resumes
// as before: the same command asks only the failed question, takes the
// other asked one from its journal, and still reuses the unchanged one
// from the first run's output.
func TestRerunResumesWithReuse(t *testing.T) {
	var failing atomic.Bool
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		text := c.Messages[len(c.Messages)-1].Text
		if failing.Load() && strings.Contains(text, "How many planets?") {
			return fakeserver.Reply{Fault: fakeserver.ServerError}
		}
		return fakeserver.Reply{Text: "answer to " + text}
	}})
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-edit.md")
	out := filepath.Join(dir, "results")
	if err := os.WriteFile(sheet, []byte(reuseSheet), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-f", sheet, "-m", "openai-api/x/m", "--base-url", srv.URL, "-o", out, "--retries", "0"}
	var log bytes.Buffer
	if err := run(context.Background(), &log, &log, args); err != nil {
		t.Fatalf("first run: %v\n%s", err, log.String())
	}
	first := srv.Count()

	edited := strings.Replace(strings.Replace(reuseSheet, "Capital of France?", "Capital city of France?", 1), "Planets?", "How many planets?", 1)
	if err := os.WriteFile(sheet, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	failing.Store(true)
	log.Reset()
	if err := run(context.Background(), &log, &log, args); err == nil {
		t.Fatalf("the rerun with a failing question succeeded\n%s", log.String())
	}
	if got := srv.Count() - first; got != 2 {
		t.Errorf("the rerun sent %d requests, want 2 (the edited questions)", got)
	}
	failing.Store(false)
	log.Reset()
	if err := run(context.Background(), &log, &log, args); err != nil {
		t.Fatalf("resume: %v\n%s", err, log.String())
	}
	if got := srv.Count() - first; got != 3 {
		t.Errorf("the resume sent %d requests in all since the first run, want 3 (only the failed question again)", got)
	}
	if !strings.Contains(log.String(), "resuming run") || !strings.Contains(log.String(), "2 asked, 1 reused") {
		t.Errorf("the resume did not say it resumed and reused:\n%s", log.String())
	}
	// The first run's output is superseded (its one answer to the sheet as
	// it is now is in the rerun's): put aside.
	outs, _ := filepath.Glob(filepath.Join(out, "output-edit-*.json"))
	aside, _ := filepath.Glob(filepath.Join(out, result.Superseded, "output-edit-*.json"))
	if len(outs) != 1 || len(aside) != 1 {
		t.Fatalf("outputs %v, superseded %v; want the resumed run's, and the first run's put aside", outs, aside)
	}
	f, err := result.Read(outs[0])
	if err != nil {
		t.Fatal(err)
	}
	if f.Sheet.Version != editVersion(t, edited) {
		t.Fatalf("the output is not of the edited sheet")
	}
	for i, q := range f.Questions {
		if q.Error != nil || q.Completion == nil {
			t.Errorf("%s: not answered: %v", q.Name, q.Error)
		}
		if reused := q.ReusedFrom == filepath.Base(aside[0]); reused != (i == 2) {
			t.Errorf("%s: reused from %q", q.Name, q.ReusedFrom)
		}
	}
}

// editVersion is the version run records for the sheet text.
func editVersion(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "input-edit.md")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	var log bytes.Buffer
	out := t.TempDir()
	if err := run(context.Background(), &log, &log, []string{"-f", p, "-y", "-o", out, "-u", "0"}); err != nil {
		t.Fatalf("dry run: %v\n%s", err, log.String())
	}
	f, err := result.Read(filepath.Join(out, "output-edit-dry-run.json"))
	if err != nil {
		t.Fatal(err)
	}
	return f.Sheet.Version
}

// A rerun that would ask nothing and grade alike adds no run: it writes
// nothing and says which output is current. One that reuses every answer
// but grades them against an edited truth writes the regraded output and
// puts the earlier one aside (superseded), with its Inspect log; --fresh
// samples the model again, and both runs stay.
func TestRerunUnchangedWritesNothing(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-edit.md")
	out, logs := filepath.Join(dir, "results"), filepath.Join(dir, "logs")
	if err := os.WriteFile(sheet, []byte(reuseSheet), 0o644); err != nil {
		t.Fatal(err)
	}
	runOnce := func(extra ...string) (string, string) {
		t.Helper()
		var stdout, stderr bytes.Buffer
		if err := run(context.Background(), &stdout, &stderr, append([]string{"-f", sheet, "-m", "mock", "-o", out, "--mock-reply", "100", "--log-dir", logs}, extra...)); err != nil {
			t.Fatalf("run: %v\n%s", err, stderr.String())
		}
		return stdout.String(), stderr.String()
	}
	count := func(dir string) int {
		paths, _ := filepath.Glob(filepath.Join(dir, "output-edit-*"))
		return len(paths)
	}
	countLogs := func(dir string) int {
		paths, _ := filepath.Glob(filepath.Join(dir, "*.eval"))
		return len(paths)
	}
	runOnce()
	first := onlyOutput(t, out)
	stdout, stderr := runOnce()
	if want := "mock on input-edit.md: 1/3 correct, nothing asked: current, " + filepath.Base(first) + " holds these answers graded alike; nothing written"; !strings.Contains(stderr, want) {
		t.Errorf("the rerun does not say %q:\n%s", want, stderr)
	}
	if !strings.Contains(stdout, "3 (0 asked, 3 reused)") {
		t.Errorf("the summary does not say 0 asked, 3 reused:\n%s", stdout)
	}
	if n, l := count(out), countLogs(logs); n != 2 || l != 1 {
		t.Errorf("the rerun left %d files and %d Inspect logs (want the first run's .json and .md, and its log)", n, l)
	}

	if err := os.WriteFile(sheet, []byte(strings.Replace(reuseSheet, "8<EVAL", "100<EVAL", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr = runOnce()
	if !strings.Contains(stderr, "mock on input-edit.md: 2/3 correct, 0 asked, 3 reused") || !strings.Contains(stderr, "moved "+filepath.Base(first)) {
		t.Errorf("the rerun after a truth edit does not regrade and put the first output aside:\n%s", stderr)
	}
	if n, aside := count(out), count(filepath.Join(out, result.Superseded)); n != 2 || aside != 2 {
		t.Errorf("after the truth edit: %d files, %d put aside; want 2 and 2", n, aside)
	}
	if l, aside := countLogs(logs), countLogs(filepath.Join(logs, result.Superseded)); l != 1 || aside != 1 {
		t.Errorf("after the truth edit: %d Inspect logs, %d put aside; want 1 and 1", l, aside)
	}

	runOnce("--fresh")
	if n, l := count(out), countLogs(logs); n != 4 || l != 2 {
		t.Errorf("after --fresh: %d files and %d logs, want the two samples' 4 and 2", n, l)
	}
}

// A sheet saved half-written (no question, a question without its
// question or its answer section) is not run: one line naming the file
// and line, a non-zero exit, nothing written.
func TestHalfSavedSheetNotRun(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"# First-Steps\n\n## Half\n#### answer\nX\n", `:3: question "Half" has no question section`},
		{"# First-Steps\n\n## Q\n#### question\nWhat is\n", `:3: question "Q" cannot be graded: it has no answer section`},
		{"# First-Steps\n\n#### question\nAnswer only.\n", ":1: the sheet has no question"},
	} {
		dir := t.TempDir()
		sheet := filepath.Join(dir, "input-half.md")
		if err := os.WriteFile(sheet, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		var log bytes.Buffer
		err := run(context.Background(), &log, &log, []string{"-f", sheet, "-m", "mock", "-o", filepath.Join(dir, "out")})
		if err == nil || !strings.HasPrefix(err.Error(), "not run: "+sheet+tc.want) {
			t.Errorf("%q: %v, want not run: %s%s", tc.text, err, sheet, tc.want)
		}
		if _, err := os.Stat(filepath.Join(dir, "out")); err == nil {
			t.Errorf("%q: an output folder was made", tc.text)
		}
	}
}

// A folder from before reruns wrote nothing holds copies: a rerun that
// asked nothing wrote every answer again under another run id. The next
// rerun of the unchanged sheet writes nothing, and the output it finds
// current supersedes the one its answers came from: put aside, so LIME's
// agg.py, which counts every file, counts each answer once.
func TestRerunTidiesCopies(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-edit.md")
	out := filepath.Join(dir, "results")
	if err := os.WriteFile(sheet, []byte(reuseSheet), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-f", sheet, "-m", "mock", "-o", out}
	var log bytes.Buffer
	if err := run(context.Background(), &log, &log, args); err != nil {
		t.Fatalf("run: %v\n%s", err, log.String())
	}
	first := onlyOutput(t, out)
	f, err := result.Read(first)
	if err != nil {
		t.Fatal(err)
	}
	// The copy an earlier evalmd wrote: every answer reused from the
	// first output, a run started later.
	f.Sheet.RunID, f.Sheet.Created = "c0de", "2999-01-01T00:00:00.000Z"
	for i := range f.Questions {
		f.Questions[i].ReusedFrom = filepath.Base(first)
	}
	copied := filepath.Join(out, result.FileName(sheet, "mock", "c0de"))
	data, err := f.Marshal()
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(copied, data, 0o644); err != nil {
		t.Fatal(err)
	}
	// Written by evalmd on this machine.
	key, err := testLookup().Key()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := outfile.Seal(copied, key); err != nil {
		t.Fatal(err)
	}
	log.Reset()
	if err := run(context.Background(), &log, &log, args); err != nil {
		t.Fatalf("rerun: %v\n%s", err, log.String())
	}
	if want := "current, " + filepath.Base(copied) + " holds these answers"; !strings.Contains(log.String(), want) {
		t.Errorf("the rerun does not say %q:\n%s", want, log.String())
	}
	if got := onlyOutput(t, out); got != copied {
		t.Errorf("the folder holds %s, want the copy (the current output) alone", got)
	}
	if _, err := os.Stat(filepath.Join(out, result.Superseded, filepath.Base(first))); err != nil {
		t.Errorf("the first output was not put aside: %v\n%s", err, log.String())
	}
}
