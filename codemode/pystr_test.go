package codemode

import (
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// pyTable prints, for every code point but the surrogates, whether Python
// finds it printable.
const pyTable = `import sys
out = []
for cp in range(0x110000):
    if 0xD800 <= cp <= 0xDFFF:
        out.append("0")
        continue
    c = chr(cp)
    out.append(str(c.isprintable() * 1))
sys.stdout.write("".join(out))
`

// TestPythonPrintable compares pyPrintable with Python's for every code
// point (Debian 12's Python has Unicode 14.0, Go a newer one: pyPrintable
// carries the difference).
func TestPythonPrintable(t *testing.T) {
	python(t)
	table := runPython(t, pyTable, nil)
	if len(table) != 0x110000 {
		t.Fatalf("%d entries", len(table))
	}
	for cp, c := range table {
		if cp >= 0xD800 && cp <= 0xDFFF {
			continue
		}
		if got, want := pyPrintable(rune(cp)), c == '1'; got != want {
			t.Errorf("U+%04X: isprintable %v, Python %v", cp, got, want)
		}
	}
}

// TestPythonRepr compares pyRepr with repr() on hard strings.
func TestPythonRepr(t *testing.T) {
	python(t)
	in := []string{"", "plain", "it's", `say "hi"`, `both ' and "`, `back\slash`, "tab\tnew\nret\r",
		"\x00\x01\x1b\x7f", "café", "\u00a0nbsp\u00ad", "\u2028\u2029", "\u200b\ufeff", "\U0001F600 \U000E0001",
		"\u0378", "\U0010FFFF", "中文 列", "\x85", "a\u0300", "\u0cf3 \U00031350 new in Unicode 15"}
	data, _ := json.Marshal(in)
	out := runPython(t, "import json, sys\njson.dump([repr(s) for s in json.load(sys.stdin)], sys.stdout)", data)
	var want []string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	for i, s := range in {
		if got := pyRepr(s); got != want[i] {
			t.Errorf("repr(%q) = %s, Python %s", s, got, want[i])
		}
	}
	out = runPython(t, "import json, sys\nprint(repr(json.load(sys.stdin)), end='')", data)
	if got := pyListRepr(in); got != string(out) {
		t.Errorf("list repr:\n%s\nPython:\n%s", got, out)
	}
}

// unrepr reads back a literal pyRepr wrote (the escapes it uses).
func unrepr(lit string) (string, error) {
	if len(lit) < 2 || (lit[0] != '\'' && lit[0] != '"') || lit[len(lit)-1] != lit[0] {
		return "", fmt.Errorf("not quoted: %q", lit)
	}
	q, body := lit[0], lit[1:len(lit)-1]
	var b strings.Builder
	for i := 0; i < len(body); i++ {
		c := body[i]
		if c == q {
			return "", fmt.Errorf("bare quote at %d in %q", i, lit)
		}
		if c < ' ' || c == 0x7f {
			return "", fmt.Errorf("raw control %#x in %q", c, lit)
		}
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		i++
		if i >= len(body) {
			return "", fmt.Errorf("trailing backslash in %q", lit)
		}
		n := map[byte]int{'x': 2, 'u': 4, 'U': 8}[body[i]]
		switch {
		case body[i] == 't':
			b.WriteByte('\t')
		case body[i] == 'n':
			b.WriteByte('\n')
		case body[i] == 'r':
			b.WriteByte('\r')
		case body[i] == '\\' || body[i] == q:
			b.WriteByte(body[i])
		case n > 0 && i+n < len(body)+1:
			v, err := strconv.ParseUint(body[i+1:i+1+n], 16, 32)
			if err != nil {
				return "", err
			}
			b.WriteRune(rune(v))
			i += n
		default:
			return "", fmt.Errorf("bad escape %q in %q", body[i], lit)
		}
	}
	return b.String(), nil
}

func FuzzPyRepr(f *testing.F) {
	for _, s := range []string{"", "it's", `a"b'c`, "\x00\n\t\\", "café\u2028", "\xff\xfe"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		lit := pyRepr(s)
		back, err := unrepr(lit)
		if err != nil {
			t.Fatal(err)
		}
		if want := strings.ToValidUTF8(s, "\uFFFD"); back != want {
			t.Fatalf("repr %s reads back %q, want %q", lit, back, want)
		}
	})
}

func FuzzExtract(f *testing.F) {
	p := Prompt("q", []string{"a"})
	for _, c := range baselineCases {
		f.Add(p, c.completion)
	}
	f.Add("", "```python\ndef answer(df):\n    return 1\n```")
	f.Add("", "```\n  x = 1\n    return x\n```")
	f.Add("x", "\treturn\n\x1c")
	f.Fuzz(func(t *testing.T, prompt, completion string) {
		for _, rule := range []Rule{Baseline, Lenient} {
			code, err := Extract(rule, prompt, completion)
			if err != nil {
				var e *extractError
				if !errors.As(err, &e) || e.Msg == "" || e.Type == "" {
					t.Fatalf("%s: error %v is not a full extractError", rule, err)
				}
				continue
			}
			if !utf8.ValidString(code) {
				t.Fatalf("%s: invalid UTF-8 code %q", rule, code)
			}
			if !strings.Contains(code, "def answer(") {
				t.Fatalf("%s: no answer function in %q", rule, code)
			}
			if rule == Baseline {
				// One line after the lead, as example_postprocess runs it.
				if !strings.HasPrefix(code, lead) || strings.Contains(code[len(lead):], "\n") {
					t.Fatalf("baseline code %q", code)
				}
			}
		}
	})
}

func FuzzParseOutput(f *testing.F) {
	line := "\n" + marker + " "
	f.Add(line + `{"answer": "1"}`)
	f.Add(line + `{"error": "x", "type": "KeyError"}`)
	f.Add(line + `{"load_error": "x"}`)
	f.Add("junk" + line + `{"answer": null, "error": 1}`)
	f.Fuzz(func(t *testing.T, out string) {
		o, err := ParseOutput(out)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "code mode: ") {
				t.Fatalf("error without context: %v", err)
			}
			return
		}
		if o.Failed() && !strings.HasPrefix(o.Answer, "__CODE_ERROR__: ") {
			t.Fatalf("failed outcome with answer %q", o.Answer)
		}
	})
}
