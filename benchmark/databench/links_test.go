package databench

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A dataset's table is read only from below the tables folder: a
// sample.parquet that is a link to a table of the user's elsewhere is
// refused, naming the link and where it leads, and its dataset skipped;
// its column names (which a code-mode prompt lists) reach no sheet.
func TestConvertReadsTablesFromTheirFolderOnly(t *testing.T) {
	type secretRow struct {
		Hunter2 int64 `parquet:"hunter2"`
	}
	type row struct {
		A int64 `parquet:"a"`
	}
	home := t.TempDir()
	secret := filepath.Join(home, "private.parquet")
	writeRows(t, secret, []secretRow{{1}})
	in := t.TempDir()
	qa := writeFile(t, filepath.Join(in, "qa.csv"), "question,dataset\nq0,d1\nq1,d2\n")
	for _, d := range []string{"d1", "d2"} {
		writeRows(t, filepath.Join(in, "data", d, "all.parquet"), []row{{1}})
	}
	link := filepath.Join(in, "data", "d1", "sample.parquet")
	if err := os.Symlink(secret, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	out := t.TempDir()
	written, errs := convert(context.Background(), options{QA: qa, Out: out})
	if len(errs) != 1 || !strings.Contains(errs[0].Error(), link+" leads to "+secret) || strings.Contains(errs[0].Error(), "\n") {
		t.Errorf("errors %v; want one line naming %s and where it leads", errs, link)
	}
	if len(written) != 1 || filepath.Base(written[0]) != "input-databench-d2.md" {
		t.Errorf("written %v; want d2's sheet", written)
	}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, _ := os.ReadFile(p); strings.Contains(string(data), "hunter2") {
			t.Errorf("%s holds the secret table's column", p)
		}
		return nil
	})
}
