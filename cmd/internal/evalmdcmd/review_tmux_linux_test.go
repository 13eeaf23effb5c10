package evalmdcmd

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/verdict"
)

// paneWait bounds each wait for the screen to show something.
const paneWait = 10 * time.Second

// tmuxPane is one pane of a tmux server of the test's own.
type tmuxPane struct {
	t      *testing.T
	socket string
}

// startTmux starts a tmux server of the test's own (its socket in a
// folder of the test's, no config read) running script in a 120x40
// window; the server is killed when the test ends.
func startTmux(t *testing.T, dir, script string) *tmuxPane {
	t.Helper()
	if _, err := exec.LookPath("tmux"); err != nil {
		shared.Missing(t, "tmux not found (apt-get install tmux)")
	}
	p := &tmuxPane{t: t, socket: filepath.Join(t.TempDir(), "tmux")}
	t.Cleanup(func() { exec.Command("tmux", "-S", p.socket, "kill-server").Run() })
	p.run("-f", "/dev/null", "new-session", "-d", "-x", "120", "-y", "40", "-s", "review", "-c", dir, "sh", "-c", script)
	return p
}

func (p *tmuxPane) run(args ...string) string {
	p.t.Helper()
	cmd := exec.Command("tmux", append([]string{"-S", p.socket}, args...)...)
	cmd.Env = append(os.Environ(), "TMUX=")
	out, err := cmd.CombinedOutput()
	if err != nil {
		p.t.Fatalf("tmux %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// child is the process the pane's shell runs now: evalmd.
func (p *tmuxPane) child() int {
	p.t.Helper()
	sh := strings.TrimSpace(p.run("display-message", "-p", "-t", "review", "#{pane_pid}"))
	data, err := os.ReadFile(filepath.Join("/proc", sh, "task", sh, "children"))
	if err != nil {
		p.t.Fatal(err)
	}
	pids := strings.Fields(string(data))
	if len(pids) != 1 {
		p.t.Fatalf("the pane's shell (%s) runs %q; want one process", sh, pids)
	}
	pid, err := strconv.Atoi(pids[0])
	if err != nil {
		p.t.Fatal(err)
	}
	return pid
}

// keys types keys as tmux names them (y, Enter, C-c); text types text.
func (p *tmuxPane) keys(keys ...string) {
	p.t.Helper()
	p.run(append([]string{"send-keys", "-t", "review"}, keys...)...)
}

func (p *tmuxPane) text(s string) {
	p.t.Helper()
	p.run("send-keys", "-t", "review", "-l", s)
}

// wait is the screen once it shows every one of want.
func (p *tmuxPane) wait(want ...string) string {
	p.t.Helper()
	return p.until(func(screen string) string {
		for _, w := range want {
			if !strings.Contains(screen, w) {
				return fmt.Sprintf("%q", w)
			}
		}
		return ""
	})
}

// until is the screen once lacks finds nothing lacking in it, polled
// until paneWait has passed.
func (p *tmuxPane) until(lacks func(screen string) string) string {
	p.t.Helper()
	deadline := time.Now().Add(paneWait)
	for {
		screen := p.run("capture-pane", "-p", "-t", "review")
		missing := lacks(screen)
		if missing == "" {
			return screen
		}
		if time.Now().After(deadline) {
			p.t.Fatalf("after %v the screen lacks %s:\n%s", paneWait, missing, screen)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// A person reviews in a terminal: tmux runs evalmd review on a folder
// made by init and run, the test types as a person would (n, y, b, s, ?,
// a: each answer decided one way) and reads the screen, then the
// verdicts file, the outputs and the sheet; after the last answer, after
// Ctrl-C and after a kill the terminal is as it was (line editing, echo).
func TestReviewInTmux(t *testing.T) {
	if _, err := exec.LookPath("tmux"); err != nil {
		shared.Missing(t, "tmux not found (apt-get install tmux)")
	}
	dir, review := reviewFolder(t)
	// Each review is followed by its exit status and the terminal's
	// modes, then waits for Enter.
	modes := `echo "exit $?"; stty -a | tr ' ;' '\n\n' | grep -x -e icanon -e -icanon -e echo -e -echo | tr '\n' ' '; echo; read line`
	pane := startTmux(t, dir, strings.Repeat(review+"; "+modes+"; ", 3))
	pane.reviewAll()
	pane.wait("3 recorded: 1 right, 1 wrong, 1 accepted; skipped 0", "exit 0\nicanon echo")
	checkReviewed(t, dir)

	// The second review: Ctrl-C ends it, the terminal given back.
	pane.keys("Enter")
	pane.wait("1/3  First-Steps / Boiling-Point / mock", "verdict: wrong by ann")
	pane.keys("C-c")
	pane.wait("0 recorded", "review: interrupted (each decision made was recorded)", "exit 1\nicanon echo")

	// The third: killed (SIGTERM), the terminal given back too.
	pane.keys("Enter")
	pane.wait("1/3  First-Steps / Boiling-Point / mock")
	if err := syscall.Kill(pane.child(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	pane.until(func(screen string) string {
		if strings.Count(screen, "exit 1\nicanon echo") != 2 {
			return "a second exit 1 with the terminal as it was (icanon echo)"
		}
		return ""
	})
	checkVerdicts(t, filepath.Join(dir, "results"))
}

// reviewFolder makes a folder by init and run (mock, every answer
// wrong) and returns it with the shell command that reviews its results
// as ann, with an evalmd of its own (the test binary run again).
func reviewFolder(t *testing.T) (dir, review string) {
	t.Helper()
	env := testEnv(t.TempDir(), nil)
	dir = filepath.Join(t.TempDir(), "evals")
	if _, stderr, code := evalmd(t, env, "init", dir); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, stderr)
	}
	if _, stderr, code := evalmd(t, env, "run", "-d", dir, "-m", "mock", "-o", filepath.Join(dir, "results"), "--mock-reply", "Paree, surely"); code != 0 {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	bin := t.TempDir()
	writeBin(t, bin)
	return dir, fmt.Sprintf("env HOME=%q XDG_CONFIG_HOME=%q EVALMD_REVIEWER=ann %q review -i results", t.TempDir(), testConfigHome, filepath.Join(bin, "evalmd"))
}

// reviewAll decides the three answers as a person would, reading each
// screen: wrong with a pasted reason, right, back and skip, help, accept.
func (p *tmuxPane) reviewAll() {
	p.t.Helper()
	p.wait("evalmd review  1/3  First-Steps / Boiling-Point / mock", "truth: 100", "answer: Paree, surely", "grader: wrong (numeric)", "verdict: none yet")
	// A window made narrower is drawn again to fit, without a key.
	p.run("resize-window", "-t", "review", "-x", "40", "-y", "40")
	p.wait("y right  n wrong  a accept  s skip  b b…")
	p.run("resize-window", "-t", "review", "-x", "120", "-y", "40")
	p.wait("y right  n wrong  a accept  s skip  b back  q quit  ? help")
	p.keys("n")
	p.wait("reason it is wrong (Enter: none, Esc: undo):")
	// A line end pasted is a space, not Enter.
	p.run("set-buffer", "no\nnumber")
	p.run("paste-buffer", "-p", "-t", "review")
	p.wait("reason it is wrong (Enter: none, Esc: undo): no number")
	p.keys("Enter")
	p.wait("2/3  First-Steps / Capital-France / mock", "question:", "What is the capital of France?", "truth: Paris",
		"First-Steps / Boiling-Point / mock: wrong, recorded")
	p.keys("y")
	p.text("Paree is Paris")
	p.keys("Enter")
	p.wait("3/3  First-Steps / Planet-Count / mock", "truth: B")
	p.keys("b")
	p.wait("2/3", "verdict: right by ann, ", ": Paree is Paris")
	p.keys("s")
	p.wait("3/3")
	p.keys("?")
	p.wait("this help; any key goes back")
	p.keys("x")
	p.wait("3/3", "y right  n wrong  a accept")
	p.keys("a")
	p.text("eight, in other words")
	p.keys("Enter")
}

// checkReviewed checks what reviewAll decided: in the verdicts file, the
// output's grades and the sheet's accepted answers.
func checkReviewed(t *testing.T, dir string) {
	t.Helper()
	results := filepath.Join(dir, "results")
	checkVerdicts(t, results)
	if g, r := gradeOf(t, results, "Capital-France"); g == nil || !*g || r == nil || r.By != "ann" {
		t.Errorf("Capital-France: grade %v, review %+v; want ann's right", g, r)
	}
	if g, r := gradeOf(t, results, "Boiling-Point"); g == nil || *g || r == nil || r.Reason != "no number" {
		t.Errorf("Boiling-Point: grade %v, review %+v; want ann's wrong", g, r)
	}
	if g, r := gradeOf(t, results, "Planet-Count"); g == nil || !*g || r == nil {
		t.Errorf("Planet-Count: grade %v, review %+v; want ann's right", g, r)
	}
	if data, err := os.ReadFile(filepath.Join(dir, "input-first-steps.md")); err != nil || !strings.Contains(string(data), "B<EVAL-ENDCHAR>\n- accept: Paree, surely\n") {
		t.Errorf("the sheet does not accept the answer (%v):\n%s", err, data)
	}
}

// checkVerdicts checks the verdicts file holds reviewAll's three.
func checkVerdicts(t *testing.T, results string) {
	t.Helper()
	set, bad, err := verdict.Read(results)
	if err != nil || len(bad) > 0 {
		t.Fatal(err, bad)
	}
	var got []string
	for _, v := range set.All() {
		got = append(got, fmt.Sprintf("%s %v %s %q", v.Question, v.Right, v.By, v.Reason))
	}
	if want := `Boiling-Point false ann "no number"; Capital-France true ann "Paree is Paris"; Planet-Count true ann "eight, in other words"`; strings.Join(got, "; ") != want {
		t.Errorf("verdicts:\n%s\nwant\n%s", strings.Join(got, "\n"), want)
	}
}
