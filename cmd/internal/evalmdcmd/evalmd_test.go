package evalmdcmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// testConfigHome is the user config folder (XDG_CONFIG_HOME) of the
// commands the tests run without one of their own, made empty by TestMain
// and shared by every test, as one machine's: it holds the key evalmd
// makes there.
var testConfigHome string

func TestMain(m *testing.M) {
	if os.Getenv("EVALMD_CI_HELPER") == "1" || os.Getenv("EVALMD_TEST_FSIZE") != "" {
		// The test binary run again as an evalmd (TestEvalmdProcess,
		// TestFullDiskProcess) ends in cli.Main's exit: a folder made
		// here would be left behind.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "evalmd-evalmdcmd-config-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testConfigHome = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testEnv reads config files from dir only and the environment env only
// (never the real home); without XDG_CONFIG_HOME or HOME in env, the user
// config folder is testConfigHome.
func testEnv(dir string, env map[string]string) Env {
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" && env["XDG_CONFIG_HOME"] == "" && env["HOME"] == "" {
			return testConfigHome
		}
		return env[k]
	}
	return Env{
		Look:   config.Lookup{Dir: dir, Getenv: getenv},
		Getenv: getenv,
		Environ: func() []string {
			var kv []string
			for k, v := range env {
				kv = append(kv, k+"="+v)
			}
			return kv
		},
		IsTerminal: func(io.Writer) bool { return false },
		BuildInfo: func() (*debug.BuildInfo, bool) {
			return &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: []debug.BuildSetting{
				{Key: "vcs.revision", Value: "abc1234def5678"}, {Key: "vcs.time", Value: "2026-11-26T07:00:00Z"}}}, true
		},
	}
}

// evalmd runs the command as main does: the error reported, the exit status.
func evalmd(t *testing.T, env Env, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var o, e bytes.Buffer
	err := cli.Execute(context.Background(), &o, &e, Command(env), args)
	code = cli.Report(&e, "evalmd", err)
	return o.String(), e.String(), code
}

// Each verb reaches its command (its own usage error or output names it
// as typed: "evalmd run"); an unknown verb is one line naming the nearest.
func TestDispatch(t *testing.T) {
	env := testEnv("", nil)
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"run"}, 2, "", "evalmd run: give one of -f SHEET or -d DIR\nusage: evalmd run -f SHEET | -d DIR"},
		{[]string{"eval"}, 2, "", "evalmd eval: give one of -f SHEET or -d DIR\nusage: evalmd eval -f SHEET | -d DIR"},
		{[]string{"run", "-f", "missing.md", "-y"}, 1, "", "evalmd run: "},
		{[]string{"grade"}, 2, "", "evalmd grade: name output files or folders with -o\nusage: evalmd grade -o OUTPUT.json|DIR"},
		{[]string{"agg"}, 2, "", "evalmd agg: -i DIR is required\nusage: evalmd agg -i DIR"},
		{[]string{"convert"}, 2, "", "evalmd convert: missing command\nusage: evalmd convert COMMAND"},
		{[]string{"convert", "dsbench"}, 2, "", "evalmd convert dsbench: -i and -o are required\nusage: evalmd convert dsbench -i DATA -o DIR"},
		{[]string{"init"}, 2, "", "evalmd init: give the folder to write\nusage: evalmd init DIR"},
		{[]string{"check", "-h"}, 0, "usage: evalmd check [-f SHEET | -d DIR] [--base-url URL] [--sandbox", ""},
		{[]string{"render"}, 2, "", "evalmd render: name output files or folders\nusage: evalmd render [-w] OUTPUT.json|DIR..."},
		{[]string{"version"}, 0, "evalmd v1.2.3 (commit abc1234, 2026-11-26T07:00:00Z) go", ""},
		{[]string{"version", "x"}, 2, "", "evalmd version: unexpected argument \"x\""},
		{[]string{"completion"}, 2, "", "evalmd completion: name one shell: bash, zsh or fish"},
		{[]string{"completion", "tcsh"}, 2, "", "evalmd completion: no completion for shell \"tcsh\": give bash, zsh or fish"},
		{[]string{"completion", "bash"}, 0, "complete -o default -F _evalmd evalmd\n", ""},
		{[]string{"help", "grade"}, 0, "usage: evalmd grade -o OUTPUT.json|DIR", ""},
		{[]string{"help", "convert", "dsbench"}, 0, "usage: evalmd convert dsbench -i DATA -o DIR", ""},
		{[]string{"help", "eval"}, 0, "usage: evalmd eval -f SHEET", ""},
		{[]string{"rnu"}, 2, "", "evalmd: unknown command \"rnu\" (did you mean \"run\"?); \"evalmd -h\" lists the commands\n"},
		{[]string{"agregate"}, 2, "", "evalmd: unknown command \"agregate\"; \"evalmd -h\" lists the commands\n"},
		{[]string{"grdae", "-o", "x"}, 2, "", "evalmd: unknown command \"grdae\" (did you mean \"grade\"?); \"evalmd -h\" lists the commands\n"},
		{[]string{"help", "rendr"}, 2, "", "evalmd: unknown command \"rendr\" (did you mean \"render\"?)"},
		{nil, 2, "", "evalmd: missing command\nusage: evalmd COMMAND [flags] (-h for help)\n"},
	} {
		stdout, stderr, code := evalmd(t, env, tc.args...)
		if code != tc.code || !strings.Contains(stdout, tc.stdout) || !strings.Contains(stderr, tc.stderr) {
			t.Errorf("evalmd %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout, stderr, tc.code, tc.stdout, tc.stderr)
		}
		if tc.stderr == "" && stderr != "" {
			t.Errorf("evalmd %q: stderr %q", tc.args, stderr)
		}
		if strings.HasSuffix(tc.stderr, "\n") && !strings.HasSuffix(stderr, tc.stderr) {
			t.Errorf("evalmd %q: stderr %q, want exactly %q", tc.args, stderr, tc.stderr)
		}
	}
}

// evalmd -h and evalmd help list every verb, one line each, on one screen.
func TestHelpListsVerbs(t *testing.T) {
	for _, args := range [][]string{{"-h"}, {"help"}, {"--help"}} {
		stdout, stderr, code := evalmd(t, testEnv("", nil), args...)
		if code != 0 || stderr != "" {
			t.Fatalf("evalmd %q: exit %d, stderr %q", args, code, stderr)
		}
		for _, verb := range []string{"run, eval", "grade", "agg", "convert", "init", "check", "render", "schema", "version", "completion", "help COMMAND"} {
			if !strings.Contains(stdout, "\n  "+verb) && !strings.Contains(stdout, verb) {
				t.Errorf("evalmd %q does not list %q:\n%s", args, verb, stdout)
			}
		}
		if n := strings.Count(stdout, "\n"); n > 24 {
			t.Errorf("evalmd %q: %d lines, more than a screen:\n%s", args, n, stdout)
		}
	}
}

// An error of agg's report is said once under the command's name, not
// prefixed twice ("evalmd agg: agg: DIR: ...", found trying agg as a new
// user).
func TestAggErrorPrefixOnce(t *testing.T) {
	dir := t.TempDir()
	_, stderr, code := evalmd(t, testEnv("", nil), "agg", "-i", dir)
	want := "evalmd agg: " + dir + ": no output files found"
	if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "agg: agg:") {
		t.Errorf("exit %d, stderr %q; want 1 and %q once", code, stderr, want)
	}
}

// help settings prints the settings table generated from the declarations
// (docs/settings.md's), every setting one row; help lists the topic.
func TestHelpSettings(t *testing.T) {
	stdout, stderr, code := evalmd(t, testEnv("", nil), "help", "settings")
	if code != 0 || stderr != "" {
		t.Fatalf("evalmd help settings: exit %d, stderr %q", code, stderr)
	}
	for _, s := range setting.All {
		if !strings.Contains(stdout, "| `"+s.Name+"` |") {
			t.Errorf("help settings has no row for %s", s.Name)
		}
	}
	stdout, _, _ = evalmd(t, testEnv("", nil), "help")
	if !strings.Contains(stdout, "\n  settings  ") {
		t.Errorf("evalmd help does not list the settings topic:\n%s", stdout)
	}
}

// init writes the example folder and names the next command as typed;
// check is run --check; render prints an output file's markdown or,
// with -w, writes it beside the file.
func TestInitCheckRender(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evals")
	stdout, stderr, code := evalmd(t, testEnv("", nil), "init", dir)
	if code != 0 || !strings.Contains(stdout, "next: evalmd run -d "+dir+" -m mock") {
		t.Fatalf("evalmd init: exit %d\n%s%s", code, stdout, stderr)
	}

	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
	work := t.TempDir()
	if err := os.WriteFile(filepath.Join(work, "evalmd.yaml"), []byte("base_urls:\n  ollama: "+srv.URL+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, _ = evalmd(t, testEnv(work, nil), "check")
	if !strings.Contains(stdout, "ollama               ok: reachable at "+srv.URL) || !strings.Contains(stdout, "file "+filepath.Join(work, "evalmd.yaml")) {
		t.Errorf("evalmd check is not run --check:\n%s%s", stdout, stderr)
	}

	out := t.TempDir()
	if _, stderr, code := evalmd(t, testEnv("", nil), "run", "-d", dir, "-m", "mock", "-o", out, "-u", "0"); code != 0 {
		t.Fatalf("evalmd run: exit %d\n%s", code, stderr)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(paths) != 1 {
		t.Fatalf("outputs %v", paths)
	}
	md := result.MarkdownPath(paths[0])
	want, err := os.ReadFile(md)
	if err != nil {
		t.Fatal(err)
	}
	stdout, stderr, code = evalmd(t, testEnv("", nil), "render", paths[0])
	if code != 0 || stdout != string(want) {
		t.Errorf("evalmd render: exit %d, stderr %q; stdout differs from the .md run wrote:\n%s", code, stderr, stdout)
	}
	if err := os.Remove(md); err != nil {
		t.Fatal(err)
	}
	_, stderr, code = evalmd(t, testEnv("", nil), "render", "-w", out)
	got, err := os.ReadFile(md)
	if code != 0 || err != nil || string(got) != string(want) || stderr != "wrote "+md+"\n" {
		t.Errorf("evalmd render -w: exit %d, stderr %q, %v; the .md differs: %v", code, stderr, err, string(got) != string(want))
	}
	if _, stderr, code = evalmd(t, testEnv("", nil), "render", filepath.Join(dir, "README.md")); code != 1 || !strings.Contains(stderr, "README.md") {
		t.Errorf("evalmd render of a file that is not an output: exit %d, %q", code, stderr)
	}
}

// The completion scripts parse, and bash's completes verbs, subcommands
// and flags.
func TestCompletion(t *testing.T) {
	for _, shell := range cli.Shells {
		stdout, stderr, code := evalmd(t, testEnv("", nil), "completion", shell)
		if code != 0 {
			t.Fatalf("completion %s: exit %d %s", shell, code, stderr)
		}
		script := filepath.Join(t.TempDir(), "evalmd."+shell)
		if err := os.WriteFile(script, []byte(stdout), 0o644); err != nil {
			t.Fatal(err)
		}
		check := map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}}[shell]
		if _, err := exec.LookPath(check[0]); err != nil {
			t.Logf("%s not installed: its script's syntax is not checked", shell)
			continue
		}
		if out, err := exec.Command(check[0], append(check[1:], script)...).CombinedOutput(); err != nil {
			t.Errorf("%s %s: %v\n%s", check[0], script, err, out)
		}
		if shell == "fish" {
			for _, tc := range []struct{ line, want string }{
				{"evalmd ru", "run\tAsk models"},
				{"evalmd convert ds", "dsbench\t"},
				{"evalmd eval --cac", "--cache\tanswer repeated requests from this cache folder"},
				{"evalmd agg -", "-i\tinput dir (every"},
			} {
				out, err := exec.Command("fish", "-c", "source "+script+"; complete -C '"+tc.line+"'").CombinedOutput()
				if err != nil || !strings.Contains(string(out), tc.want) {
					t.Errorf("fish completion of %q: %q (%v), want %q", tc.line, out, err, tc.want)
				}
			}
		}
		if shell != "bash" {
			continue
		}
		for _, tc := range []struct{ line, want string }{
			{"evalmd ru", "run"},
			{"evalmd ", "run eval grade review agg convert init check trust render schema version completion"},
			{"evalmd convert ds", "dsbench"},
			{"evalmd convert dsbench -", "--force -i --mode -o"},
			{"evalmd eval --cac", "--cache"},
			{"evalmd agg -i", "-i"},
			{"evalmd grade x ", ""},
		} {
			prog := "source " + script + "\nCOMP_WORDS=(" + tc.line + ")\n"
			if strings.HasSuffix(tc.line, " ") {
				prog += "COMP_WORDS+=('')\n"
			}
			prog += "COMP_CWORD=$((${#COMP_WORDS[@]} - 1))\n_evalmd\necho \"${COMPREPLY[*]}\"\n"
			out, err := exec.Command("bash", "-c", prog).CombinedOutput()
			if got := strings.TrimSpace(string(out)); err != nil || got != tc.want {
				t.Errorf("bash completion of %q: %q (%v), want %q", tc.line, got, err, tc.want)
			}
		}
	}
}
