package codemode

import (
	"errors"
	"testing"
)

func TestExtractBaseline(t *testing.T) {
	p := Prompt("How many?", []string{"a"})
	tests := []struct{ name, prompt, completion, want string }{
		{"first line", p, " df.shape[0]\n    return 1", lead + "df.shape[0]"},
		{"strip, then drop end of text", p, " \t df['a'].sum()  [end of text]", lead + "df['a'].sum()  "},
		{"end of text after strip leaves its space", p, " len(df) [end of text] ", lead + "len(df) "},
		{"python whitespace strips", p, "\x1c\u00a0len(df)\x1f\u3000", lead + "len(df)"},
		{"only the text between the second and third return", p, " x # return y", lead + "x #"},
		{"chat reply: fence opener", p, "```python\ndef answer(df):\n    return 1\n```", lead + "```python"},
		{"empty", p, "", lead},
		{"no prompt, two returns", "", "return a return b\nc", lead + "b"},
	}
	for _, tt := range tests {
		got, err := Extract(Baseline, tt.prompt, tt.completion)
		if err != nil || got != tt.want {
			t.Errorf("%s: %q, %v; want %q", tt.name, got, err, tt.want)
		}
	}
	for _, text := range []string{"", "return x", "no word\nhere"} {
		_, err := Extract(Baseline, "", text)
		var e *extractError
		if !errors.As(err, &e) || e.Type != "IndexError" || e.Msg != "list index out of range" {
			t.Errorf("%q: %v, want IndexError list index out of range", text, err)
		}
	}
}

func TestExtractLenient(t *testing.T) {
	p := Prompt("How many?", []string{"a"})
	tests := []struct{ name, prompt, completion, want string }{
		{"continuation of the prompt", p, " len(df)\n\ndef other():\n    return 2", lead + "len(df)"},
		{"the prompt's return written again", p, "    return len(df)\n", lead + "len(df)"},
		{"no continuation without a leading blank", p, "len(df)\nreturn 3", lead + "3"},
		{"fenced def with imports and usage", "", "Code:\n```python\nimport numpy as np\nfrom math import floor\n\ndef answer(df):\n    # comment\n\n    return floor(1.5)\n\nprint(answer(df))\n```",
			"import numpy as np\nfrom math import floor\ndef answer(df):\n    # comment\n\n    return floor(1.5)"},
		{"indented def", "", "    def answer(df: pd.DataFrame) -> int:\n        return 1\n    x = 2", "def answer(df: pd.DataFrame) -> int:\n    return 1"},
		{"first non-empty fence", "", "```\n```\n```py\nreturn 1\n```\n```py\nreturn 2\n```", lead + "1"},
		{"unclosed fence", "", "```python\nreturn df.a\n", lead + "df.a"},
		{"block with returns is the body", "", "```python\n  s = df.a\n  if s.empty:\n      return 0\n  return s.sum()\n\n  print(1)\n```",
			"def answer(df):\n    s = df.a\n    if s.empty:\n        return 0\n    return s.sum()\n\n    print(1)"},
		{"return over lines", "", "```python\nreturn (df.a\n        .sum())\n```", "def answer(df):\n    return (df.a\n            .sum())"},
		{"nested returns only", "", "```python\nfor x in df.a:\n    return x\n```", "def answer(df):\n    for x in df.a:\n        return x"},
		{"last line is the value", "", "```python\ns = df.a\n\ns.sum()\n```", "def answer(df):\n    s = df.a\n\n    return s.sum()"},
		{"single line fence", "", "```\ndf.a.max()\n```", lead + "df.a.max()"},
		{"inline backticks", "", "`df.a.max()`", lead + "df.a.max()"},
		{"prose then return", "", "We count rows.\n  return len(df)  \nDone.", lead + "len(df)"},
		{"bare first line", "", "\n\ndf.a.max()\nexplanation", lead + "df.a.max()"},
		{"end of text and CRLF", "", "```python\r\nreturn 1[end of text]\r\n```", lead + "1"},
		{"returned is a word, not the keyword", "", "returned = 1", lead + "returned = 1"},
	}
	for _, tt := range tests {
		got, err := Extract(Lenient, tt.prompt, tt.completion)
		if err != nil || got != tt.want {
			t.Errorf("%s:\n got %q, %v\nwant %q", tt.name, got, err, tt.want)
		}
	}
	for _, text := range []string{"", "  \n\t\n", "```python\n```", "[end of text]"} {
		var e *extractError
		if _, err := Extract(Lenient, "", text); !errors.As(err, &e) || e.Type != "ExtractError" {
			t.Errorf("%q: %v, want an ExtractError", text, err)
		}
	}
}

func TestParseRule(t *testing.T) {
	for in, want := range map[string]Rule{"": Baseline, "baseline": Baseline, "lenient": Lenient} {
		if got, err := ParseRule(in); err != nil || got != want {
			t.Errorf("%q: %q, %v", in, got, err)
		}
	}
	if _, err := ParseRule("strict"); err == nil {
		t.Error("strict accepted")
	}
	if _, err := Extract("strict", "", "return 1"); err == nil {
		t.Error("unknown rule extracted")
	}
}
