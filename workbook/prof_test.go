package workbook

import (
	"github.com/evalmd/evalmd/internal/shared"
	"os"
	"path/filepath"
	"testing"
)

func BenchmarkCorpusAll(b *testing.B) {
	dir := shared.Path(b, "corpora", "workbooks", "files")
	es, _ := os.ReadDir(dir)
	for b.Loop() {
		for _, e := range es {
			if _, err := Render(filepath.Join(dir, e.Name())); err != nil {
				b.Fatal(err)
			}
		}
	}
}
