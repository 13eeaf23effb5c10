package evalmdcmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// grade -w racing a run that rewrites the same output (-u 0 --force): the
// pair each writes is written as one, so whichever wins, and however
// their writes interleave, the output and its .md agree after every
// round (before, a regrade that changed nothing could put its old .md
// back over the run's new one, both commands exiting 0).
func TestGradeRacingRunKeepsPairs(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-race.md")
	// Each round's sheet holds another truth for Q0, so each run's output
	// and .md differ from the last.
	writeSheet := func(round int) {
		var b strings.Builder
		b.WriteString("# Race\n\n#### meta\n- grader: lime\n\n")
		for i := range 200 {
			answer := fmt.Sprintf("A%d", i)
			if i == 0 {
				answer = fmt.Sprintf("round %d", round)
			}
			fmt.Fprintf(&b, "## Q%d\n#### answer\n%s<EVAL-ENDCHAR>\n#### question\nWhat is %d?\n<EVAL-ENDCHAR>\n\n", i, answer, i)
		}
		if err := os.WriteFile(sheet, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	writeSheet(-1)
	out := filepath.Join(dir, "out")
	env := testEnv("", nil)
	run := []string{"run", "-f", sheet, "-m", "mock", "-u", "0", "--force", "-o", out}
	if _, stderr, code := evalmd(t, env, run...); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	path := filepath.Join(out, "output-race-mock.json")
	// The grade starts a little later each round, so that its writes
	// meet the run's at every offset.
	for round := range 30 {
		writeSheet(round)
		var wg sync.WaitGroup
		var runErr, gradeErr string
		wg.Go(func() { _, runErr, _ = evalmd(t, env, run...) })
		wg.Go(func() {
			time.Sleep(time.Duration(round%30) * 2 * time.Millisecond)
			_, gradeErr, _ = evalmd(t, env, "grade", "-w", "-o", path)
		})
		wg.Wait()
		f, err := result.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		md, err := os.ReadFile(result.MarkdownPath(path))
		if err != nil {
			t.Fatal(err)
		}
		if string(md) != result.Markdown(f) {
			t.Fatalf("round %d: the .md is not the output's\nrun: %s\ngrade: %s", round, runErr, gradeErr)
		}
	}
}

// Two runs at once with -u 0 write one output: the second to finish is
// refused and keeps its journal. Its rerun resumes from the journal but
// keeps the first run's file, both having been paid for: it is refused
// before anything is asked, naming the file, and --force writes the
// rerun's over it.
func TestRerunKeepsTheOtherRunsOutput(t *testing.T) {
	var up atomic.Bool // the server answers once up, else refuses
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 100, Reply: func(fakeserver.Call) fakeserver.Reply {
		if !up.Load() {
			return fakeserver.Reply{Status: 400, Message: "refused"}
		}
		return fakeserver.Reply{Text: "Paris"}
	}})
	dir := t.TempDir()
	if _, stderr, code := evalmd(t, testEnv("", nil), "init", filepath.Join(dir, "evals")); code != 0 {
		t.Fatal(stderr)
	}
	out := filepath.Join(dir, "out")
	env := testEnv("", map[string]string{"OPENAI_API_KEY": "sk-test"})
	second := []string{"run", "-d", filepath.Join(dir, "evals"), "-m", "mock,openai-api/x/m", "--base-url", srv.URL, "-u", "0", "-o", out}
	// The second run's questions to the server fail: its journal stays.
	evalmd(t, env, second...)
	mockOut := filepath.Join(out, "output-first-steps-mock.json")
	// The first run writes the shared output last, as the winner of the
	// race would have.
	if _, stderr, code := evalmd(t, env, "run", "-d", filepath.Join(dir, "evals"), "-m", "mock", "-u", "0", "-o", out, "--force", "--fresh"); code != 0 {
		t.Fatal(stderr)
	}
	winner, err := os.ReadFile(mockOut)
	if err != nil {
		t.Fatal(err)
	}
	up.Store(true)
	_, stderr, code := evalmd(t, env, second...)
	if code == 0 || !strings.Contains(stderr, mockOut+" was written by another run") || strings.Count(strings.TrimSpace(stderr), "\n") > 1 {
		t.Errorf("rerun of the refused run: exit %d, %q; want one line naming %s", code, stderr, mockOut)
	}
	if got, _ := os.ReadFile(mockOut); string(got) != string(winner) {
		t.Fatal("the rerun replaced the other run's output")
	}
	if calls := len(srv.Calls()); calls != 3 {
		t.Errorf("%d calls to the server, want the first run's 3 only", calls)
	}
	if _, stderr, code := evalmd(t, env, append(second, "--force")...); code != 0 || !strings.Contains(stderr, "resuming run") {
		t.Fatalf("--force: exit %d\n%s", code, stderr)
	}
	if got, _ := os.ReadFile(mockOut); string(got) == string(winner) {
		t.Error("--force kept the other run's output")
	}
}
