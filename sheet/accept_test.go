package sheet

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// acceptSheet has accepted answers after both end tokens, with and without
// the bullet, plain and as JSON strings, and a question with none.
const acceptSheet = `# Sheet
#### meta
- max_tokens: 5
#### question
Answer briefly.
<EVAL-ENDCHAR>

## Q1
#### meta
- grader: choice
#### question
How many guesses?
#### answer
B) 6<EVAL-ENDCHAR>
- accept: (b) six guesses
accept:   six   
- Accept: "  six\n"

## Q2
#### answer
Paris
|EVAL-ENDCHAR|
- accept: "a \"quoted\" \u003cEVAL-ENDCHAR\u003e \u007cEVAL-ENDCHAR\u007c"

#### question
Capital of France?

## Q3
#### question
Colour of the sky?
#### answer
blue

`

// acceptLineRe matches the accept lines of acceptSheet.
var acceptLineRe = regexp.MustCompile(`(?m)^(- )?[Aa]ccept:.*\n`)

// A sheet with accepted answers reads, truths, meta and prompts, as the
// same sheet without them, with no warning; the accepted answers are the
// questions' Accepted, in order.
func TestAcceptedParse(t *testing.T) {
	with, err := Parse("with.md", []byte(acceptSheet), nil)
	if err != nil {
		t.Fatal(err)
	}
	without, err := Parse("without.md", []byte(acceptLineRe.ReplaceAllString(acceptSheet, "")), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(with.Warnings) != 0 {
		t.Errorf("warnings %v", with.Warnings)
	}
	infoW, itemsW := with.Resolve()
	infoO, itemsO := without.Resolve()
	want := [][]string{{"(b) six guesses", "six", "  six\n"}, {`a "quoted" <EVAL-ENDCHAR> |EVAL-ENDCHAR|`}, nil}
	for i := range itemsW {
		if !reflect.DeepEqual(itemsW[i].Accepted, want[i]) {
			t.Errorf("%s: accepted %q, want %q", itemsW[i].Name, itemsW[i].Accepted, want[i])
		}
		// The accept lines move the questions after them down.
		itemsW[i].Accepted, itemsW[i].Line, itemsW[i].MetaLines = nil, 0, nil
		itemsO[i].Line, itemsO[i].MetaLines = 0, nil
	}
	if !reflect.DeepEqual(infoW, infoO) || !reflect.DeepEqual(itemsW, itemsO) {
		t.Errorf("with accepted answers the sheet reads\n%+v\nwithout\n%+v", itemsW, itemsO)
	}
	if got := *itemsW[1].GroundTruth; got != "Paris\n" {
		t.Errorf("Q2's truth %q, want %q", got, "Paris\n")
	}
}

// Lines after an answer's end token that accept nothing: a line that is
// no accept line is a warning at its line; an accept line that cannot be
// read is an error at its line, so no accepted answer is dropped unsaid.
func TestAcceptedMalformed(t *testing.T) {
	for _, tc := range []struct {
		name, answer string
		err, warning string
	}{
		{"note after the token", "6<EVAL-ENDCHAR>\nsee the book\n", "", `bad.md:6: line "see the book" after the answer's end token is not an accept line`},
		{"text on the token's line", "6<EVAL-ENDCHAR> or six\n", "", `bad.md:5: line " or six" after the answer's end token`},
		{"misspelt key", "6<EVAL-ENDCHAR>\n- accepted: six\n", "", `bad.md:6: line "- accepted: six"`},
		{"bad JSON", "6<EVAL-ENDCHAR>\n\n- accept: \"six\n", `bad.md:7: accept line: "six is not one JSON string`, ""},
		{"JSON and more", "6<EVAL-ENDCHAR>\n- accept: \"six\" or 6\n", `bad.md:6: accept line: "six" or 6 is not one JSON string`, ""},
		{"empty", "6|EVAL-ENDCHAR|\n- accept:\n", "bad.md:6: accept line without an answer", ""},
		{"empty JSON", "6|EVAL-ENDCHAR|\n- accept: \"\"\n", "bad.md:6: accept line without an answer", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, err := Parse("bad.md", []byte("## Q\n#### question\nHow many?\n#### answer\n"+tc.answer), nil)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("err = %v, want one line with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var all []string
			for _, w := range doc.Warnings {
				all = append(all, w.String())
			}
			if !strings.Contains(strings.Join(all, "\n"), tc.warning) {
				t.Errorf("warnings %q lack %q", all, tc.warning)
			}
			if _, items := doc.Resolve(); items[0].Accepted != nil || *items[0].GroundTruth != "6" {
				t.Errorf("accepted %q, truth %q", items[0].Accepted, *items[0].GroundTruth)
			}
		})
	}
}

// LIME's own parser (EVALMD_LIME_SRC, a checkout of sutt/lime, run by
// Debian's python3 with pydantic and yaml) reads the sheet with accepted
// answers as the sheet without them: names, meta, prompts, answers.
func TestAcceptedLIMEParse(t *testing.T) {
	src := os.Getenv("EVALMD_LIME_SRC")
	if src == "" {
		t.Skip("EVALMD_LIME_SRC names no checkout of github.com/sutt/lime")
	}
	if _, err := os.Stat(filepath.Join(src, "lime", "common", "controllers", "parse.py")); err != nil {
		t.Fatalf("EVALMD_LIME_SRC: %v", err)
	}
	const python = "/usr/bin/python3"
	if err := exec.Command(python, "-c", "import pydantic, yaml").Run(); err != nil {
		shared.Missing(t, "needs "+python+" with pydantic and yaml (apt-get install python3-pydantic python3-yaml): "+err.Error())
	}
	dir := t.TempDir()
	with, without := filepath.Join(dir, "input-with.md"), filepath.Join(dir, "input-without.md")
	for path, text := range map[string]string{with: acceptSheet, without: acceptLineRe.ReplaceAllString(acceptSheet, "")} {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	read := func(path string) map[string]any {
		t.Helper()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cmd := exec.CommandContext(ctx, python, "-c", `import sys, json
sys.path.insert(0, sys.argv[1])
from lime.common.controllers.parse import parse_to_obj
o = parse_to_obj(sys.argv[2])
o.sheet_fn = None
print(json.dumps(o.model_dump() if hasattr(o, "model_dump") else o.dict()))`, src, path)
		out, err := cmd.Output()
		if err != nil {
			t.Fatalf("LIME's parser on %s: %v", path, err)
		}
		var v map[string]any
		if err := json.Unmarshal(out, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	a, b := read(with), read(without)
	if !reflect.DeepEqual(a, b) {
		t.Errorf("LIME reads the sheet with accepted answers as\n%v\nwithout\n%v", a, b)
	}
	if qs, _ := a["questions"].([]any); len(qs) != 3 || qs[0].(map[string]any)["answer"] != "B) 6" {
		t.Errorf("LIME's questions: %v", a["questions"])
	}
}

// Every text AcceptLine writes reads back as itself, after either end
// token; reading lines after an end token never panics.
func FuzzAcceptLine(f *testing.F) {
	for _, s := range []string{"six", "  six\n", `"quoted"`, "a|EVAL-ENDCHAR|b", "<EVAL-ENDCHAR>", "\u2028x\r", "é\x00\x1c", "x: y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		readAccepted("6<EVAL-ENDCHAR>" + text)
		line, err := AcceptLine(text)
		if err != nil {
			return
		}
		if strings.Count(line, "\n") != 1 || !strings.HasSuffix(line, "\n") || strings.ContainsRune(line, '\r') {
			t.Fatalf("AcceptLine(%q) = %q: not one line", text, line)
		}
		for _, tok := range endTokens {
			got, probs := readAccepted("6" + tok + "\n" + line + line)
			if len(probs) != 0 || len(got) != 2 || got[0] != text || got[1] != text {
				t.Fatalf("AcceptLine(%q) = %q reads back as %q, %v", text, line, got, probs)
			}
			if hasEnd(line) {
				t.Fatalf("AcceptLine(%q) = %q holds an end token", text, line)
			}
		}
	})
}
