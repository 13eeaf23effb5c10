package sheet

import (
	"regexp"
	"strings"
	"testing"
)

// Each malformed sheet gives an error or a warning naming file:line, never
// a panic.
func TestMalformedSheets(t *testing.T) {
	long := strings.Repeat("x", 10<<20)
	for _, tc := range []struct {
		name    string
		in      string
		err     string // substring of the error; "" when parsing succeeds
		warning string // substring of some warning when parsing succeeds
		quiet   string // substring no warning may hold
	}{
		{"no header", "just some text\nand more\n", "bad.md:1: no \"# \" sheet or \"## \" question header", "", ""},
		{"empty file", "", "bad.md:1: no \"# \" sheet", "", ""},
		{"section before header", "notes\n#### question\nWhat?\n## Q\n#### question\nok\n", "", "bad.md:2: \"#### question\" before the first header is ignored", ""},
		{"unclosed end token", "## Q\n#### question\nWhat?\n<EVAL-ENDCHAR\n", "", "bad.md:2: question section holds a malformed end token", ""},
		{"no question section", "## Q\n#### answer\nA\n", "", "bad.md:1: question \"Q\" has no question section: skipped", ""},
		{"duplicate names", "## Q\n#### question\na\n## Q\n#### question\nb\n", "", "bad.md:4: duplicate question name \"Q\" (first at line 1)", ""},
		{"empty section", "## Q\n#### question\n\n#### answer\nA\n", "", "bad.md:2: empty question section", ""},
		{"second sheet", "# A\n# B\n## Q\n#### question\nx\n", "", "bad.md:2: a second sheet header", ""},
		{"header in fence", "## Q\n#### question\n```\n## not really\n```\n", "", "bad.md:4: \"## not really\" inside a code block starts a new question", ""},
		{"binary garbage", "## Q\n#### question\nab\x00\x01\xff\n", "bad.md:3: binary data (NUL byte)", "", ""},
		{"invalid UTF-8", "## Q\n#### question\nok\nbad \xc3\x28 here\n", "bad.md:4: invalid UTF-8 at byte", "", ""},
		{"10 MB single line", "## Q\n#### question\n" + long, "", "", ""},
		{"10 MB line, no header", long, "bad.md:1: no \"# \" sheet", "", ""},
		{"BOM", "\ufeff# S\n#### meta\ngrader: exact\n## Q\n#### meta\n#### question\nx\n", "", "bad.md:1: byte order mark (BOM) removed", ""},
		{"misspelt answer", "## Q\n#### question\nWhat?\n#### answr\n42\n", "", "bad.md:4: \"#### answr\" is not a section (did you mean \"answer\"?): its lines are text of the question section", ""},
		{"notes after answer", "## Q\n#### question\nWhat?\n#### answer\n42\n#### notes\nfrom the book\n", "", "bad.md:6: \"#### notes\" is not a section: its lines are text of the answer section", ""},
		{"misspelt first section", "## Q\n#### Qestion\nWhat?\n#### question\nx\n", "", "bad.md:2: \"#### Qestion\" is not a section (did you mean \"question\"?): its lines are ignored", ""},
		{"LIME's info notes", "# S\n#### info\nnotes\n#### meta\na: 1\n## Q\n#### info\nmore\n#### question\nx\n", "", "", "not a section"},
		{"header in a fence", "## Q\n#### question\n```\n#### notes\n```\n", "", "", "not a section"},
		{"meta line without colon", "## Q\n#### meta\ngrader exact\n\nseed: 1\n#### question\nx\n", "", "bad.md:3: meta line \"grader exact\" has no ':' and is ignored", ""},
		{"no questions", "# S\n#### question\nx\n", "", "bad.md:1: the sheet has no questions", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse("bad.md", []byte(tc.in), nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "\n") || !fileLine.MatchString(err.Error()) {
					t.Errorf("error is not one line with file:line: %q", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("unexpected error %v", err)
			}
			var all []string
			for _, w := range doc.Warnings {
				s := w.String()
				if !fileLine.MatchString(s) || strings.Contains(s, "\n") {
					t.Errorf("warning is not one line with file:line: %q", s)
				}
				all = append(all, s)
			}
			if tc.warning != "" && !strings.Contains(strings.Join(all, "\n"), tc.warning) {
				t.Errorf("warnings %q lack %q", all, tc.warning)
			}
			if tc.quiet != "" && strings.Contains(strings.Join(all, "\n"), tc.quiet) {
				t.Errorf("warnings %q hold %q", all, tc.quiet)
			}
		})
	}
}

var fileLine = regexp.MustCompile(`^bad\.md:\d+: `)

// The parser never panics, and whatever parses and formats reads back the
// same.
func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"# S\n#### meta\n- a: 1\n#### question\nSys<EVAL-ENDCHAR>\n## Q\n#### meta\n#### answer\nB|EVAL-ENDCHAR|\n#### question\nQ?\n",
		"## Q\n#### question\n```\n## x\n```\n\\# esc\n",
		"# A\r\n## B\r#### question\r\nx",
		"#### question\n## Q\n####  Question \nx<EVAL-ENDCHAR>y|EVAL-ENDCHAR|z\n",
		"# S\n#### user\n2+2?<EVAL-ENDCHAR>\n#### assistant\n4<EVAL-ENDCHAR>\n## Q\n#### user\nhi\n#### question\nx\n",
		"## Q\n#### question\nx\n#### user\nlate\n",
		"## Q\n#### schema\n{\"type\": \"object\", \"properties\": {\"a\": {\"type\": [\"integer\", \"null\"]}}}<EVAL-ENDCHAR>\n#### question\nx\n",
		"# S\n#### schema\n{\"items\": [\n#### question\nx\n## Q\n#### question\ny\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := Parse("fuzz.md", data, nil)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.md:") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("refusal is not one line naming the file: %q", err)
			}
			return
		}
		_, items := doc.Resolve()
		for _, it := range items {
			if it.Schema != nil && CheckSchema([]byte(it.Schema.Text)) != nil {
				t.Fatalf("question %q: schema accepted that CheckSchema refuses: %q", it.Name, it.Schema.Text)
			}
		}
		out, err := Format(doc, nil)
		if err != nil {
			return
		}
		back, err := Parse("fuzz.md", out, nil)
		if err != nil {
			t.Fatalf("formatted sheet does not parse: %v\n%q", err, out)
		}
		sameItems(t, "fuzz", doc, back)
	})
}

// A BOM is removed, so the sheet header, its meta and its grader count
// (LIME reads the BOM as text and loses them).
func TestBOMKeepsSheetHeader(t *testing.T) {
	doc, err := Parse("bom.md", []byte("\ufeff# S\n#### meta\ngrader: exact\n## Q\n#### meta\n#### question\nx\n"), nil)
	if err != nil {
		t.Fatal(err)
	}
	info, items := doc.Resolve()
	if info.Name != "S" || len(items) != 1 || items[0].Meta["grader"] != "exact" {
		t.Errorf("sheet %q, items %+v: want sheet S whose grader reaches the question", info.Name, items)
	}
}
