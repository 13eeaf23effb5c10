package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// Every request answered 401 or 402 (a key refused, an account out of
// credit): the first such answer stops sending. The requests already in
// flight may end, but the server receives at most -c requests (the
// limit's ceiling with -c auto: it starts at 10), none retried, however
// many questions the sheets hold.
func TestFatalAnswerStopsAtOnce(t *testing.T) {
	dir := t.TempDir()
	for s := 1; s <= 3; s++ {
		var b strings.Builder
		fmt.Fprintf(&b, "# Sheet %d\n", s)
		for q := 1; q <= 40; q++ {
			fmt.Fprintf(&b, "## Q%d\n#### question\nask %d %d\n#### answer\nA\n", q, s, q)
		}
		os.WriteFile(filepath.Join(dir, fmt.Sprintf("input-s%d.md", s)), []byte(b.String()), 0o644)
	}
	for _, tc := range []struct {
		status    int
		anthropic bool
		args      []string
		most      int
	}{
		{401, false, []string{"-m", "openai-api/local/tiny", "-c", "8"}, 8},
		{402, false, []string{"-m", "openai-api/local/tiny,openai-api/local/small", "-c", "4"}, 4},
		{401, false, []string{"-m", "openai-api/local/tiny", "-c", "auto"}, 10},
		{402, true, []string{"-m", "anthropic/claude-fake", "-c", "8"}, 8},
	} {
		t.Run(fmt.Sprint(tc.status, tc.args), func(t *testing.T) {
			t.Setenv("ANTHROPIC_API_KEY", "sk-ant-test")
			t.Setenv("LOCAL_API_KEY", "test")
			opt := fakeserver.Options{MaxRequests: 500, Latency: 20 * time.Millisecond,
				Reply: func(fakeserver.Call) fakeserver.Reply {
					return fakeserver.Reply{Status: tc.status, Message: "refused"}
				}}
			var srv *fakeserver.Server
			if tc.anthropic {
				srv = fakeserver.NewAnthropic(t, opt)
			} else {
				srv = fakeserver.NewOpenAI(t, opt)
			}
			var out bytes.Buffer
			err := run(context.Background(), &out, &out, append([]string{"-d", dir, "-o", t.TempDir(), "--base-url", srv.URL}, tc.args...))
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("HTTP %d", tc.status)) || !strings.Contains(err.Error(), "stopped") {
				t.Errorf("error %v, want the run stopped by the %d\n%s", err, tc.status, out.String())
			}
			if n := srv.Count(); n > tc.most {
				t.Errorf("the server received %d requests, want at most %d (the first refusal stops sending)", n, tc.most)
			}
		})
	}
}
