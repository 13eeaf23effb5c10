package aggcmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// agg on LIME's real results starts with LIME's own tables, and --log-dir
// writes one Inspect log per output file.
func TestAggLIMEAndLogs(t *testing.T) {
	dir := shared.Path(t, "corpora", "lime", "results")
	logs := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir, "-o", "-", "--log-dir", logs}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	want, err := os.ReadFile(shared.Path(t, "reference", "lime", "agg", "agg-reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(stdout.String(), string(want)) {
		t.Error("the report does not start with LIME's reference tables")
	}
	// LIME's folder mixes versions of its sheets (two gpt-3.5-turbo runs
	// of JSON-state-reasoning-1 hold 10 and 9 questions): counted together,
	// as LIME's agg, and said, naming them and the flag.
	for _, want := range []string{"agg: sheet JSON-state-reasoning-1: its runs answer 5 versions of its questions, counted together as LIME's agg does: ",
		"output-json-state-1-gpt-3.5-turbo-5d4a.json", "output-json-state-1-gpt-3.5-turbo-f14f.json", "--latest-version counts only the newest\n"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("agg does not say %q:\n%s", want, stderr.String())
		}
	}
	got, _ := filepath.Glob(filepath.Join(logs, "*.eval"))
	if len(got) != 26 {
		t.Errorf("%d Inspect logs, want 26\n%s", len(got), stderr.String())
	}
}

func TestUsage(t *testing.T) {
	for _, args := range [][]string{nil, {"-i", "a", "b"}, {"-i", filepath.Join(t.TempDir(), "missing")}} {
		var b bytes.Buffer
		if err := aggregate(context.Background(), &b, &b, args); err == nil {
			t.Errorf("agg %q succeeded", args)
		}
	}
}

// -i takes a glob pattern of output files, as LIME's agg does: only the
// files it matches are read, without recursion.
func TestAggGlob(t *testing.T) {
	src := shared.Path(t, "corpora", "lime", "results")
	dir := t.TempDir()
	names, _ := filepath.Glob(filepath.Join(src, "output-*.json"))
	for _, p := range names {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A copy in a subfolder is found by a folder's walk, not by the glob.
	if err := os.Mkdir(filepath.Join(dir, "old"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "old", filepath.Base(names[0])), []byte("{"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", filepath.Join(dir, "*gpt-4*"), "-v"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	board := strings.SplitN(stdout.String(), "### Runs", 2)[0]
	if n := strings.Count(board, "| gpt-4 "); n != 6 || strings.Contains(board, "gpt-3.5") || strings.Contains(board, "mistral") {
		t.Errorf("the glob's leaderboard has %d gpt-4 rows (want 6) or other models:\n%s", n, board)
	}
	if strings.Contains(stderr.String(), "skipping") {
		t.Errorf("the glob read the subfolder:\n%s", stderr.String())
	}
	err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", filepath.Join(dir, "*claude*"), "-o", "-"})
	if err == nil || !strings.Contains(err.Error(), "no file matches") {
		t.Errorf("a pattern matching nothing: %v", err)
	}
}

// Without -o, the report is printed (it went into the folder as
// agg-XXXX.md without a word) and nothing is written; with -o FILE, -html,
// -xlsx and -charts, stderr names each file written, with or without -v.
func TestAggPrintsAndNamesFiles(t *testing.T) {
	src := filepath.Join("..", "..", "..", "agg", "testdata", "reports")
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
		t.Fatal(err)
	}
	var stdout, stderr bytes.Buffer
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "### Leaderboard") || !strings.Contains(stdout.String(), "|:--") {
		t.Errorf("agg -i DIR printed no markdown leaderboard:\n%.300s", stdout.String())
	}
	if written, _ := filepath.Glob(filepath.Join(dir, "agg-*")); len(written) != 0 || strings.Contains(stderr.String(), "wrote") {
		t.Errorf("agg -i DIR wrote %v (stderr %q)", written, stderr.String())
	}
	out := t.TempDir()
	stdout.Reset()
	stderr.Reset()
	md, html, xlsx := filepath.Join(out, "board.md"), filepath.Join(out, "r.html"), filepath.Join(out, "r.xlsx")
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir, "-o", md, "-charts", "-html", html, "-xlsx", xlsx}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, p := range []string{md, filepath.Join(out, "board-leaderboard.svg"), html, xlsx} {
		if !strings.Contains(stderr.String(), "wrote "+p+"\n") {
			t.Errorf("stderr does not name %s:\n%s", p, stderr.String())
		}
		if _, err := os.Stat(p); err != nil {
			t.Error(err)
		}
	}
	if stdout.Len() != 0 {
		t.Errorf("agg -o FILE printed %q", stdout.String())
	}
}

// With no -o (or -o -), a terminal gets the tables laid out for the screen
// (LIME's --terminal), a pipe gets markdown; --md and --terminal decide.
func TestAggTerminal(t *testing.T) {
	dir := filepath.Join("..", "..", "..", "agg", "testdata", "reports")
	for _, tc := range []struct {
		terminal bool
		args     []string
		boxed    bool
	}{
		{true, nil, true},
		{false, nil, false},
		{true, []string{"--md"}, false},
		{false, []string{"--terminal"}, true},
		{true, []string{"--completions"}, true},
		{false, []string{"--discrepancies-full"}, false},
	} {
		var stdout, stderr bytes.Buffer
		cmd := Command(config.Lookup{}, func(io.Writer) bool { return tc.terminal }, noEnv)
		args := append([]string{"-i", dir}, tc.args...)
		if err := cli.Execute(context.Background(), &stdout, &stderr, cmd, args); err != nil {
			t.Fatalf("agg %q: %v\n%s", args, err, stderr.String())
		}
		out := stdout.String()
		boxed := strings.Contains(out, "┌")
		markdown := strings.Contains(out, "|:--")
		if boxed != tc.boxed || markdown == tc.boxed {
			t.Errorf("agg %q on a terminal=%v: boxed %v, markdown %v; want boxed %v", args, tc.terminal, boxed, markdown, tc.boxed)
		}
		if strings.Contains(strings.Join(tc.args, " "), "completions") && !strings.Contains(out, "full Completions") {
			t.Errorf("agg %q did not write the completions report", args)
		}
		if strings.Contains(strings.Join(tc.args, " "), "completions") && strings.Contains(out, "Leaderboard") {
			t.Errorf("agg %q wrote the default report beside the completions", args)
		}
	}
}

// --reducer picks how a model's answers to one question become its score
// in the models table (LIME's results hold repeated runs of gpt-3.5-turbo);
// a reducer agg does not know is refused naming the known ones.
func TestAggReducer(t *testing.T) {
	dir := shared.Path(t, "corpora", "lime", "results")
	var stdout, stderr bytes.Buffer
	if err := aggregate(context.Background(), &stdout, &stderr, []string{"-i", dir, "-o", "-", "--md", "--reducer", "majority"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "| accuracy (majority) |") || !strings.Contains(stdout.String(), "reduced to one score by majority") {
		t.Errorf("the models table is not by majority:\n%s", stdout.String())
	}
	stdout.Reset()
	err := aggregate(context.Background(), &stdout, &stdout, []string{"-i", dir, "--reducer", "median"})
	if err == nil || !strings.Contains(err.Error(), "--reducer") || !strings.Contains(err.Error(), "pass@K") {
		t.Errorf("--reducer median: %v", err)
	}
}
