package convertcmd

import (
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
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

// No file a converter reads leaves its input folder: a dataset whose
// introduction, question, data.json, questions, labels, QA table or
// answers file is a link to a file of the user's elsewhere is refused in
// one line naming the link and where it leads, and nothing of that file
// reaches the output or the messages (the secret's own text, or a value
// of it a parse error would quote).
func TestConvertReadsNothingOutOfInput(t *testing.T) {
	const dsbLine = `{"id": "c1", "name": "n", "url": "u", "year": 2024, "questions": ["question1"], "answers": ["A"]}` + "\n"
	dsbench := func(dir string) {
		os.MkdirAll(filepath.Join(dir, "data", "c1"), 0o755)
		os.WriteFile(filepath.Join(dir, "data.json"), []byte(dsbLine), 0o644)
		os.WriteFile(filepath.Join(dir, "data", "c1", "introduction.txt"), []byte("intro\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "data", "c1", "question1.txt"), []byte("q?\n"), 0o644)
	}
	dabench := func(dir string) {
		os.MkdirAll(filepath.Join(dir, "da-dev-tables"), 0o755)
		os.WriteFile(filepath.Join(dir, "da-dev-tables", "t.csv"), []byte("x\n1\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "da-dev-questions.jsonl"), []byte(`{"id": 1, "question": "q1", "file_name": "t.csv"}`+"\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "da-dev-labels.jsonl"), []byte(`{"id": 1, "common_answers": [["x", "1"]]}`+"\n"), 0o644)
	}
	databench := func(dir string) {
		os.WriteFile(filepath.Join(dir, "qa.csv"), []byte("question,dataset\nq0,d1\n"), 0o644)
		os.WriteFile(filepath.Join(dir, "answers.txt"), []byte("1\n"), 0o644)
	}
	for _, tc := range []struct {
		name   string
		setup  func(dir string)
		link   string // the file of the input that is a link to the secret
		secret string // the secret's text
		args   func(dir string) []string
	}{
		{"dsbench introduction", dsbench, "data/c1/introduction.txt", "hunter2\n", nil},
		{"dsbench question", dsbench, "data/c1/question1.txt", "hunter2\n", nil},
		// A parse error would quote the id it read.
		{"dsbench data.json", dsbench, "data.json", `{"id": "hunter2"}` + "\n", nil},
		{"dabench questions", dabench, "da-dev-questions.jsonl", `{"id": 1, "question": "hunter2", "file_name": "t.csv"}` + "\n", nil},
		{"dabench labels", dabench, "da-dev-labels.jsonl", `{"id": 1, "common_answers": [["x", "hunter2"]]}` + "\n", nil},
		{"databench QA table", databench, "qa.csv", "question,dataset\nhunter2,d1\n", func(dir string) []string {
			return []string{"-i", filepath.Join(dir, "qa.csv"), "-mode", "chat"}
		}},
		{"databench answers", databench, "answers.txt", "hunter2\n", func(dir string) []string {
			return []string{"-i", filepath.Join(dir, "qa.csv"), "-answers", filepath.Join(dir, "answers.txt"), "-mode", "chat"}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			secret := filepath.Join(t.TempDir(), "secret")
			os.WriteFile(secret, []byte(tc.secret), 0o600)
			in := filepath.Join(t.TempDir(), "in")
			os.MkdirAll(in, 0o755)
			tc.setup(in)
			link := filepath.Join(in, filepath.FromSlash(tc.link))
			os.Remove(link)
			if err := os.Symlink(secret, link); err != nil {
				t.Skip("no symbolic links here:", err)
			}
			bench, _, _ := strings.Cut(tc.name, " ")
			args := []string{"-i", in}
			if tc.args != nil {
				args = tc.args(in)
			}
			out := t.TempDir()
			var stderr bytes.Buffer
			err := convert(context.Background(), &stderr, &stderr, append(append([]string{bench}, args...), "-o", out))
			msg := stderr.String()
			if err == nil {
				t.Errorf("exit 0\n%s", msg)
			}
			if !strings.Contains(msg, link+" leads to "+secret) {
				t.Errorf("stderr does not name the link and where it leads:\n%s", msg)
			}
			if strings.Contains(msg, "hunter2") {
				t.Errorf("stderr quotes the secret:\n%s", msg)
			}
			filepath.WalkDir(out, func(p string, d fs.DirEntry, err error) error {
				if err != nil || d.IsDir() {
					return err
				}
				if data, _ := os.ReadFile(p); strings.Contains(string(data), "hunter2") {
					t.Errorf("%s holds the secret", p)
				}
				return nil
			})
		})
	}
}

// A name a dataset gives is a name: a DataBench dataset
// "../../../x/in/data/X", which leads from the tables folder back into it
// and from -o up to its ancestors, is refused in one line naming the QA
// table's line and the value, its row skipped; nothing is written outside
// -o, and convert does not ask for --data-root on a folder above it.
func TestConvertWritesOnlyBelowOut(t *testing.T) {
	type col struct {
		A int64 `parquet:"a"`
	}
	for _, mode := range []string{"chat", "code"} {
		t.Run(mode, func(t *testing.T) {
			scratch := t.TempDir()
			in := filepath.Join(scratch, "x", "in")
			table := filepath.Join(in, "data", "X", "all.parquet")
			os.MkdirAll(filepath.Dir(table), 0o755)
			f, err := os.Create(table)
			if err != nil {
				t.Fatal(err)
			}
			w := parquet.NewGenericWriter[col](f)
			w.Write([]col{{1}})
			w.Close()
			f.Close()
			qa := filepath.Join(in, "qa.csv")
			os.WriteFile(qa, []byte("question,dataset\nq0,../../../x/in/data/X\n"), 0o644)
			out := filepath.Join(scratch, "o", "p", "q")
			var stderr bytes.Buffer
			err = convert(context.Background(), &stderr, &stderr, []string{"databench", "-i", qa, "-mode", mode, "-o", out})
			msg := stderr.String()
			if err == nil {
				t.Errorf("exit 0\n%s", msg)
			}
			if !strings.Contains(msg, qa+`:2: row 0: dataset "../../../x/in/data/X"`) || strings.Contains(msg, "--data-root") {
				t.Errorf("stderr:\n%s", msg)
			}
			filepath.WalkDir(scratch, func(p string, d fs.DirEntry, err error) error {
				if err == nil && !d.IsDir() && p != table && p != qa && !strings.HasPrefix(p, out+string(filepath.Separator)) {
					t.Errorf("%s written outside -o", p)
				}
				return err
			})
		})
	}
}
