package evalmdcmd

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/browsertest"
	"github.com/evalmd/evalmd/internal/testkit/syncbuf"
)

// background runs evalmd with args until ctx ends; wait returns what it
// returned.
func background(ctx context.Context, env Env, log io.Writer, args ...string) (wait func() error) {
	done := make(chan error, 1)
	go func() { done <- cli.Execute(ctx, io.Discard, log, Command(env), args) }()
	return func() error {
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			return context.DeadlineExceeded
		}
	}
}

// waitFor waits (bounded) until log matches re and returns the match.
func waitFor(t *testing.T, log *syncbuf.Buffer, re *regexp.Regexp) []string {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(log.String()); m != nil {
			return m
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log does not match %s:\n%s", re, log.String())
		}
	}
}

// The edit loop in a browser: evalmd run --watch with the mock model and
// evalmd agg --serve on 127.0.0.1; the page is opened once, a sheet is
// saved with a new question, and the open page shows it without being
// told to reload, on the view it was on, counting the sheet as it is now.
func TestWatchServeBrowser(t *testing.T) {
	bin := browsertest.Find(t)
	dir := t.TempDir()
	sheets, out := filepath.Join(dir, "sheets"), filepath.Join(dir, "out")
	os.MkdirAll(sheets, 0o755)
	sheet := filepath.Join(sheets, "input-demo.md")
	const q1 = "# Demo\n## Q-sum\n#### question\nWhat is 2+2?\n#### answer\n4\n"
	os.WriteFile(sheet, []byte(q1), 0o644)
	env := testEnv("", nil)
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	var runLog, serveLog syncbuf.Buffer
	runDone := background(ctx, env, &runLog, "run", "--watch", "-d", sheets, "-m", "mock", "-o", out)
	waitFor(t, &runLog, regexp.MustCompile(`watching 1 sheet for changes`))
	serveDone := background(ctx, env, &serveLog, "agg", "-i", out, "--serve", "127.0.0.1:0", "--latest-version")
	url := waitFor(t, &serveLog, regexp.MustCompile(`at (http://127\.0\.0\.1:\d+/) `))[1]

	page := browsertest.Open(t, bin, url+"#tab=questions")
	// questions lists the question list's keys once the page's script
	// has drawn it.
	const listed = `document.body.dataset.ready ? Array.from(document.querySelectorAll('#q-list li')).map(function (li) { return li.dataset.key; }) : null`
	waitList := func(want []string) {
		t.Helper()
		var got []string
		var err error
		for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
			got = nil
			if err = page.Eval(listed, &got); err == nil && slices.Equal(got, want) {
				return
			}
		}
		t.Fatalf("the page lists %q (%v), want %q\nrun:\n%s\nserve:\n%s", got, err, want, runLog.String(), serveLog.String())
	}
	waitList([]string{"Demo/Q-sum"})

	os.WriteFile(sheet, []byte(q1+"## Q-product\n#### question\nWhat is 2*3?\n#### answer\n6\n"), 0o644)
	waitList([]string{"Demo/Q-sum", "Demo/Q-product"})
	var tab string
	if err := page.Eval(`location.hash`, &tab); err != nil || tab != "#tab=questions" {
		t.Errorf("after the reload the page is on %q (%v), want the questions", tab, err)
	}
	// The rerun asked the new question only, and the page counts the
	// sheet as it is now (--latest-version), not both of its versions.
	if !strings.Contains(runLog.String(), "1 asked, 1 reused") {
		t.Errorf("the rerun does not reuse the unchanged answer:\n%s", runLog.String())
	}
	var counts string
	if err := page.Eval(`document.querySelector('.counts').textContent`, &counts); err != nil || counts != "1 output file, 1 run, 1 sheet, 2 questions" {
		t.Errorf("the page counts %q (%v), want the newest version's run alone", counts, err)
	}

	cancel()
	if err := runDone(); err != nil {
		t.Errorf("run --watch: %v", err)
	}
	if err := serveDone(); err != nil {
		t.Errorf("agg --serve: %v", err)
	}
}
