package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"

	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/tokens"
)

// A dry run (for a model, so prompts are cut to its context) of a sheet
// whose template renders tables: a CSV and a parquet
// file as pandas prints them, table_rows and table_format from the
// question's meta else the sheet's, and the message cut to the context the
// sheet's meta gives (DSBench's keep-last rule) for a question without meta.
func TestDryRunTables(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "scores.csv"), []byte("name,score\nann,2.5\nbob,\ncy,10\n"), 0o644)
	type row struct {
		ID    int64  `parquet:"id"`
		Count *int64 `parquet:"count,optional"`
		Tag   string `parquet:"tag"`
	}
	var pq bytes.Buffer
	w := parquet.NewGenericWriter[row](&pq)
	three := int64(3)
	if _, err := w.Write([]row{{1, &three, "a"}, {2, nil, "b"}, {3, &three, "c"}}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "data.parquet"), pq.Bytes(), 0o644)
	sheet := `# Tables
#### meta
- table_rows: 2
- truncate: keep-last
- context_limit: 6012
- encoding: cl100k_base
#### files
- scores.csv
- data.parquet
#### templates
Scores:
{{.Table "scores.csv"}}
Data:
{{.Table "data.parquet"}}
{{.Question}}<EVAL-ENDCHAR>
## Cut to the context
#### question
Who scored most?<EVAL-ENDCHAR>
#### answer
cy<EVAL-ENDCHAR>
## Whole
#### meta
- truncate: none
- table_rows: all
#### question
Who scored most?<EVAL-ENDCHAR>
#### answer
cy<EVAL-ENDCHAR>
## Markdown
#### meta
- truncate: none
- table_format: markdown
#### question
Which tag?<EVAL-ENDCHAR>
#### answer
a<EVAL-ENDCHAR>
`
	path := filepath.Join(dir, "input-tables.md")
	os.WriteFile(path, []byte(sheet), 0o644)
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-y", "-m", "gpt-3.5-turbo", "-f", path, "-o", out, "-u", "0"}); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	f, err := result.Read(filepath.Join(out, result.FileName(path, "gpt-3.5-turbo", "")))
	if err != nil {
		t.Fatal(err)
	}
	whole := "Scores:\nname  score\n ann    2.5\n bob    NaN\n  cy   10.0\n" +
		"Data:\n id  count tag\n  1    3.0   a\n  2    NaN   b\n  3    3.0   c\nWho scored most?"
	markdown := "Scores:\n| name | score |\n| --- | --- |\n| ann | 2.5 |\n| bob |  |\n\n" +
		"Data:\n| id | count | tag |\n| --- | --- | --- |\n| 1 | 3.0 | a |\n| 2 |  | b |\n\nWhich tag?"
	// The first question sees two rows, then keeps its last 12 tokens.
	cut, err := tokens.CutRule("Scores:\nname  score\n ann    2.5\n bob    NaN\nData:\n id  count tag\n  1    3.0   a\n  2    NaN   b\nWho scored most?",
		tokens.Rule{Truncate: "keep-last", ContextLimit: 6012, Encoding: "cl100k_base"}, tokens.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Questions) != 3 {
		t.Fatalf("%d questions", len(f.Questions))
	}
	for i, want := range []string{cut, whole, markdown} {
		if got := f.Questions[i].Question; got != want {
			t.Errorf("%s:\n%q\nwant\n%q", f.Questions[i].Name, got, want)
		}
	}
	if !strings.HasSuffix(f.Questions[0].Question, "Who scored most?") || len(f.Questions[0].Question) >= 60 {
		t.Errorf("not cut to 12 tokens: %q", f.Questions[0].Question)
	}
	if f.Questions[0].MetaData != nil {
		t.Errorf("a question without meta recorded meta %v (LIME records none)", f.Questions[0].MetaData)
	}
}
