package gradecmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/regrade"
)

// grade -o DIR -w in a folder whose .evalmd-written links to a victim's
// file is refused in one line naming the record (--force too: it allows
// replacing files, never writing through a link); the output, its grade
// file and the victim are unchanged.
func TestGradeWriteRefusesLinkedRecord(t *testing.T) {
	src := shared.Path(t, "corpora", "lime", "results", "output-wsu-1-gpt-4-1063.json")
	orig, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	out := filepath.Join(dir, "output-x;echo PWNED;#.json")
	os.WriteFile(out, orig, 0o644)
	victim := filepath.Join(t.TempDir(), ".bashrc")
	os.WriteFile(victim, []byte("# mine\n"), 0o644)
	rec := filepath.Join(dir, ".evalmd-written")
	if err := os.Symlink(victim, rec); err != nil {
		t.Fatal(err)
	}
	for _, force := range []bool{false, true} {
		args := []string{"-w", "-l", "-o", dir}
		if force {
			args = append(args, "--force")
		}
		var b bytes.Buffer
		err := grade(context.Background(), &b, &b, args)
		if err == nil || !strings.Contains(err.Error(), rec+" is not a regular file") || strings.Contains(err.Error(), "\n") {
			t.Fatalf("force %v: err %v, want one line refusing %s\n%s", force, err, rec, b.String())
		}
	}
	if b, _ := os.ReadFile(victim); string(b) != "# mine\n" {
		t.Errorf("the victim now holds %q", b)
	}
	if after, _ := os.ReadFile(out); !bytes.Equal(after, orig) {
		t.Error("the output was rewritten")
	}
	if written, _ := filepath.Glob(filepath.Join(dir, "grade-*")); len(written) > 0 {
		t.Errorf("written beside a refused record: %v", written)
	}
}

// A results folder's own evalmd.yaml (in it or above it) chooses no judge
// and no server for grade: plain grade -o RESULTS asks no judge it names,
// neither at the user's own server with the user's key nor at its own,
// and says so once on stderr, naming the file's line; the questions the
// judge grades are left ungraded. --judge, the user's word, is asked at
// the user's server.
func TestGradeResultsConfigChoosesNoJudge(t *testing.T) {
	reply := func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "GRADE: C"} }
	for _, tc := range []struct {
		name, planted string
		above         bool // the evalmd.yaml is the results folder's parent's
	}{
		{"the user's judge server", "judge: openai-api/cfg-judge/big\n", false},
		{"its own server", "judge: openai-api/evil/j\nbase_urls:\n  evil: EVIL\n", false},
		{"above the results", "judge: openai-api/cfg-judge/big\n", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mine := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: reply})
			evil := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10, Reply: reply})
			root := t.TempDir()
			xdg := filepath.Join(root, "xdg")
			writeFile(t, filepath.Join(xdg, "evalmd", "config.yaml"), "base_urls:\n  cfg-judge: "+mine.URL+"\n")
			results := filepath.Join(root, "stranger", "results")
			writeFile(t, filepath.Join(results, "output-judged-m-1.json"), judgedOutput)
			planted := filepath.Join(results, "evalmd.yaml")
			if tc.above {
				planted = filepath.Join(root, "stranger", "evalmd.yaml")
			}
			writeFile(t, planted, strings.ReplaceAll(tc.planted, "EVIL", evil.URL))
			env := map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": filepath.Join(root, "home"), "CFG_JUDGE_API_KEY": "test-cfg-key"}
			_, stderr, err := gradeIn(t.TempDir(), env, "-o", results)
			if ue := (*regrade.UngradedError)(nil); !errors.As(err, &ue) || len(ue.Questions) != 2 {
				t.Errorf("err %v, want the 2 judged questions ungraded\n%s", err, stderr)
			}
			if n := mine.Count() + evil.Count(); n != 0 {
				t.Errorf("%d requests to a judge the results' config names", n)
			}
			note := "config " + planted + ":1: judge: not taken"
			if strings.Count(stderr, note) != 1 || strings.Count(stderr, "not taken") != 1 {
				t.Errorf("stderr does not say once %q:\n%s", note, stderr)
			}
			if _, stderr, err := gradeIn(t.TempDir(), env, "-o", results, "--judge", "openai-api/cfg-judge/big"); err != nil || mine.Count() != 2 || evil.Count() != 0 {
				t.Errorf("--judge: %v, %d requests to the user's server, %d to the results', want 2, 0\n%s", err, mine.Count(), evil.Count(), stderr)
			}
		})
	}
}

// grade's judge takes the key --judge-api-key-env names to no server a
// workspace evalmd.yaml names: refused in one line naming its line, before
// any request.
func TestGradeJudgeKeyEnvStaysHome(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "evalmd.yaml"), "base_urls:\n  evil: "+srv.URL+"\n")
	out := filepath.Join(t.TempDir(), "output-judged-m-1.json")
	writeFile(t, out, judgedOutput)
	env := map[string]string{"HOME": t.TempDir(), "MY_KEY": "sk-victim-judge"}
	_, stderr, err := gradeIn(work, env, "-o", out, "--judge", "openai-api/evil/j", "--judge-api-key-env", "MY_KEY")
	want := filepath.Join(work, "evalmd.yaml") + ":2: base_urls: evil: a workspace evalmd.yaml (it may have come with sheets) cannot send MY_KEY"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v, want one line saying %q\n%s", err, want, stderr)
	}
	if strings.Contains(stderr+err.Error(), "sk-victim") {
		t.Error("the key is printed")
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests reached the workspace's server", srv.Count())
	}
}

// A misspelt --grader is a usage error (exit 2) naming the graders there
// are, before any file is read or written: the output and its folder are
// unchanged. A known name, in any case, grades.
func TestGradeUnknownGrader(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "output-judged-m-1.json")
	writeFile(t, out, judgedOutput)
	stdout, stderr, err := gradeIn(t.TempDir(), nil, "-w", "--grader", "contians", "-o", dir)
	if code := cli.ExitCode(err); code != 2 || !strings.Contains(err.Error(), `--grader "contians": unknown grader (known: choice, `) ||
		strings.Contains(err.Error(), "\n") {
		t.Fatalf("exit %d, err %v, want a usage error naming the known graders\n%s%s", code, err, stdout, stderr)
	}
	if b, _ := os.ReadFile(out); string(b) != judgedOutput {
		t.Error("the output was rewritten")
	}
	if files, _ := filepath.Glob(filepath.Join(dir, "*")); len(files) != 1 || stdout != "" {
		t.Errorf("files %v, stdout %q: want the output alone and nothing said", files, stdout)
	}
	if _, stderr, err := gradeIn(t.TempDir(), nil, "--grader", " Exact ", "-o", dir); err != nil {
		t.Errorf("--grader ' Exact ': %v\n%s", err, stderr)
	}
}
