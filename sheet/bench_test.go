package sheet

import (
	"fmt"
	"strings"
	"testing"
)

// genSheet builds a sheet of n questions of about 1 KB each.
func genSheet(n int) []byte {
	var b strings.Builder
	b.WriteString("# Generated\n#### meta\n- grader: choice\n- answer type: multiple-choice\n#### question\nAnswer with one letter.\n<EVAL-ENDCHAR>\n\n")
	body := strings.Repeat("Some context about the question that makes it longer. ", 15)
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "## Q-%d\n#### meta\n- id: %d\n- level: easy\n#### answer\nB) %d<EVAL-ENDCHAR>\n#### question\n%s\nWhich is right?\nA) %d\nB) %d\nC) %d\nD) none\n<EVAL-ENDCHAR>\n\n", i, i, i, body, i-1, i, i+1)
	}
	return []byte(b.String())
}

// BenchmarkParse parses a ~10 MB sheet of 10,000 questions and resolves
// every question (what run -y does before writing).
func BenchmarkParse(b *testing.B) {
	data := genSheet(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		doc, err := Parse("gen.md", data, nil)
		if err != nil {
			b.Fatal(err)
		}
		_, items := doc.Resolve()
		if len(items) != 10000 {
			b.Fatalf("%d items", len(items))
		}
	}
}
