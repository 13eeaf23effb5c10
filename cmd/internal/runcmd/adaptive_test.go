package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// run -c auto against a server of 4 slots that refuses the rest with a
// 429: every question is answered, the output records the limit's
// history from its start at 10, and a decrease is said on stderr.
func TestConcurrencyAuto(t *testing.T) {
	// The first four requests are held until one more has been refused,
	// so the run meets the limit however the machine schedules it.
	var srv *fakeserver.Server
	srv = fakeserver.NewOpenAI(t, fakeserver.Options{Slots: 4, MaxRequests: 500,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			for deadline := time.Now().Add(30 * time.Second); c.N <= 4 && srv.Busy() == 0 && time.Now().Before(deadline); {
				time.Sleep(5 * time.Millisecond)
			}
			return fakeserver.Reply{Text: "B"}
		}})
	var sheet strings.Builder
	sheet.WriteString("# S\n")
	for i := range 30 {
		fmt.Fprintf(&sheet, "## Q%d\n#### question\nq%d\n#### answer\nB\n", i, i)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", writeSheet(t, sheet.String()), "-o", out,
		"-m", "openai-api/x/m", "--base-url", srv.URL, "-c", "auto", "--retries", "30"})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		if q.Grade == nil || !*q.Grade {
			t.Errorf("%s: %v", q.Name, q.Error)
		}
	}
	h := f.Sheet.ConnectionLimits
	if len(h) == 0 || h[0].Limit != 10 || h[0].Reason != "start" {
		t.Fatalf("connection_limit_history %+v, want it to start at 10", h)
	}
	if len(h) < 2 || h[1].Limit != 8 || srv.Busy() == 0 ||
		!strings.Contains(stderr.String(), "openai-api/x/m: at most 8 requests in flight from now (was 10): HTTP 429") {
		t.Errorf("%d refused; history %+v; stderr:\n%s", srv.Busy(), h, stderr.String())
	}
}

// A Retry-After date far in the future is said as such, not as the
// longest Duration ("2562047h47m16.85s"), with the wait actually made.
func TestMaxWaitFarFutureDate(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if c.N == 1 {
			return fakeserver.Reply{Status: 429, Message: "slow down", RetryAfter: "Fri, 31 Dec 9999 23:59:59 GMT"}
		}
		return fakeserver.Reply{Text: "B"}
	}})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", writeSheet(t, "# S\n## Q1\n#### question\na\n#### answer\nB\n"),
		"-o", t.TempDir(), "-m", "openai-api/x/m", "--base-url", srv.URL, "--max-wait", "1s"})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `asked for a pause of more than a year (Retry-After) at question "Q1"; its requests wait 1s (--max-wait), then go on`) {
		t.Errorf("stderr does not say the wait:\n%s", stderr.String())
	}
}

// run --max-wait caps a server's Retry-After: 99999 seconds (27 hours)
// becomes a pause of 1 s, said on stderr with what asked for it.
func TestMaxWaitFlag(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if c.N == 1 {
			return fakeserver.Reply{Status: 429, Message: "slow down", RetryAfter: "99999"}
		}
		return fakeserver.Reply{Text: "B"}
	}})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", writeSheet(t, "# S\n## Q1\n#### question\na\n#### answer\nB\n"),
		"-o", t.TempDir(), "-m", "openai-api/x/m", "--base-url", srv.URL, "--max-wait", "1s"})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), `asked for a pause of 27h46m39s (Retry-After) at question "Q1"; its requests wait 1s (--max-wait), then go on`) {
		t.Errorf("stderr does not say the wait:\n%s", stderr.String())
	}
}

// run --max-reply caps a reply's body: a larger one is the question's
// error, named on stderr, and the run exits 3; the others are answered.
func TestMaxReplyFlag(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: func(c fakeserver.Call) fakeserver.Reply {
		if strings.Contains(c.LastUserText(), "big") {
			return fakeserver.Reply{Text: "B", Pad: 4 << 20}
		}
		return fakeserver.Reply{Text: "B"}
	}})
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", writeSheet(t, "# S\n## Q1\n#### question\nbig\n#### answer\nB\n## Q2\n#### question\nsmall\n#### answer\nB\n"),
		"-o", t.TempDir(), "-m", "openai-api/x/m", "--base-url", srv.URL, "--max-reply", "1M"})
	if cli.ExitCode(err) != 3 || !strings.Contains(stderr.String(), `question "Q1": x: reply larger than 1 MiB, not read further (--max-reply raises the cap)`) ||
		!strings.Contains(stderr.String(), "1/2 correct") {
		t.Errorf("exit %d (%v), stderr:\n%s", cli.ExitCode(err), err, stderr.String())
	}
	if n := srv.Count(); n != 2 {
		t.Errorf("%d calls, want 2: a reply too large is not asked again", n)
	}
}
