package setting_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/sheet"
)

// No meta key of LIME's real sheets, nor of the project's own, draws the
// unknown-key warning: each is a setting, a key some package reads,
// LIME's data (answer_suggested_length...) or a benchmark's declared data.
func TestRealSheetsHaveNoUnknownKeys(t *testing.T) {
	set, err := benchmarks.Set()
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for _, root := range []string{shared.Path(t, "corpora", "lime"), filepath.Join("..", "..", "sheets")} {
		err := filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".md") && strings.HasPrefix(d.Name(), "input") {
				paths = append(paths, p)
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(paths) < 10 {
		t.Fatalf("only %d sheets found", len(paths))
	}
	keys := 0
	for _, p := range paths {
		doc, err := sheet.ParseFile(p, nil)
		if err != nil {
			t.Fatal(err)
		}
		info, items := doc.Resolve()
		warnings := setting.NewKeyChecker(set.MetaKeys).Check(p, info.Meta, info.MetaLines)
		keys += len(info.Meta)
		for i := range items {
			warnings = append(warnings, setting.NewKeyChecker(set.MetaKeys).Check(p, items[i].Meta, items[i].MetaLines)...)
			keys += len(items[i].Meta)
		}
		for _, w := range warnings {
			t.Errorf("%s", w)
		}
	}
	t.Logf("%d sheets, %d meta keys", len(paths), keys)
}
