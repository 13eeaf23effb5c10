package workbook

import (
	"context"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// pandasCSV is what pandas itself writes for every sheet of the workbooks:
// {file: [[sheet, csv], ...]}.
const pandasCSV = `
import json, sys, pandas as pd
out = {}
for path in sys.argv[1:]:
    xls = pd.ExcelFile(path)
    out[path] = [[name, xls.parse(name).to_csv(index=False)] for name in xls.sheet_names]
json.dump(out, sys.stdout)
`

// TestCSVMatchesPandas compares CSV with DataFrame.to_csv(index=False) of
// pandas' read_excel on the real .xlsx and .xlsm workbooks of the corpus
// (pandas reads .xlsb only with pyxlsb, which Debian lacks). It needs
// Debian's python3-pandas and python3-openpyxl.
func TestCSVMatchesPandas(t *testing.T) {
	dir := shared.Path(t, "corpora", "workbooks", "files")
	var files []string
	for _, ext := range []string{"*.xlsx", "*.xlsm"} {
		m, _ := filepath.Glob(filepath.Join(dir, ext))
		files = append(files, m...)
	}
	if len(files) == 0 {
		shared.Missing(t, "no workbooks in "+dir)
	}
	if err := exec.Command("/usr/bin/python3", "-c", "import pandas, openpyxl").Run(); err != nil {
		shared.Missing(t, "pandas and openpyxl for /usr/bin/python3 (apt-get install python3-pandas python3-openpyxl)")
	}
	out, err := exec.Command("/usr/bin/python3", append([]string{"-c", pandasCSV}, files...)...).Output()
	if err != nil {
		t.Fatal(err)
	}
	var want map[string][][2]string
	if err := json.Unmarshal(out, &want); err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, f := range files {
		var got [][2]string
		err := CSV(context.Background(), f, Options{}, func(sheet string, csv []byte) error {
			got = append(got, [2]string{sheet, string(csv)})
			return nil
		})
		if err != nil {
			t.Errorf("%s: %v", filepath.Base(f), err)
			continue
		}
		w := want[f]
		if len(got) != len(w) {
			t.Errorf("%s: %d sheets, pandas %d", filepath.Base(f), len(got), len(w))
			continue
		}
		for i := range w {
			if got[i] != w[i] {
				t.Errorf("%s: sheet %q:\n got %.300q\nwant %.300q", filepath.Base(f), w[i][0], got[i][1], w[i][1])
			}
			compared++
		}
	}
	t.Logf("%d sheets of %d workbooks equal pandas' to_csv", compared, len(files))
	if compared == 0 {
		t.Fatal("no sheet compared")
	}
}
