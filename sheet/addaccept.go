package sheet

import (
	"errors"
	"fmt"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/py"
	"github.com/evalmd/evalmd/internal/readfile"
)

// AddAccepted adds text to the accepted answers of the n-th (from 1)
// question named name in the sheet file at path: an accept line
// (AcceptLine) after its answer's end token. An end token is put at the
// very end of the answer's text when it has none, after its trailing
// blank lines, so the ground truth LIME reads keeps every byte; the rest
// of the file is kept byte for byte, line endings too. Questions are
// counted as a run counts them: those with a question section. Text
// already accepted, or equal to the ground truth (white space trimmed),
// changes nothing. A question without an answer section is an error at
// its line.
//
// The sheet is the user's input, edited at their request: it is written
// over (outfile's Force), but only while it still holds what was read
// (Expect), so an edit made meanwhile is refused, not lost.
func AddAccepted(path, name string, n int, text string) error {
	line, err := AcceptLine(text)
	if err != nil {
		return fmt.Errorf("%s: question %q: %w", path, name, err)
	}
	if _, err := readfile.Below(path, filepath.Dir(path)); errors.Is(err, readfile.ErrOutside) {
		return fmt.Errorf("sheet %w: a sheet is edited in its own folder only (name the file it leads to instead)", err)
	}
	raw, err := readfile.ReadString(path, maxSize)
	if err != nil {
		return err
	}
	out, err := withAccepted(path, raw, name, n, text, line)
	if err != nil || out == raw {
		return err
	}
	return outfile.Write(path, []byte(out), outfile.Options{Force: true, Expect: outfile.Sum([]byte(raw))})
}

// withAccepted is the sheet text raw (of the file at path) with line, the
// accept line of text, added to the n-th question named name; raw itself
// when the answer is accepted already.
func withAccepted(path, raw, name string, n int, text, line string) (string, error) {
	doc, err := parse(path, raw, nil)
	if err != nil {
		return "", err
	}
	b, err := nthQuestion(doc, name, n)
	if err != nil {
		return "", err
	}
	a := b.First("answer")
	if a == nil {
		return "", &Error{Diag{path, b.Line, fmt.Sprintf("question %q has no answer section to accept an answer in", name)}}
	}
	truth := CutEnd(a.Text)
	if accepted, _ := readAccepted(a.Text); text == truth || text == py.Strip(truth) || slices.Contains(accepted, text) {
		return raw, nil
	}
	out := insertAccepted(raw, a, line)
	if err := sameButAccepted(doc, out, name, n, text); err != nil {
		return "", err
	}
	return out, nil
}

// nthQuestion is the n-th question block named name that has a question
// section (the n-th item of that name Resolve gives).
func nthQuestion(doc *Doc, name string, n int) (*Block, error) {
	if n < 1 {
		return nil, fmt.Errorf("%s: question %q: occurrence %d: counted from 1", doc.Path, name, n)
	}
	seen := 0
	for i := range doc.Blocks {
		b := &doc.Blocks[i]
		if b.Kind != QuestionKind || b.Name != name || b.First("question") == nil {
			continue
		}
		if seen++; seen == n {
			return b, nil
		}
	}
	if seen == 0 {
		return nil, fmt.Errorf("%s: no question named %q", doc.Path, name)
	}
	return nil, fmt.Errorf("%s: question %q: %d of that name, not %d", doc.Path, name, seen, n)
}

// insertAccepted is the sheet text raw with line, an accept line, added
// to the answer section a: after its last line below the end token that
// is not blank, or, without an end token, after the section's text with
// an end token before it. raw's own line ending is used.
func insertAccepted(raw string, a *Section, line string) string {
	start, end := lineStart(raw, a.Line+1), lineStart(raw, a.Line+1+textLines(a.Text))
	nl := lineEnding(raw, lineStart(raw, a.Line))
	line = strings.TrimSuffix(line, "\n") + nl
	sec := raw[start:end]
	_, off, ok := tail(sec)
	if !ok {
		ins := endTokens[1] + nl + line
		if end == len(raw) && !strings.HasSuffix(raw, "\n") && !strings.HasSuffix(raw, "\r") && sec == "" {
			ins = nl + ins // the header is the file's last line
		}
		if end < len(raw) && (strings.HasSuffix(sec, nl+nl) || sec == nl) {
			ins += nl // the blank line that parted it from the next header
		}
		return raw[:end] + ins + raw[end:]
	}
	at := start + nextLine(sec, off)
	for i := at - start; i < len(sec); {
		j := nextLine(sec, i)
		if py.Strip(sec[i:j]) != "" {
			at = start + j
		}
		i = j
	}
	if at == len(raw) && !strings.HasSuffix(raw, "\n") && !strings.HasSuffix(raw, "\r") {
		line = nl + line
	}
	return raw[:at] + line + raw[at:]
}

// textLines is how many lines a section's text spans.
func textLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// nextLine is the offset in s after the line at i and its ending ("\n",
// "\r\n" or "\r": universal newlines, as the parser reads them).
func nextLine(s string, i int) int {
	j := strings.IndexAny(s[i:], "\r\n")
	if j < 0 {
		return len(s)
	}
	j += i
	if s[j] == '\r' && j+1 < len(s) && s[j+1] == '\n' {
		return j + 2
	}
	return j + 1
}

// lineStart is the offset in s of line n (from 1), or len(s) past the end.
func lineStart(s string, n int) int {
	i := 0
	for ; n > 1 && i < len(s); n-- {
		i = nextLine(s, i)
	}
	return i
}

// lineEnding is the ending of the line at i of s, "\n" when it has none.
func lineEnding(s string, i int) string {
	j := nextLine(s, i)
	switch {
	case strings.HasSuffix(s[i:j], "\r\n"):
		return "\r\n"
	case strings.HasSuffix(s[i:j], "\r"):
		return "\r"
	}
	return "\n"
}

// sameButAccepted checks that the sheet out reads as before does but for
// text accepted by the n-th question named name: the truths, prompts and
// meta LIME reads are unchanged.
func sameButAccepted(before *Doc, out, name string, n int, text string) error {
	path := before.Path
	after, err := parse(path, out, nil)
	if err != nil {
		return fmt.Errorf("%s: question %q: the sheet would not parse with the accepted answer: %w", path, name, err)
	}
	infoB, want := before.Resolve()
	infoA, got := after.Resolve()
	if len(want) != len(got) {
		return fmt.Errorf("%s: question %q: adding the accepted answer would change the questions; nothing written", path, name)
	}
	// The lines after the new one move down (a sheet header may come
	// after a question).
	infoB.Line, infoB.MetaLines, infoA.Line, infoA.MetaLines = 0, nil, 0, nil
	seen := 0
	for i := range want {
		want[i].Line, want[i].MetaLines, got[i].Line, got[i].MetaLines = 0, nil, 0, nil
		if want[i].Name == name {
			if seen++; seen == n {
				want[i].Accepted = append(slices.Clip(want[i].Accepted), text)
			}
		}
	}
	if !reflect.DeepEqual(infoB, infoA) || !reflect.DeepEqual(want, got) {
		return fmt.Errorf("%s: question %q: adding the accepted answer would change how the sheet reads; nothing written", path, name)
	}
	return nil
}
