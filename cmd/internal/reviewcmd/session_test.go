package reviewcmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/syncbuf"
	"github.com/evalmd/evalmd/review"
)

// made is one decision a session recorded.
type made struct {
	question string
	right    bool
	accept   bool
	reason   string
}

// fakeTerminal is a terminal whose keys are keys, and whose raw mode
// counts how often it was entered and left.
type fakeTerminal struct {
	out          bytes.Buffer
	raw, restore int
}

func (f *fakeTerminal) terminal(keys string) *Terminal {
	return &Terminal{
		In:   strings.NewReader(keys),
		Out:  &f.out,
		Size: func() (int, int, error) { return 80, 24, nil },
		Raw: func() (func() error, error) {
			f.raw++
			return func() error { f.restore++; return nil }, nil
		},
	}
}

// lastScreen is the last frame drawn before the session ended.
func lastScreen(out string) string {
	i := strings.LastIndex(out, "\x1b[2J")
	if i < 0 {
		return ""
	}
	s := out[i+len("\x1b[2J"):]
	if j := strings.Index(s, "\x1b[?25"); j >= 0 {
		s = s[:j]
	}
	return strings.ReplaceAll(s, "\r\n", "\n")
}

func TestSession(t *testing.T) {
	for _, tc := range []struct {
		name    string
		keys    string
		accept  bool
		fail    bool
		made    []made
		summary string
		err     string
		screen  string // in the last screen drawn
	}{
		{"right with a reason, then the input ends", "yParee is Paris\r", false, false,
			[]made{{"Q1", true, false, "Paree is Paris"}}, "1 recorded: 1 right, 0 wrong, 0 accepted; skipped 0; 2 left", "", "2/3"},
		{"each key", "y\rnnope\x7f\x7f\x7fo\rs", false, false,
			[]made{{"Q1", true, false, ""}, {"Q2", false, false, "no"}}, "2 recorded: 1 right, 1 wrong, 0 accepted; skipped 1", "", "Q2 / mock: wrong, recorded"},
		{"Esc takes the key back", "ywhy\x1bq", false, false,
			nil, "0 recorded: 0 right, 0 wrong, 0 accepted; skipped 0; 3 left", "", "right: taken back, nothing recorded"},
		{"back over a skip, decided", "s\x1b[Dn\rq", false, false,
			[]made{{"Q1", false, false, ""}}, "1 recorded: 0 right, 1 wrong, 0 accepted; skipped 0; 2 left", "", "2/3"},
		{"back at the first", "bq", false, false, nil, "0 recorded", "", "this is the first answer"},
		{"Ctrl-U clears the reason", "ygarbage\x15fine\r", false, false,
			[]made{{"Q1", true, false, "fine"}}, "1 recorded", "", ""},
		{"control characters are not typed", "ya\tb\x1b[Dc\r", false, false,
			[]made{{"Q1", true, false, "abc"}}, "1 recorded", "", ""},
		{"accept offered", "a\rq", true, false,
			[]made{{"Q1", true, true, ""}}, "1 recorded: 0 right, 0 wrong, 1 accepted", "", ""},
		{"accept not offered", "aq", false, false, nil, "0 recorded", "", "a (accept) is not offered here"},
		{"Ctrl-C", "y\r\x03", false, false,
			[]made{{"Q1", true, false, ""}}, "1 recorded: 1 right", "interrupted (each decision made was recorded)", ""},
		{"Ctrl-C in a reason", "yhalf\x03", false, false, nil, "0 recorded", "interrupted", ""},
		{"a failed record stays", "y\rq", false, true, nil, "0 recorded", "", "not recorded: disk full"},
		{"help, then any key", "?xq", false, false, nil, "0 recorded", "", "1/3"},
		{"a paste is no key", "\x1b[200~yes\rno\r\x1b[201~q", false, false, nil, "0 recorded", "", "a paste is no key"},
		{"a paste in a reason", "y\x1b[200~line one\r\nline two\x1b[201~\r", false, false,
			[]made{{"Q1", true, false, "line one  line two"}}, "1 recorded", "", ""},
		{"an unknown key", "zq", false, false, nil, "0 recorded", "", "? for help"},
		{"reasoning unfolded", "rq", false, false, nil, "0 recorded", "", "reasoning (r to hide):"},
		{"the last answer passed", "sss", false, false, nil, "0 recorded: 0 right, 0 wrong, 0 accepted; skipped 3\n", "", "3/3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var answers []*review.Answer
			for i := range 3 {
				a := answer(fmt.Sprintf("Question %d?", i+1), "T", "said")
				a.Key.Question = fmt.Sprintf("Q%d", i+1)
				a.Q.Reasoning = "thought\nhard"
				answers = append(answers, a)
			}
			var got []made
			decide := func(_ context.Context, a *review.Answer, d review.Decision, accept bool) (string, error) {
				if tc.fail {
					return "", errors.New("disk full")
				}
				if d.By != "ann" {
					t.Errorf("decided by %q, want ann", d.By)
				}
				got = append(got, made{a.Key.Question, d.Right, accept, d.Reason})
				return "", nil
			}
			var ft fakeTerminal
			err := interactive(context.Background(), ft.terminal(tc.keys), answers, "ann", tc.accept, decide)
			if fmt.Sprint(got) != fmt.Sprint(tc.made) {
				t.Errorf("recorded %v, want %v", got, tc.made)
			}
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
			out := ft.out.String()
			if !strings.Contains(out, "\x1b[?1049l"+tc.summary) {
				t.Errorf("the summary after the screen is not %q:\n%q", tc.summary, out[max(len(out)-200, 0):])
			}
			left := strings.LastIndex(out, "\x1b[?1049l")
			if ft.raw != 1 || ft.restore != 1 || left < 0 || !strings.HasSuffix(out[:left], "\x1b[?2004l\x1b[?25h\x1b[?7h") {
				t.Errorf("raw mode entered %d, left %d times; the screen not given back as it was", ft.raw, ft.restore)
			}
			if s := lastScreen(out); !strings.Contains(s, tc.screen) {
				t.Errorf("the last screen lacks %q:\n%s", tc.screen, s)
			}
		})
	}
}

// The context's end (a signal) ends the session as q does, the terminal
// restored.
func TestSessionCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var ft fakeTerminal
	term := ft.terminal("")
	r, w := io.Pipe()
	defer w.Close()
	term.In = r
	err := interactive(ctx, term, []*review.Answer{answer("Q?", "T", "said")}, "ann", false, nil)
	if !errors.Is(err, errInterrupted) || ft.restore != 1 || !strings.HasSuffix(ft.out.String(), "0 recorded: 0 right, 0 wrong, 0 accepted; skipped 0; 1 left\n") {
		t.Errorf("cancelled: %v, restored %d times, output ending %q", err, ft.restore, ft.out.String()[max(ft.out.Len()-80, 0):])
	}
}

// A screen that changes size is drawn again at once, at its new size.
func TestSessionResize(t *testing.T) {
	var out syncbuf.Buffer
	var width atomic.Int32
	width.Store(80)
	resized := make(chan os.Signal, 1)
	stopped := false
	keys, typed := io.Pipe()
	term := &Terminal{In: keys, Out: &out,
		Size:    func() (int, int, error) { return int(width.Load()), 24, nil },
		Resizes: func() (<-chan os.Signal, func()) { return resized, func() { stopped = true } },
	}
	done := make(chan error, 1)
	go func() {
		done <- interactive(context.Background(), term, []*review.Answer{answer("Q?", "T", "said")}, "ann", false, nil)
	}()
	until := func(want string) {
		t.Helper()
		for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), want); time.Sleep(5 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("the screen never showed %q:\n%q", want, out.String())
			}
		}
	}
	until("y right  n wrong  s skip  b back  q quit  ? help")
	width.Store(40)
	resized <- os.Interrupt // any signal: the session reads none of it
	until("y right  n wrong  s skip  b back  q qui…")
	typed.Write([]byte("q"))
	if err := <-done; err != nil || !stopped {
		t.Errorf("after q: %v; resizes stopped: %v", err, stopped)
	}
}
