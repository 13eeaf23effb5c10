package evalmdcmd

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The README evalmd init writes is what a new user follows first: each of
// its offline commands (indented, run "from this folder") works as
// written, in order, and the leaderboard the last shows has every model
// the ones before ran. Commands that need a key, a server or a terminal
// left running (openai/, check, --watch, --serve) are not run.
func TestStarterReadmeRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evals")
	if _, stderr, code := evalmd(t, testEnv("", nil), "init", dir); code != 0 {
		t.Fatalf("evalmd init: exit %d\n%s", code, stderr)
	}
	data, err := os.ReadFile(filepath.Join(dir, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	var ran []string
	var last string
	sc := bufio.NewScanner(strings.NewReader(string(data)))
	for sc.Scan() {
		line, ok := strings.CutPrefix(sc.Text(), "    evalmd ")
		if !ok {
			continue
		}
		line, _, _ = strings.Cut(line, "#")
		args := strings.Fields(line)
		if strings.Contains(line, "openai/") || strings.Contains(line, "--watch") || strings.Contains(line, "--serve") || args[0] == "check" {
			continue
		}
		stdout, stderr, code := evalmd(t, testEnv(dir, nil), args...)
		if code != 0 {
			t.Fatalf("evalmd %s: exit %d\n%s%s", line, code, stdout, stderr)
		}
		ran, last = append(ran, line), stdout
	}
	if len(ran) < 3 || !strings.HasPrefix(ran[len(ran)-1], "agg ") {
		t.Fatalf("ran %q: want the README's runs and then its agg", ran)
	}
	for _, m := range []string{"mock", "oracle", "random"} {
		if !strings.Contains(last, "| "+m+" ") {
			t.Errorf("the leaderboard after %q has no row of %s:\n%s", ran, m, last)
		}
	}
}
