package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// run's command line: -h prints the synopsis (exit 0); a bad flag or a bad
// value is reported once with the usage line (exit 2); out-of-range values
// are refused with a message instead of replaced silently.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"-h"}, 0, "usage: run -f SHEET | -d DIR -m MODEL[,MODEL...]", ""},
		{[]string{"--help"}, 0, "  -retries int\n", ""},
		{[]string{"-bogus"}, 2, "", "run: flag provided but not defined: -bogus\nusage: run -f SHEET"},
		{[]string{"-f", "x.md", "-u", "-1"}, 2, "", "run: -u -1: the run id has 0 to 32 hex digits"},
		{[]string{"-f", "x.md", "-c", "0"}, 2, "", "run: -c 0: at least one request must be in flight"},
		{[]string{"-f", "x.md", "-c", "lots"}, 2, "", "run: -c \"lots\": give a number of requests in flight, or auto"},
		{[]string{"-f", "x.md", "--max-wait", "0s"}, 2, "", "run: --max-wait 0s: give a positive duration"},
		{[]string{"-f", "x.md", "--max-tokens", "-5"}, 2, "", "run: invalid value \"-5\" for flag -max-tokens: is not a whole number >= 0"},
		{[]string{"-f", "x.md", "--temperature", "NaN"}, 2, "", "run: invalid value \"NaN\" for flag -temperature: is not a number"},
		{[]string{"-f", "x.md", "--temperature", "-1"}, 2, "", "run: invalid value \"-1\" for flag -temperature: is not a number >= 0"},
		{[]string{"-f", "x.md", "--retries", "-1"}, 2, "", "run: --retries -1: give 0 (no retries) or more"},
		{[]string{"-f", "x.md", "--timeout", "0s"}, 2, "", "run: --timeout 0s"},
		{[]string{"-f", "x.md", "--log-format", "yaml"}, 2, "", "run: --log-format: log format \"yaml\" is not eval or json"},
		{[]string{"-f", "x.md", "extra"}, 2, "", "run: unexpected argument \"extra\""},
		{nil, 2, "", "run: give one of -f SHEET or -d DIR"},
		{[]string{"-f", "missing.md", "-y"}, 1, "", "missing.md"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), &stdout, &stderr, tc.args)
		code := cli.Report(&stderr, "run", err)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("run %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
		if first := strings.SplitN(tc.stderr, "\n", 2)[0]; first != "" && strings.Count(stderr.String(), first) != 1 {
			t.Errorf("run %q: %q printed %d times", tc.args, first, strings.Count(stderr.String(), first))
		}
	}
}

// --retries N counts the retries after the first attempt: a request that
// always fails is sent N+1 times.
func TestRetriesCountAfterFirstAttempt(t *testing.T) {
	dir := t.TempDir()
	sheetPath := filepath.Join(dir, "input-one.md")
	if err := os.WriteFile(sheetPath, []byte("## Q\n#### question\nx?\n#### answer\ny\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		retries string
		calls   int
	}{{"0", 1}, {"2", 3}} {
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{
			Reply:       func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Status: 500, RetryAfter: "0"} },
			MaxRequests: 10,
		})
		var stdout, stderr bytes.Buffer
		_ = run(context.Background(), &stdout, &stderr, []string{"-f", sheetPath, "-m", "openai-api/local/tiny",
			"--base-url", srv.URL, "-o", t.TempDir(), "--retries", tc.retries, "-c", "1"})
		if n := srv.Count(); n != tc.calls {
			t.Errorf("--retries %s: %d requests, want %d\n%s", tc.retries, n, tc.calls, stderr.String())
		}
	}
}
