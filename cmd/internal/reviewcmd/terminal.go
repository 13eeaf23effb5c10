package reviewcmd

import (
	"bufio"
	"context"
	"io"
	"os"

	"golang.org/x/term"
)

// Terminal is where a person reviews: keys are read from In as they are
// pressed, the screen is written to Out. Tests give a reader of keys and
// a buffer.
type Terminal struct {
	In  io.Reader
	Out io.Writer
	// Size is the screen's width and height; nil, or an error: 80x24.
	Size func() (width, height int, err error)
	// Raw puts the terminal in raw mode (each key read as pressed, nothing
	// echoed, Ctrl-C read as a key) and returns what restores it; nil
	// leaves the terminal as it is.
	Raw func() (restore func() error, err error)
	// Resizes tells when the screen changes size, until stop; nil: never.
	Resizes func() (resized <-chan os.Signal, stop func())
}

// Console is the person's terminal when the command's stdin and stdout
// (as the command was given it) are one; false when either is not, where
// review lists its queue instead, for scripts.
type Console func(stdout io.Writer) (*Terminal, bool)

// Stdio is the process's console: os.Stdin and stdout, when both are
// terminals that take escape sequences (TERM is not dumb).
func Stdio(stdout io.Writer) (*Terminal, bool) {
	out, ok := stdout.(*os.File)
	in := int(os.Stdin.Fd())
	if !ok || os.Getenv("TERM") == "dumb" || !term.IsTerminal(in) || !term.IsTerminal(int(out.Fd())) {
		return nil, false
	}
	return &Terminal{
		In:   os.Stdin,
		Out:  out,
		Size: func() (int, int, error) { return term.GetSize(int(out.Fd())) },
		Raw: func() (func() error, error) {
			st, err := term.MakeRaw(in)
			if err != nil {
				return nil, err
			}
			return func() error { return term.Restore(in, st) }, nil
		},
		Resizes: resizes,
	}, true
}

// size is t's screen size, 80x24 when it cannot say, never below 20x8.
func (t *Terminal) size() (width, height int) {
	width, height = 80, 24
	if t.Size != nil {
		if w, h, err := t.Size(); err == nil && w > 0 && h > 0 {
			width, height = w, h
		}
	}
	return max(width, 20), max(height, 8)
}

// The keys review reads apart from the characters a person types.
const (
	keyCtrlC     = 0x03
	keyCtrlU     = 0x15
	keyEsc       = 0x1b
	keyBackspace = 0x7f
	keyCtrlH     = 0x08
	keyLeft      = -1 // an arrow key's escape sequence, as one key
	keyRight     = -2
	keyOther     = -3 // any other escape sequence
	keyResize    = -4 // no key: the screen changed size
	// What a terminal in bracketed paste mode sends around a paste, so
	// that a pasted line end is not taken for Enter, nor its letters for
	// keys.
	keyPasteStart = -5
	keyPasteEnd   = -6
)

// key is one key pressed, or the end of the input (err).
type key struct {
	r   rune
	err error
}

// readKeys sends the keys read from r until r ends (the last key has the
// error) or done is closed.
func readKeys(r io.Reader, done <-chan struct{}) <-chan key {
	ch := make(chan key)
	go func() {
		br := bufio.NewReader(r)
		for {
			r, err := nextKey(br)
			select {
			case ch <- key{r, err}:
			case <-done:
				return
			}
			if err != nil {
				return
			}
		}
	}()
	return ch
}

// nextKey reads one key: a character, or an escape sequence that came
// with its ESC (a terminal sends an arrow key's in one write) as one key.
func nextKey(br *bufio.Reader) (rune, error) {
	r, _, err := br.ReadRune()
	if err != nil || r != keyEsc || br.Buffered() == 0 {
		return r, err
	}
	intro, _ := br.ReadByte()
	if intro != '[' && intro != 'O' {
		br.UnreadByte()
		return r, nil
	}
	// CSI parameters, then a final byte in @..~; SS3 is one byte.
	var params []byte
	for n := 0; n < 16 && br.Buffered() > 0; n++ {
		c, _ := br.ReadByte()
		if intro == 'O' || c >= 0x40 && c <= 0x7e {
			return sequenceKey(string(params), c), nil
		}
		params = append(params, c)
	}
	return keyOther, nil
}

// sequenceKey is the key an escape sequence ending in final with params
// stands for.
func sequenceKey(params string, final byte) rune {
	switch {
	case final == 'D':
		return keyLeft
	case final == 'C':
		return keyRight
	case final == '~' && params == "200":
		return keyPasteStart
	case final == '~' && params == "201":
		return keyPasteEnd
	}
	return keyOther
}

// wait is the next key, keyResize when the screen changed size first,
// or the end of ctx.
func wait(ctx context.Context, keys <-chan key, resized <-chan os.Signal) (rune, error) {
	select {
	case k := <-keys:
		return k.r, k.err
	case <-resized:
		return keyResize, nil
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}
