package dataset

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A sheet's few-shot turns and a question's own are a sample's input
// messages before its question; a question without turns or a system
// message stays input text.
func TestDatasetConversation(t *testing.T) {
	dir := t.TempDir()
	sheetPath := filepath.Join(dir, "input-c.md")
	text := "# C\n#### user\n2+2?<EVAL-ENDCHAR>\n#### assistant\n4<EVAL-ENDCHAR>\n## Q\n#### question\n3+3?<EVAL-ENDCHAR>\n"
	if err := os.WriteFile(sheetPath, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	plainPath := filepath.Join(dir, "input-d.md")
	if err := os.WriteFile(plainPath, []byte("# D\n## R\n#### question\n5+5?<EVAL-ENDCHAR>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Write(t.Context(), &buf, []string{sheetPath, plainPath}, Options{}); err != nil {
		t.Fatal(err)
	}
	lines := readDataset(t, buf.Bytes())
	var got []string
	for _, m := range lines[0].Input.Messages {
		got = append(got, m.Role+":"+m.Content.Text)
	}
	if strings.Join(got, "|") != "user:2+2?|assistant:4|user:3+3?" {
		t.Errorf("input %q", got)
	}
	if lines[1].Input.Text != "5+5?" || lines[1].Input.Messages != nil {
		t.Errorf("second sheet's question: input %+v, want the text alone", lines[1].Input)
	}
}
