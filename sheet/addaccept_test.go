package sheet

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// AddAccepted writes one accept line into the answer of the question
// named, keeping every other byte (and so the truth LIME reads), and
// changes nothing for an answer already accepted.
func TestAddAccepted(t *testing.T) {
	const two = "## Q\n#### question\nHow many?\n#### answer\n"
	for _, tc := range []struct {
		name     string
		in, want string
		q        string
		n        int
		text     string
	}{
		{"end token present", two + "B) 6<EVAL-ENDCHAR>\n\n## R\n#### question\nx\n", two + "B) 6<EVAL-ENDCHAR>\n- accept: six\n\n## R\n#### question\nx\n", "Q", 1, "six"},
		{"end token absent, blank lines", two + "B) 6\n\n\n## R\n#### question\nx\n", two + "B) 6\n\n\n<EVAL-ENDCHAR>\n- accept: six\n\n## R\n#### question\nx\n", "Q", 1, "six"},
		{"end token absent, no blank line", two + "B) 6\n#### meta\n- a: 1\n", two + "B) 6\n<EVAL-ENDCHAR>\n- accept: six\n#### meta\n- a: 1\n", "Q", 1, "six"},
		{"last question, no final newline", two + "B) 6", two + "B) 6<EVAL-ENDCHAR>\n- accept: six\n", "Q", 1, "six"},
		{"last question, token, no final newline", two + "B) 6|EVAL-ENDCHAR|", two + "B) 6|EVAL-ENDCHAR|\n- accept: six\n", "Q", 1, "six"},
		{"after the accepted ones", two + "B) 6<EVAL-ENDCHAR>\n- accept: 6\n\n- accept: (b)\n\n", two + "B) 6<EVAL-ENDCHAR>\n- accept: 6\n\n- accept: (b)\n- accept: six\n\n", "Q", 1, "six"},
		{"CRLF", strings.ReplaceAll(two+"B) 6\n\n## R\n#### question\nx\n", "\n", "\r\n"),
			strings.ReplaceAll(two+"B) 6\n\n<EVAL-ENDCHAR>\n- accept: six\n\n## R\n#### question\nx\n", "\n", "\r\n"), "Q", 1, "six"},
		{"CR", strings.ReplaceAll(two+"B) 6<EVAL-ENDCHAR>\n", "\n", "\r"), strings.ReplaceAll(two+"B) 6<EVAL-ENDCHAR>\n- accept: six\n", "\n", "\r"), "Q", 1, "six"},
		{"repeated name, n=2", two + "6\n\n" + two + "7\n\n## R\n#### question\nx\n", two + "6\n\n" + two + "7\n\n<EVAL-ENDCHAR>\n- accept: seven\n\n## R\n#### question\nx\n", "Q", 2, "seven"},
		{"a skipped block is not counted", "## Q\n#### answer\n5\n\n" + two + "6\n", "## Q\n#### answer\n5\n\n" + two + "6\n<EVAL-ENDCHAR>\n- accept: six\n", "Q", 1, "six"},
		{"JSON string", two + "B) 6\n", two + "B) 6\n<EVAL-ENDCHAR>\n- accept: \" six\\n\\u003cEVAL-ENDCHAR\\u003e\\u007c\"\n", "Q", 1, " six\n<EVAL-ENDCHAR>|"},
		{"escaped header kept", two + "\\## 6\n", two + "\\## 6\n<EVAL-ENDCHAR>\n- accept: six\n", "Q", 1, "six"},
		{"already accepted", two + "B) 6<EVAL-ENDCHAR>\naccept: six\n", "", "Q", 1, "six"},
		{"the truth", two + "B) 6\n\n", "", "Q", 1, "B) 6"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "input-s.md")
			if err := os.WriteFile(path, []byte(tc.in), 0o644); err != nil {
				t.Fatal(err)
			}
			before := items(t, path)
			if err := AddAccepted(path, tc.q, tc.n, tc.text); err != nil {
				t.Fatal(err)
			}
			got, _ := os.ReadFile(path)
			want := tc.want
			if want == "" {
				want = tc.in // a no-op
			}
			if string(got) != want {
				t.Fatalf("sheet\n%q\nwant\n%q", got, want)
			}
			after := items(t, path)
			for i := range after {
				if a := after[i].Accepted; tc.want != "" && after[i].Name == tc.q && len(a) > 0 && a[len(a)-1] == tc.text {
					after[i].Accepted = after[i].Accepted[:len(after[i].Accepted)-1]
					tc.want = ""
				}
				after[i].Line, after[i].MetaLines, before[i].Line, before[i].MetaLines = 0, nil, 0, nil
				if len(after[i].Accepted) == 0 {
					after[i].Accepted, before[i].Accepted = nil, nil
				}
			}
			if tc.want != "" || !reflect.DeepEqual(before, after) {
				t.Errorf("the sheet reads\n%+v\nwas\n%+v", after, before)
			}
		})
	}
}

func items(t *testing.T, path string) []Item {
	t.Helper()
	doc, err := ParseFile(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, it := doc.Resolve()
	return it
}

// What AddAccepted refuses, with the file (and line) named; the sheet
// is left as it was.
func TestAddAcceptedRefused(t *testing.T) {
	const sheet = "## Q\n#### question\nHow many?\n\n## R\n#### question\nx\n#### answer\n1\n"
	for _, tc := range []struct {
		name, q string
		n       int
		text    string
		err     string
	}{
		{"no answer section", "Q", 1, "six", "input-s.md:1: question \"Q\" has no answer section"},
		{"no such question", "P", 1, "six", "input-s.md: no question named \"P\""},
		{"no second one", "R", 2, "six", "input-s.md: question \"R\": 1 of that name, not 2"},
		{"occurrence 0", "R", 0, "six", "counted from 1"},
		{"empty text", "R", 1, "", "input-s.md: question \"R\": an accepted answer cannot be empty"},
		{"not UTF-8", "R", 1, "\xff", "must be UTF-8"},
		{"a link", "R", 1, "six", "symbolic link"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "input-s.md")
			if err := os.WriteFile(path, []byte(sheet), 0o644); err != nil {
				t.Fatal(err)
			}
			if tc.name == "a link" {
				if err := os.Rename(path, filepath.Join(dir, "real.md")); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink("real.md", path); err != nil {
					t.Fatal(err)
				}
			}
			err := AddAccepted(path, tc.q, tc.n, tc.text)
			if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err = %v, want one line with %q", err, tc.err)
			}
			if got, _ := os.ReadFile(path); string(got) != sheet {
				t.Errorf("the sheet changed:\n%q", got)
			}
		})
	}
}

// Whatever sheet parses, accepting any text in its first question with an
// answer section reads back as the sheet did, but for that answer
// (withAccepted checks it, and fails otherwise).
func FuzzAddAccepted(f *testing.F) {
	for _, s := range []string{
		"## Q\n#### question\nx\n#### answer\nB) 6\n\n## R\n",
		"## Q\r\n#### question\r\nx\r\n#### answer\r\n6<EVAL-ENDCHAR> - accept: 6\r\n",
		"# S\n#### question\nsys\n## Q\n#### answer\n\\## 6|EVAL-ENDCHAR|\n\n\n#### question\nx",
		"## Q\r#### answer\r6\r\r#### question\rx\r",
	} {
		f.Add(s, "six")
	}
	f.Fuzz(func(t *testing.T, raw, text string) {
		doc, err := Parse("fuzz.md", []byte(raw), nil)
		line, lerr := AcceptLine(text)
		if err != nil || lerr != nil {
			return
		}
		_, items := doc.Resolve()
		for _, it := range items {
			if it.GroundTruth == nil {
				continue
			}
			if _, err := withAccepted("fuzz.md", raw, it.Name, 1, text, line); err != nil && !strings.Contains(err.Error(), "no answer section") {
				t.Fatalf("accepting %q in %q: %v", text, it.Name, err)
			}
			return
		}
	})
}
