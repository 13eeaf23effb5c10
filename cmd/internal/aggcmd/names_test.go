package aggcmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/agg/gate"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/result"
)

// Names a stranger's results folder may hold, for the gate's comment,
// the step summary, the HTML report and the terminal.
const (
	evilSheet = "![x](data:image/png;base64,iVBORw0KGgo=) \x1b]0;pwned\x07"
	evilModel = "[docs](https://evil.example/login) **bold** <img src=x onerror=alert(1)> @octocat \x1b[31mred\x1b[0m gpt-4o\u202e1-"
)

// evilQuestion is question i's name: it closes the comment's details, holds
// the gate's marker and a mention.
func evilQuestion(i int) string {
	return "Q" + itoa(i) + " </details> <!-- evalmd gate --> @octocat \u202e"
}

// writeEvilRun writes a run of evilModel on evilSheet into dir, its
// questions evilQuestion(1..n), those in wrong graded wrong.
func writeEvilRun(t *testing.T, dir, runID string, n int, wrong ...int) {
	t.Helper()
	f := &result.File{Sheet: result.Sheet{Name: evilSheet, RunID: runID, ModelName: evilModel}}
	for i := 1; i <= n; i++ {
		g := true
		for _, w := range wrong {
			g = g && w != i
		}
		truth, c := "T", "answer"
		f.Questions = append(f.Questions, result.Question{Name: evilQuestion(i), GroundTruth: &truth, Completion: &c, Grade: &g})
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := f.Write(filepath.Join(dir, result.FileName("input-s.md", evilModel, runID)), outfile.Options{}); err != nil {
		t.Fatal(err)
	}
}

// The gate on runs whose names hold markdown, HTML, mentions, the gate's
// own marker and terminal escapes: the comment and the step summary hold
// the marker once and the names as text (no tag, no link, no mention, no
// control character); the HTML report makes no link, image or bold of
// them; stderr and the exit's error show the escapes, never obey them.
func TestGateHostileNames(t *testing.T) {
	dir := t.TempDir()
	base, cur := filepath.Join(dir, "base"), filepath.Join(dir, "cur")
	writeEvilRun(t, base, "r1", 20)
	writeEvilRun(t, cur, "r2", 20, 1, 2, 3, 4, 5, 6, 7, 8)
	summary, comment, page := filepath.Join(dir, "summary.md"), filepath.Join(dir, "comment.md"), filepath.Join(dir, "report.html")
	env := map[string]string{"GITHUB_STEP_SUMMARY": summary}
	var stdout, stderr bytes.Buffer
	cmd := Command(config.Lookup{}, func(io.Writer) bool { return false }, func(k string) string { return env[k] })
	args := []string{"-i", cur, "--baseline", base, "--fail-on", "regression", "--comment", comment, "-html", page}
	if code := cli.Report(&stderr, "agg", cli.Execute(context.Background(), &stdout, &stderr, cmd, args)); code != 4 {
		t.Fatalf("exit %d, want 4\n%s", code, stderr.String())
	}
	for _, p := range []string{comment, summary} {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		md := string(b)
		if n := strings.Count(md, gate.Marker); n != 1 || !strings.HasPrefix(md, gate.Marker) {
			t.Errorf("%s: the gate's marker %d times, want once, first", p, n)
		}
		for _, bad := range []string{"<img", "</details>", "@octocat", "](https://", "**bold**", "\x1b", "\x07", "\u202e"} {
			if strings.Contains(md, bad) {
				t.Errorf("%s holds %q:\n%s", p, bad, md)
			}
		}
		for _, want := range []string{`\*\*bold\*\*`, `\x1b[31mred\x1b[0m`, `gpt-4o\u202e1-`, "@\u2060octocat", "&lt;/details>"} {
			if !strings.Contains(md, want) {
				t.Errorf("%s lacks %q:\n%s", p, want, md)
			}
		}
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	if m := regexp.MustCompile(`<a href="https://evil|<img src="data:image/png|<strong>bold</strong>`).Find(html); m != nil {
		t.Errorf("the HTML report made markup of a name: %s", m)
	}
	if strings.ContainsAny(stderr.String(), "\x1b\x07\u202e") {
		t.Errorf("stderr obeys a name's escapes:\n%q", stderr.String())
	}
	for _, want := range []string{"agg: " + `[docs](https://evil.example/login) **bold** <img src=x onerror=alert(1)> @octocat \x1b[31mred\x1b[0m gpt-4o\u202e1-: regression`,
		"agg: gate failed: [docs]"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
		}
	}
}

// agg laid out for the terminal, and its warnings naming files, show a
// name's escapes instead of sending them to the terminal.
func TestScreenHostileNames(t *testing.T) {
	dir := t.TempDir()
	writeEvilRun(t, dir, "r1", 3, 1)
	bad := filepath.Join(dir, "output-\x1b]0;pwned\x07.json")
	if err := os.WriteFile(bad, []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	cmd := Command(config.Lookup{}, func(io.Writer) bool { return true }, noEnv)
	cli.Report(&stderr, "agg", cli.Execute(context.Background(), &stdout, &stderr, cmd, []string{"-i", dir}))
	for what, s := range map[string]string{"stdout": stdout.String(), "stderr": stderr.String()} {
		if strings.ContainsAny(s, "\x1b\x07\u202e") {
			t.Errorf("%s obeys a name's escapes:\n%q", what, s)
		}
	}
	if !strings.Contains(stdout.String(), `gpt-4o\u202e1-`) || !strings.Contains(stderr.String(), `output-\x1b]0;pwned\x07.json`) {
		t.Errorf("escapes not shown\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
	}
}
