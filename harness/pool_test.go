package harness

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

// writeSheets writes n sheets of q questions each into dir; question j of
// sheet i asks "ask S<i> Q<j>" and its answer is "A<i>-<j>".
func writeSheets(t testing.TB, dir string, n, q int) []string {
	t.Helper()
	var paths []string
	for i := 1; i <= n; i++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Sheet %d\n", i)
		for j := 1; j <= q; j++ {
			fmt.Fprintf(&b, "## Q%d\n#### question\nask S%d Q%d\n#### answer\nA%d-%d\n", j, i, j, i, j)
		}
		p := filepath.Join(dir, fmt.Sprintf("input-s%02d.md", i))
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// answerOf answers a call with its question's ground truth ("ask S1 Q2"
// -> "A1-2"), so a question answered from the journal or the server
// grades the same.
func answerOf(c fakeserver.Call) string {
	var s, q int
	fmt.Sscanf(strings.TrimSpace(c.LastUserText()), "ask S%d Q%d", &s, &q)
	return fmt.Sprintf("A%d-%d", s, q)
}

// serverConfig is a run of the sheets on the fake server's model.
func serverConfig(t testing.TB, sheets []string, out, url string, conc int) Config {
	return Config{
		Sheets: sheets, Models: []string{"openai-api/fake/m"}, OutDir: out, RunIDLen: 4, Key: testKey(t),
		Model:    model.Options{BaseURL: url, APIKey: "test-key"},
		Runner:   runner.Options{Concurrency: conc, BaseBackoff: time.Millisecond, MaxBackoff: 5 * time.Millisecond},
		NewModel: providers.Registry().New,
	}
}

// waitForFiles waits, for at most ten seconds, until each pattern
// matches a file.
func waitForFiles(t *testing.T, patterns ...string) {
	deadline := time.Now().Add(10 * time.Second)
	for _, p := range patterns {
		for {
			if m, _ := filepath.Glob(p); len(m) > 0 {
				break
			}
			if time.Now().After(deadline) {
				t.Errorf("no file matches %s after 10 s", p)
				return
			}
			time.Sleep(time.Millisecond)
		}
	}
}

// outputs reads the output files in out, by sheet name.
func outputs(t *testing.T, out string) map[string]*result.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	got := map[string]*result.File{}
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if got[f.Sheet.Name] != nil {
			t.Errorf("sheet %q written twice: %s", f.Sheet.Name, p)
		}
		got[f.Sheet.Name] = f
	}
	return got
}

// The pool spans sheets: 20 sheets of 5 questions at -c 20 keep more than
// one sheet's worth of requests in flight at the server (before, a sheet
// at a time: at most 5).
func TestPoolAcrossSheets(t *testing.T) {
	dir := t.TempDir()
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{Latency: 100 * time.Millisecond, MaxRequests: 200,
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: answerOf(c)} }})
	cfg := serverConfig(t, writeSheets(t, dir, 20, 5), filepath.Join(dir, "out"), srv.URL, 20)
	sum, err := Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.MaxInFlight(); n <= 5 {
		t.Errorf("at most %d requests in flight at -c 20 over 20 sheets; want more than one sheet's 5", n)
	}
	if n := srv.MaxInFlight(); n > 20 {
		t.Errorf("%d requests in flight at -c 20", n)
	}
	if srv.Count() != 100 || len(sum.Outputs) != 20 {
		t.Fatalf("%d requests, %d outputs", srv.Count(), len(sum.Outputs))
	}
	for name, f := range outputs(t, cfg.OutDir) {
		for _, q := range f.Questions {
			if q.Grade == nil || !*q.Grade {
				t.Errorf("%s %s: not answered right", name, q.Name)
			}
		}
	}
}

// Models run at once, each with its own limit when on their own servers;
// two models behind one server share its -c unless SeparateLimits.
func TestModelsShareAServer(t *testing.T) {
	for _, separate := range []bool{false, true} {
		dir := t.TempDir()
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{Latency: 100 * time.Millisecond, MaxRequests: 100})
		cfg := serverConfig(t, writeSheets(t, dir, 4, 5), filepath.Join(dir, "out"), srv.URL, 4)
		cfg.Models = []string{"openai-api/fake/a", "openai-api/fake/b"}
		cfg.Runner.SeparateLimits = separate
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatal(err)
		}
		limit := 4
		if separate {
			limit = 8
		}
		if n := srv.MaxInFlight(); n > limit || separate && n <= 4 {
			t.Errorf("separate %v: %d in flight, limit %d", separate, n, limit)
		}
		if srv.Count() != 40 {
			t.Errorf("%d requests for 2 models x 20 questions", srv.Count())
		}
	}
}

// Ctrl-C in sheet 2 of 3: the rerun asks nothing sheet 1 has (nor what
// sheet 2 had), and writes one output per sheet, all with the first run's
// run id.
func TestResumeAcrossSheets(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	asked := map[string]int{}
	out := filepath.Join(dir, "out")
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 100,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			q := strings.TrimSpace(c.LastUserText())
			mu.Lock()
			asked[q]++
			mu.Unlock()
			if q == "ask S2 Q3" {
				// Ctrl-C while sheet 2 is being asked, once sheet 1's
				// output is written: a Ctrl-C while it is still being
				// graded leaves it to the rerun (its answers are in the
				// journal), which is not what this test is about.
				waitForFiles(t, filepath.Join(out, "output-s01-*.json"), filepath.Join(out, "output-s01-*.md"))
				cancel()
			}
			return fakeserver.Reply{Text: answerOf(c)}
		}})
	cfg := serverConfig(t, writeSheets(t, dir, 3, 5), out, srv.URL, 1)
	sum, err := Run(ctx, cfg)
	if err == nil || !strings.Contains(err.Error(), "rerun the same command") {
		t.Fatalf("interrupted run: err %v", err)
	}
	if len(sum.Outputs) != 1 {
		t.Errorf("outputs after the interrupt: %v, want sheet 1's", sum.Outputs)
	}
	first := srv.Count()

	sum, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	for q, n := range asked {
		// Only a question in flight at the interrupt may be asked twice.
		if n > 1 && q != "ask S2 Q3" {
			t.Errorf("%q asked %d times", q, n)
		}
		if strings.HasPrefix(q, "ask S1 ") && n != 1 {
			t.Errorf("sheet 1's %q asked %d times", q, n)
		}
	}
	if len(asked) != 15 || srv.Count() > 16 {
		t.Errorf("%d questions asked in %d requests (%d before the interrupt)", len(asked), srv.Count(), first)
	}
	got := outputs(t, cfg.OutDir)
	if len(got) != 3 || len(sum.Outputs) != 3 {
		t.Fatalf("%d outputs (%v)", len(got), sum.Outputs)
	}
	runID := got["Sheet 1"].Sheet.RunID
	for name, f := range got {
		if f.Sheet.RunID != runID {
			t.Errorf("%s: run id %q, sheet 1's %q", name, f.Sheet.RunID, runID)
		}
		for _, q := range f.Questions {
			if q.Grade == nil || !*q.Grade {
				t.Errorf("%s %s: not answered right", name, q.Name)
			}
		}
	}
	if left, _ := filepath.Glob(filepath.Join(cfg.OutDir, ".evalmd-run-*")); len(left) != 0 {
		t.Errorf("journal left behind after a complete run: %v", left)
	}
}

// Failed questions stay resumable: the outputs are written with the
// errors, the journal stays, and the rerun asks only the failed questions,
// into the same files.
func TestFailedQuestionsResume(t *testing.T) {
	dir := t.TempDir()
	var mu sync.Mutex
	down := true
	asked := map[string]int{}
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 100,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			mu.Lock()
			defer mu.Unlock()
			asked[strings.TrimSpace(c.LastUserText())]++
			if down && strings.HasSuffix(strings.TrimSpace(c.LastUserText()), " Q2") {
				return fakeserver.Reply{Status: 400, Message: "bad luck"}
			}
			return fakeserver.Reply{Text: answerOf(c)}
		}})
	cfg := serverConfig(t, writeSheets(t, dir, 2, 3), filepath.Join(dir, "out"), srv.URL, 3)
	var stderr strings.Builder
	cfg.Stderr = &stderr
	sum, err := Run(context.Background(), cfg)
	var fe *FailedError
	if !errors.As(err, &fe) || fe.Failed != 2 || !strings.Contains(err.Error(), "bad luck") {
		t.Fatalf("err %v, want 2 failed questions", err)
	}
	// The console says why, per sheet, not only the JSON.
	if !strings.Contains(stderr.String(), "1 errors (first: ") || !strings.Contains(stderr.String(), "bad luck") {
		t.Errorf("console does not say why questions failed:\n%s", stderr.String())
	}
	if len(sum.Outputs) != 2 {
		t.Fatalf("outputs %v", sum.Outputs)
	}
	firstOutputs := sum.Outputs
	mu.Lock()
	down = false
	mu.Unlock()
	before := srv.Count()
	sum, err = Run(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if n := srv.Count() - before; n != 2 {
		t.Errorf("the rerun sent %d requests, want the 2 failed questions only", n)
	}
	if fmt.Sprint(sum.Outputs) != fmt.Sprint(firstOutputs) {
		t.Errorf("rerun wrote %v, first run %v", sum.Outputs, firstOutputs)
	}
	got := outputs(t, cfg.OutDir)
	if len(got) != 2 {
		t.Fatalf("%d outputs", len(got))
	}
	for name, f := range got {
		for _, q := range f.Questions {
			if q.Error != nil || q.Grade == nil || !*q.Grade {
				t.Errorf("%s %s: error %v grade %v", name, q.Name, q.Error, q.Grade)
			}
		}
	}
}

// A server that is not there stops the run after 3 refused connections
// in a row (it never answered), saying so in one line, instead of
// retrying every question.
func TestRefusedConnectionsStop(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	url := "http://" + l.Addr().String() + "/v1"
	l.Close() // nothing listens there now: connections are refused
	dir := t.TempDir()
	cfg := serverConfig(t, writeSheets(t, dir, 3, 10), filepath.Join(dir, "out"), url, 4)
	_, err = Run(context.Background(), cfg)
	if err == nil || !strings.Contains(err.Error(), "refused 3 connections in a row, and none since the run began") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v", err)
	}
	if _, err := os.Stat(filepath.Join(cfg.OutDir, "output-s01-openai-api_fake_m-")); err == nil {
		t.Error("an output was written")
	}
}
