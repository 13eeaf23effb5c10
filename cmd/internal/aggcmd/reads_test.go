package aggcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/benchkit"
	"github.com/evalmd/evalmd/result"
)

// agg reads a folder once for every output it writes:
// the markdown with charts, the HTML page, the workbook and the Inspect
// logs together read about the folder's bytes, counted by the kernel
// (/proc/self/io), not three or more times them, as when each report
// loaded the folder again.
func TestAggReadsFolderOnce(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts reads with /proc/self/io")
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "outputs")
	if err := os.Mkdir(in, 0o755); err != nil {
		t.Fatal(err)
	}
	long := strings.Repeat("The answer follows from the second table. ", 60)
	var size int64
	for i := range 12 {
		model := fmt.Sprintf("m%d", i%3)
		f := &result.File{Sheet: result.Sheet{Name: fmt.Sprintf("S%d", i/3), RunID: "r1", ModelName: model}}
		for q := range 40 {
			g := (q+i)%3 != 0
			c := long
			f.Questions = append(f.Questions, result.Question{Name: fmt.Sprintf("q%d", q), Question: long, Completion: &c, ModelName: model, Grade: &g})
		}
		path := filepath.Join(in, result.FileName(fmt.Sprintf("input-s%d.md", i/3), model, "r1"))
		if err := f.Write(path, outfile.Options{}); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	out := filepath.Join(dir, "report")
	args := []string{"-i", in, "-o", out + ".md", "-charts", "-html", out + ".html", "-xlsx", out + ".xlsx", "--log-dir", filepath.Join(dir, "logs")}
	var stdout, stderr bytes.Buffer
	before := benchkit.ReadBytes(t)
	if err := aggregate(context.Background(), &stdout, &stderr, args); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	read := benchkit.ReadBytes(t) - before
	t.Logf("the outputs are %d bytes; agg read %d (%.2f times)", size, read, float64(read)/float64(size))
	if read < size || read > size+size/4 {
		t.Errorf("agg read %d bytes for %d bytes of outputs (%.2f times); want them read once", read, size, float64(read)/float64(size))
	}
	for _, want := range []string{"wrote " + out + ".md", "wrote " + out + ".html", "wrote " + out + ".xlsx", "wrote 12 Inspect logs"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}
