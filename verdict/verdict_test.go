package verdict

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func sample(q string, right bool) Verdict {
	no := false
	return Verdict{Key: Key{Sheet: "Capitals", Question: q, N: 1, Model: "random", Truth: Digest(ptr("Paris")), Answer: Digest(ptr("paris"))},
		Right: right, By: "ann", At: time.Date(2026, 12, 2, 1, 2, 3, 0, time.UTC), Reason: "said in French, \"Paris\"", Grader: &no, Said: "paris\n  is the capital"}
}

func ptr(s string) *string { return &s }

func TestLineRoundTrips(t *testing.T) {
	for _, v := range []Verdict{
		sample("Capital-France", true),
		{Key: Key{Sheet: "a b", Question: "q=1", N: 3, Model: "openai/gpt-4o", Truth: "none", Answer: Digest(ptr(""))}},
		{Key: Key{Sheet: "tab\there", Question: "ü\x00", N: 1, Model: "m", Truth: "t", Answer: "a"}, Right: true, Reason: "back\\slash"},
	} {
		line := Line(v)
		got, ok, err := ParseLine(line)
		if err != nil || !ok {
			t.Fatalf("ParseLine(%q): %v %v", line, ok, err)
		}
		want := v
		want.Said = shorten(v.Said)
		if got.Key != want.Key || got.Right != want.Right || got.By != want.By || !got.At.Equal(want.At) ||
			got.Reason != want.Reason || got.Said != want.Said || GradeWord(got.Grader) != GradeWord(want.Grader) {
			t.Errorf("%q read back as %+v, want %+v", line, got, want)
		}
	}
}

func TestParseNamesBadLines(t *testing.T) {
	good := Line(sample("Capital-France", true))
	data := strings.Join([]string{
		"# a comment",
		good,
		"",
		"maybe sheet=s q=q model=m truth=t answer=a",
		"right sheet=s q=q model=m truth=t",
		"right sheet=s q=q model=m truth=t answer=a reson=typo",
		`right sheet="unfinished q=q model=m truth=t answer=a`,
		"right sheet=s q=q n=0 model=m truth=t answer=a",
		"right sheet=s q=q model=m truth=t answer=a at=yesterday",
		"right sheet=s sheet=s q=q model=m truth=t answer=a",
		"right sheet=s q=q model=m truth=t answer=a grader=maybe",
		"right lone",
		Line(sample("Capital-Spain", false)),
	}, "\n")
	s, bad := Parse("res/verdicts.txt", []byte(data))
	if s.Len() != 2 {
		t.Errorf("kept %d verdicts, want the 2 good ones", s.Len())
	}
	wantLines := []int{4, 5, 6, 7, 8, 9, 10, 11, 12}
	if len(bad) != len(wantLines) {
		t.Fatalf("got %d errors, want %d: %v", len(bad), len(wantLines), bad)
	}
	for i, err := range bad {
		var le *LineError
		if !errors.As(err, &le) || le.Line != wantLines[i] || !strings.HasPrefix(err.Error(), fmt.Sprintf("res/verdicts.txt:%d: ", wantLines[i])) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %d = %q, want one line at line %d", i, err, wantLines[i])
		}
	}
	if v, ok := s.Find(sample("Capital-Spain", false).Key); !ok || v.Right || v.Line != 13 {
		t.Errorf("Capital-Spain: %+v %v", v, ok)
	}
}

func TestAddKeepsTheFile(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	path := PathIn(dir)
	hand := "# reviewed by the team\n" + Line(sample("B", true)) + "\nnot a verdict, kept\n" + Line(sample("D", true)) + "\n"
	if err := os.WriteFile(path, []byte(hand), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := Add(ctx, dir, sample("C", false), sample("A", true), sample("D", false)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	want := "# reviewed by the team\n" + Line(sample("A", true)) + "\n" + Line(sample("B", true)) + "\nnot a verdict, kept\n" +
		Line(sample("C", false)) + "\n" + Line(sample("D", false)) + "\n"
	if string(data) != want {
		t.Errorf("file:\n%s\nwant:\n%s", data, want)
	}
	s, bad, err := Read(dir)
	if err != nil || len(bad) != 1 || s.Len() != 4 {
		t.Errorf("Read: %d verdicts, bad %v, err %v", s.Len(), bad, err)
	}
}

func TestAddNewFileHasHeader(t *testing.T) {
	dir := t.TempDir()
	if err := Add(context.Background(), dir, sample("A", true)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(PathIn(dir))
	if !strings.HasPrefix(string(data), "# evalmd verdicts") || !strings.HasSuffix(string(data), Line(sample("A", true))+"\n") {
		t.Errorf("new file:\n%s", data)
	}
}

// Two reviewers at once: every verdict each adds is in the file.
func TestAddTwoReviewersLoseNothing(t *testing.T) {
	dir := t.TempDir()
	var wg sync.WaitGroup
	errs := make(chan error, 40)
	for r := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range 20 {
				errs <- Add(context.Background(), dir, sample(fmt.Sprintf("r%d-q%02d", r, i), i%2 == 0))
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	s, bad, err := Read(dir)
	if err != nil || len(bad) > 0 || s.Len() != 40 {
		t.Fatalf("%d verdicts (want 40), bad %v, err %v", s.Len(), bad, err)
	}
}

func TestReadRefusesALinkOut(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	secret := filepath.Join(out, "secret")
	if err := os.WriteFile(secret, []byte("right sheet=s q=q model=m truth=t answer=a\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, PathIn(dir)); err != nil {
		t.Fatal(err)
	}
	if _, _, err := Read(dir); err == nil || !strings.Contains(err.Error(), PathIn(dir)) {
		t.Errorf("Read through a link out: %v, want an error naming %s", err, PathIn(dir))
	}
	if err := Add(context.Background(), dir, sample("A", true)); err == nil {
		t.Errorf("Add through a link out: no error")
	}
	if data, _ := os.ReadFile(secret); strings.Count(string(data), "\n") != 1 {
		t.Errorf("the link's target was written: %q", data)
	}
}

func FuzzParseLine(f *testing.F) {
	f.Add(Line(sample("Capital-France", true)))
	f.Add(`wrong sheet="a\"b" q=x n=2 model=m truth=t answer=a grader=none`)
	f.Fuzz(func(t *testing.T, line string) {
		v, ok, err := ParseLine(line)
		if err != nil || !ok {
			return
		}
		again, ok, err := ParseLine(Line(v))
		if err != nil || !ok || again.Key != v.Key || again.Right != v.Right || again.Reason != v.Reason {
			t.Errorf("%q: %+v read back from %q as %+v (%v)", line, v, Line(v), again, err)
		}
	})
}
