package runcmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// machine is the environment of a run on one machine: its own user
// config folder, where evalmd keeps the key it seals its files with.
func machine(t *testing.T) map[string]string {
	return map[string]string{"XDG_CONFIG_HOME": filepath.Join(t.TempDir(), "config")}
}

// A stranger's results folder holds, in superseded/, an output made on
// the stranger's machine with its completions edited to the truths and a
// reused_from naming a file that does not exist. The next run on this
// machine reuses none of it: every question is asked, one line says an
// output was not reused because evalmd did not write it here, and the new
// output names no file that does not hold its answers.
func TestPlantedSupersededNotReused(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-edit.md")
	results := filepath.Join(dir, "results")
	writeFile(t, sheet, reuseSheet)
	args := []string{"-f", sheet, "-m", "mock", "--mock-reply", "wrong", "-o", results}
	if _, stderr, err := runIn(dir, machine(t), args...); err != nil {
		t.Fatalf("the stranger's run: %v\n%s", err, stderr)
	}
	paths, _ := filepath.Glob(filepath.Join(results, "output-edit-mock-*.json"))
	if len(paths) != 1 {
		t.Fatalf("the stranger's outputs: %v", paths)
	}
	planted := plantAnswers(t, paths[0], "output-edit-mock-nowhere.json")
	ents, _ := os.ReadDir(results)
	for _, e := range ents {
		os.RemoveAll(filepath.Join(results, e.Name()))
	}
	writeFile(t, filepath.Join(results, result.Superseded, filepath.Base(paths[0])), string(planted))

	_, stderr, err := runIn(dir, machine(t), args...)
	if err != nil {
		t.Fatalf("the victim's run: %v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, "mock on input-edit.md: 0/3 correct") || strings.Contains(stderr, "reused (unchanged") {
		t.Errorf("the victim's run does not ask every question:\n%s", stderr)
	}
	if !strings.Contains(stderr, "1 earlier output (3 answers) not reused: evalmd did not write it on this machine") ||
		!strings.Contains(stderr, "evalmd trust") {
		t.Errorf("the victim's run does not say what it did not reuse, and how to vouch:\n%s", stderr)
	}
	now, _ := filepath.Glob(filepath.Join(results, "output-edit-mock-*.json"))
	for _, p := range now {
		if b, _ := os.ReadFile(p); strings.Contains(string(b), "nowhere") {
			t.Errorf("%s names the planted reused_from", p)
		}
	}
}

// plantAnswers is the output at path with every completion set to its
// ground truth and reused_from set to from, as a stranger edits it.
func plantAnswers(t *testing.T, path, from string) []byte {
	t.Helper()
	var f map[string]any
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &f); err != nil {
		t.Fatal(err)
	}
	for _, q := range f["questions"].([]any) {
		q := q.(map[string]any)
		q["completion"], q["reused_from"], q["grade"] = q["ground_truth"], from, true
	}
	out, err := json.Marshal(f)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// A stranger's folder holds a run journal (plain JSON lines) at the name
// a run of this command takes (its hash needs only the sheet, the model
// and the output folder), one of whose answers is forged to the truth.
// The run on this machine resumes none of it: every question is asked
// and none is right.
func TestPlantedJournalNotResumed(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-edit.md")
	out := filepath.Join(dir, "out")
	writeFile(t, sheet, reuseSheet)
	var calls atomic.Int32
	var failQ3 atomic.Bool
	failQ3.Store(true)
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		calls.Add(1)
		if failQ3.Load() && strings.Contains(c.LastUserText(), "Boiling") {
			return fakeserver.Reply{Status: 400, Message: "no"}
		}
		return fakeserver.Reply{Text: "wrong"}
	}})
	const model = "openai-api/local/tiny"
	args := []string{"-f", sheet, "-m", model, "--base-url", srv.URL, "-o", out}
	if _, stderr, err := runIn(dir, machine(t), args...); err == nil {
		t.Fatalf("the stranger's run did not keep its journal:\n%s", stderr)
	}
	journals, _ := filepath.Glob(filepath.Join(out, ".evalmd-run-*.journal"))
	if len(journals) != 1 {
		t.Fatalf("the stranger's journals: %v", journals)
	}
	data, err := os.ReadFile(journals[0])
	if err != nil {
		t.Fatal(err)
	}
	// The stranger writes plain JSON lines, Q1's answer forged to its
	// truth, at the name the victim's run would look for.
	mac := regexp.MustCompile(`"mac":"[0-9a-f]*",?`)
	forged := strings.Replace(mac.ReplaceAllString(string(data), ""), `"text":"wrong"`, `"text":"Paris"`, -1)
	abs, _ := filepath.Abs(sheet)
	journal, state := harness.ResumeFiles(harness.Config{Sheets: []string{abs}, Models: []string{model}, OutDir: out})
	runState, _ := os.ReadFile(strings.TrimSuffix(journals[0], ".journal") + ".run")
	os.RemoveAll(out)
	writeFile(t, journal, forged)
	writeFile(t, state, string(runState))

	failQ3.Store(false)
	calls.Store(0)
	_, stderr, err := runIn(dir, machine(t), args...)
	if err != nil {
		t.Fatalf("the victim's run: %v\n%s", err, stderr)
	}
	if calls.Load() != 3 || strings.Contains(stderr, "resum") && !strings.Contains(stderr, "not resuming") {
		t.Errorf("the victim's run asked %d questions (want 3):\n%s", calls.Load(), stderr)
	}
	if !strings.Contains(stderr, "not resuming from "+journal+": evalmd did not write it on this machine") {
		t.Errorf("the victim's run does not say it left the planted journal alone:\n%s", stderr)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, q := range f.Questions {
			if q.Grade != nil && *q.Grade {
				t.Errorf("%s %s: the forged answer graded right", p, q.Name)
			}
		}
	}
}
