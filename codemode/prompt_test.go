package codemode

import (
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/golden"
)

func TestPromptGolden(t *testing.T) {
	golden.Check(t, "testdata/prompt.golden", []byte(Prompt("Is the person with the highest score called Dan?", []string{"id", "name", "score", "it's \"quoted\"", "café\tx"})))
}

// TestPromptShape checks what the baseline's extraction relies on: the
// prompt has exactly two "return"s, the last at its very end, so the
// completion's first line is what split("return")[2] takes; and a
// question with braces is not read as a placeholder.
func TestPromptShape(t *testing.T) {
	p := Prompt("{columns}? {question}", []string{"a"})
	if n := strings.Count(p, "return"); n != 2 {
		t.Errorf("%d returns in the prompt", n)
	}
	if !strings.HasPrefix(p, "\nYou are a pandas code generator.") || !strings.HasSuffix(p, "\n    return") {
		t.Errorf("prompt begins %q, ends %q", p[:40], p[len(p)-20:])
	}
	if !strings.Contains(p, `"""Returns the answer to the question: {columns}? {question} """`) {
		t.Error("the question was rewritten")
	}
	if strings.Count(p, "    df.columns = ['a']\n") != 2 {
		t.Error("columns not written twice as a Python list")
	}
	if got := Prompt("q", nil); !strings.Contains(got, "df.columns = []\n") {
		t.Error("no columns is not []")
	}
}
