package convertcmd

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// convert never brings a file from outside its input into the output: a
// dataset's table that is a link to ~/secret.csv is refused, naming the
// link and where it leads, and its sheet skipped, while the other
// table's sheet is written; no file of the output holds the secret (nor
// is a link to it), so run never hands it to the sandbox.
func TestConvertRefusesLinksOutOfInput(t *testing.T) {
	home := t.TempDir()
	secret := filepath.Join(home, "secret.csv")
	os.WriteFile(secret, []byte("password\nhunter2\n"), 0o600)
	dab := filepath.Join(t.TempDir(), "dab")
	os.MkdirAll(filepath.Join(dab, "da-dev-tables"), 0o755)
	os.WriteFile(filepath.Join(dab, "da-dev-tables", "ok.csv"), []byte("x\n1\n"), 0o644)
	link := filepath.Join(dab, "da-dev-tables", "test_ave.csv")
	if err := os.Symlink(secret, link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.WriteFile(filepath.Join(dab, "da-dev-questions.jsonl"), []byte(`{"id": 1, "question": "q1", "file_name": "test_ave.csv"}`+"\n"+
		`{"id": 2, "question": "q2", "file_name": "ok.csv"}`+"\n"), 0o644)
	os.WriteFile(filepath.Join(dab, "da-dev-labels.jsonl"), []byte(`{"id": 1, "common_answers": [["x", "1"]]}`+"\n"+
		`{"id": 2, "common_answers": [["x", "1"]]}`+"\n"), 0o644)
	out := t.TempDir()
	var stderr bytes.Buffer
	convert(context.Background(), &stderr, &stderr, []string{"dabench", "-i", dab, "-o", out})
	if !strings.Contains(stderr.String(), link) || !strings.Contains(stderr.String(), secret) {
		t.Errorf("stderr does not name the link and its target:\n%s", stderr.String())
	}
	if _, err := os.Stat(filepath.Join(out, "input-dabench-ok.md")); err != nil {
		t.Errorf("the other table's sheet was not written: %v\n%s", err, stderr.String())
	}
	filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if data, _ := os.ReadFile(p); strings.Contains(string(data), "hunter2") {
			t.Errorf("%s holds the secret", p)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			t.Errorf("%s is a link", p)
		}
		return nil
	})
}
