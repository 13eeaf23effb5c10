package reviewcmd

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"unicode"

	"github.com/evalmd/evalmd/internal/visible"
	"github.com/evalmd/evalmd/review"
)

// kind is a decision made on an answer.
type kind int

const (
	right kind = iota + 1
	wrong
	accepted
)

func (k kind) String() string {
	return [...]string{right: "right", wrong: "wrong", accepted: "accepted"}[k]
}

// decideFunc records a person's decision on an answer; accept also adds
// the answer to its question's accepted answers. What it returns is said
// after "recorded".
type decideFunc func(ctx context.Context, a *review.Answer, d review.Decision, accept bool) (string, error)

// session is one person's review of a queue on a terminal, one answer at
// a time.
type session struct {
	t       *Terminal
	keys    <-chan key
	resized <-chan os.Signal
	answers []*review.Answer
	decide  decideFunc
	by      string
	accept  bool // the a key is offered
	v       view
	i       int
	made    map[int]kind // the decisions made here, by answer
	skipped map[int]bool
}

// errQuit ends a session at the person's word.
var errQuit = errors.New("quit")

// maxReason bounds a reason typed, in characters.
const maxReason = 2000

// interactive walks answers on t: each decision is recorded as it is
// made, so quitting or being killed loses none. The terminal is restored
// on every way out, and the summary printed.
func interactive(ctx context.Context, t *Terminal, answers []*review.Answer, by string, accept bool, decide decideFunc) error {
	restore := func() error { return nil }
	if t.Raw != nil {
		r, err := t.Raw()
		if err != nil {
			return fmt.Errorf("the terminal: %w", err)
		}
		restore = r
	}
	done := make(chan struct{})
	defer close(done)
	s := &session{t: t, keys: readKeys(t.In, done), answers: answers, decide: decide, by: by, accept: accept,
		made: map[int]kind{}, skipped: map[int]bool{}}
	if t.Resizes != nil {
		resized, stop := t.Resizes()
		defer stop()
		s.resized = resized
	}
	// The alternate screen keeps the shell's screen; lines too long for
	// the screen are clipped, not wrapped, so the layout holds.
	// Bracketed paste (2004) marks a paste, so that it is text and no key.
	io.WriteString(t.Out, "\x1b[?1049h\x1b[?7l\x1b[?2004h")
	err := s.run(ctx)
	io.WriteString(t.Out, "\x1b[?2004l\x1b[?25h\x1b[?7h\x1b[?1049l")
	if rerr := restore(); rerr != nil && err == nil {
		err = fmt.Errorf("restoring the terminal: %w", rerr)
	}
	fmt.Fprintln(t.Out, s.summary())
	switch {
	case errors.Is(err, errQuit), errors.Is(err, io.EOF):
		return nil
	case ctx.Err() != nil:
		return errInterrupted
	}
	return err
}

// run shows each answer in turn until the last is passed or the person
// quits.
func (s *session) run(ctx context.Context) error {
	for s.i < len(s.answers) {
		s.draw()
		r, err := wait(ctx, s.keys, s.resized)
		if err != nil {
			return err
		}
		if err := s.press(ctx, r); err != nil {
			return err
		}
	}
	return nil
}

// press does what the key r says.
func (s *session) press(ctx context.Context, r rune) error {
	if r == keyResize {
		return nil // drawn again at the new size
	}
	s.v.note = ""
	if s.v.help {
		s.v.help = false
		return nil
	}
	switch r {
	case 'y', 'Y':
		return s.ask(ctx, right)
	case 'n', 'N':
		return s.ask(ctx, wrong)
	case 'a', 'A':
		if s.accept {
			return s.ask(ctx, accepted)
		}
		s.v.note = "a (accept) is not offered here: y records right"
	case 's', 'S', keyRight:
		s.skipped[s.i] = true
		s.i++
	case 'b', 'B', keyLeft:
		if s.i == 0 {
			s.v.note = "this is the first answer"
		}
		s.i = max(s.i-1, 0)
	case 'r', 'R':
		if len(foldedTexts(s.answers[s.i])) == 0 {
			s.v.note = "no reasoning recorded for this answer"
		}
		s.v.reasoning = !s.v.reasoning
	case '?', 'h':
		s.v.help = true
	case 'q', 'Q':
		return errQuit
	case keyCtrlC:
		return errInterrupted
	case keyPasteStart:
		if _, err := s.pasted(ctx); err != nil {
			return err
		}
		s.v.note = "a paste is no key: y, n, a, s, b, q or ? for help"
	default:
		s.v.note = "? for help"
	}
	return nil
}

// errInterrupted is Ctrl-C pressed: the review ends, what was decided
// recorded.
var errInterrupted = errors.New("interrupted (each decision made was recorded)")

// ask reads the reason for the decision k and records it; Esc takes the
// key back.
func (s *session) ask(ctx context.Context, k kind) error {
	reason, ok, err := s.readReason(ctx, k)
	if err != nil || !ok {
		return err
	}
	a := s.answers[s.i]
	d := review.Decision{Right: k != wrong, By: s.by, Reason: reason}
	// A decision being recorded is finished whatever ends the review.
	said, err := s.decide(context.WithoutCancel(ctx), a, d, k == accepted)
	if err != nil {
		s.v.note = "not recorded: " + err.Error()
		return nil
	}
	s.made[s.i] = k
	s.v.note = fmt.Sprintf("%s: %s, recorded%s", a.Label(), k, said)
	s.i++
	return nil
}

// readReason is the line typed after a decision's key: ok false when
// Esc took the key back.
func (s *session) readReason(ctx context.Context, k kind) (reason string, ok bool, err error) {
	s.v.asking = k.String()
	defer func() { s.v.asking, s.v.reason = "", "" }()
	var typed []rune
	for {
		s.v.reason = string(typed)
		s.draw()
		r, err := wait(ctx, s.keys, s.resized)
		switch {
		case err != nil:
			return "", false, err
		case r == '\r' || r == '\n':
			return strings.TrimSpace(string(typed)), true, nil
		case r == keyEsc:
			s.v.note = k.String() + ": taken back, nothing recorded"
			return "", false, nil
		case r == keyCtrlC:
			return "", false, errInterrupted
		case r == keyBackspace || r == keyCtrlH:
			typed = typed[:max(len(typed)-1, 0)]
		case r == keyCtrlU:
			typed = typed[:0]
		case r == keyPasteStart:
			text, err := s.pasted(ctx)
			if err != nil {
				return "", false, err
			}
			for _, r := range text {
				if len(typed) < maxReason {
					typed = append(typed, r)
				}
			}
		case r > 0 && !visible.Hidden(r) && unicode.IsPrint(r) && len(typed) < maxReason:
			typed = append(typed, r)
		}
	}
}

// pasted is the text pasted, read up to its end: line ends and tabs as
// spaces, other control characters left out.
func (s *session) pasted(ctx context.Context) ([]rune, error) {
	var text []rune
	for {
		r, err := wait(ctx, s.keys, nil)
		switch {
		case err != nil:
			return nil, err
		case r == keyPasteEnd:
			return text, nil
		case r == '\r' || r == '\n' || r == '\t':
			text = append(text, ' ')
		case r > 0 && !visible.Hidden(r) && unicode.IsPrint(r) && len(text) < maxReason:
			text = append(text, r)
		}
	}
}

// draw shows the answer at s.i, the cursor after the reason while one is
// asked for, hidden otherwise.
func (s *session) draw() {
	s.v.a, s.v.pos, s.v.total, s.v.accept = s.answers[s.i], s.i+1, len(s.answers), s.accept
	w, h := s.t.size()
	cursor := "\x1b[?25l"
	if s.v.asking != "" {
		cursor = "\x1b[?25h"
	}
	io.WriteString(s.t.Out, "\x1b[?25l\x1b[H\x1b[2J"+strings.Join(frame(s.v, w, h), "\r\n")+cursor)
}

// summary is the line said when the review ends.
func (s *session) summary() string {
	n := map[kind]int{}
	for _, k := range s.made {
		n[k]++
	}
	skipped := 0
	for i := range s.skipped {
		if _, ok := s.made[i]; !ok {
			skipped++
		}
	}
	line := fmt.Sprintf("%d recorded: %d right, %d wrong, %d accepted; skipped %d", len(s.made), n[right], n[wrong], n[accepted], skipped)
	if left := len(s.answers) - len(s.made) - skipped; left > 0 {
		line += fmt.Sprintf("; %d left", left)
	}
	return line
}
