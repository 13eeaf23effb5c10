package evalmdcmd

import (
	"crypto/sha256"
	"encoding/hex"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// Every file any command creates or rewrites goes through the one writer,
// which never follows a link: each command is run once in a folder to
// learn what it writes (its outputs, their .md, the run's journal and
// state, the records, reports, charts, converted sheets), then, for each
// such file and each folder it made, again from the same start with that
// one name a dangling symbolic link out of the folder (a downloaded
// repository's output-evil-m-1234.md -> /etc/cron.d/evil). Nothing may
// be created where any link leads, and every link must still be one.
func TestNoWriteThroughLinks(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2000, Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Status: 400, Message: "refused"} // failed questions keep the run's journal
	}})
	root := t.TempDir()
	work := filepath.Join(root, "work")
	outside := filepath.Join(root, "outside")
	template := filepath.Join(root, "template")
	if _, stderr, code := evalmd(t, testEnv("", nil), "init", filepath.Join(template, "evals")); code != 0 {
		t.Fatalf("init: %s", stderr)
	}
	if _, stderr, code := evalmd(t, testEnv("", nil), "run", "-d", filepath.Join(template, "evals"), "-m", "mock,random", "-u", "0",
		"-o", filepath.Join(template, "results")); code != 0 {
		t.Fatalf("run: %s", stderr)
	}
	writeDABench(t, filepath.Join(template, "dab"))
	w := func(p ...string) string { return filepath.Join(append([]string{work}, p...)...) }
	sheet := w("evals", "input-first-steps.md")
	for _, tc := range []struct {
		name string
		args []string
		prep func() // after each reset
	}{
		{"init", []string{"init", w("new")}, nil},
		{"run", []string{"run", "-d", w("evals"), "-m", "mock", "-u", "0"}, nil},
		{"run -o, failed questions", []string{"run", "-d", w("evals"), "-m", "openai-api/x/m", "--base-url", srv.URL, "-u", "0", "-o", w("out")}, nil},
		{"run -y", []string{"run", "-y", "-f", sheet, "-m", "mock", "-o", w("out")}, nil},
		{"run -y --batch", []string{"run", "-y", "--batch", "-f", sheet, "-m", "openai/gpt-4o", "--base-url", srv.URL, "-o", w("out")}, nil},
		{"run --log-dir --cache", []string{"run", "-f", sheet, "-m", "mock", "-o", w("out"), "--log-dir", w("logs"), "--cache", w("cache")}, nil},
		{"grade -w", []string{"grade", "-w", "-o", w("results")}, nil},
		{"grade -w, no .md", []string{"grade", "-w", "-o", w("results")}, func() {
			mds, _ := filepath.Glob(w("results", "output-*.md"))
			for _, p := range mds {
				os.Remove(p)
			}
		}},
		{"render -w", []string{"render", "-w", w("results")}, func() {
			mds, _ := filepath.Glob(w("results", "*.md"))
			for _, p := range mds {
				os.Remove(p)
			}
		}},
		{"agg -o -charts", []string{"agg", "-i", w("results"), "-o", w("report.md"), "-charts"}, nil},
		{"agg --log-dir", []string{"agg", "-i", w("results"), "--log-dir", w("logs")}, nil},
		{"agg -html", []string{"agg", "-i", w("results"), "-html", w("report.html")}, nil},
		{"agg -xlsx", []string{"agg", "-i", w("results"), "-xlsx", w("report.xlsx")}, nil},
		{"convert dabench", []string{"convert", "dabench", "-i", w("dab"), "-o", w("sheets")}, nil},
		{"convert xlsx", []string{"convert", "xlsx", "-i", sheet, "-o", w("q.xlsx")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reset := func() {
				for _, d := range []string{work, outside} {
					if err := os.RemoveAll(d); err != nil {
						t.Fatal(err)
					}
				}
				copyTree(t, template, work)
				os.Mkdir(outside, 0o755)
				if tc.prep != nil {
					tc.prep()
				}
			}
			reset()
			before := snapshot(t, work)
			env := testEnv("", map[string]string{"OPENAI_API_KEY": "sk-test"})
			_, stderr, _ := evalmd(t, env, tc.args...)
			targets := written(before, snapshot(t, work))
			if len(targets) == 0 {
				t.Fatalf("%v wrote nothing to learn from: %s", tc.args, stderr)
			}
			for _, rel := range targets {
				reset()
				link := filepath.Join(work, rel)
				dest := filepath.Join(outside, strings.ReplaceAll(rel, string(filepath.Separator), "_"))
				os.RemoveAll(link)
				os.MkdirAll(filepath.Dir(link), 0o755)
				if err := os.Symlink(dest, link); err != nil {
					t.Skip("no symbolic links here:", err)
				}
				_, stderr, _ := evalmd(t, env, tc.args...)
				if made := snapshot(t, outside); len(made) > 0 {
					t.Errorf("with %s a link: created %v outside the folder\n%s", rel, slices.Sorted(maps.Keys(made)), stderr)
				}
				if fi, err := os.Lstat(link); err != nil || fi.Mode()&fs.ModeSymlink == 0 {
					t.Errorf("with %s a link: the link was replaced (%v)", rel, err)
				}
			}
			t.Logf("%d names tried: %s", len(targets), strings.Join(targets, " "))
		})
	}
}

// snapshot is what the tree at root holds: each file's sum, each
// folder's and link's kind, by path relative to root.
func snapshot(t *testing.T, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == root {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		switch {
		case d.IsDir():
			out[rel] = "dir"
		case d.Type()&fs.ModeSymlink != 0:
			out[rel] = "link"
		default:
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			s := sha256.Sum256(data)
			out[rel] = hex.EncodeToString(s[:])
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// written are the files a command created or changed and the topmost
// folders it made, between two snapshots.
func written(before, after map[string]string) []string {
	var out []string
	for rel, now := range after {
		if before[rel] == now {
			continue
		}
		if parent := filepath.Dir(rel); parent != "." && after[parent] == "dir" && before[parent] == "" {
			if now == "dir" {
				continue // inside a folder it made: that folder is tried
			}
		}
		out = append(out, rel)
	}
	slices.Sort(out)
	return out
}

// copyTree copies the regular files and folders below src to dst.
func copyTree(t *testing.T, src, dst string) {
	t.Helper()
	err := filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		to := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(to, data, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
}

// writeDABench writes a DABench data folder of two questions on one table.
func writeDABench(t *testing.T, dir string) {
	t.Helper()
	os.MkdirAll(filepath.Join(dir, "da-dev-tables"), 0o755)
	for name, data := range map[string]string{
		"da-dev-tables/a.csv":    "x\n1\n",
		"da-dev-questions.jsonl": `{"id": 1, "question": "q1", "file_name": "a.csv"}` + "\n" + `{"id": 2, "question": "q2", "file_name": "a.csv"}` + "\n",
		"da-dev-labels.jsonl":    `{"id": 1, "common_answers": [["x", "1"]]}` + "\n" + `{"id": 2, "common_answers": [["x", "1"]]}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
