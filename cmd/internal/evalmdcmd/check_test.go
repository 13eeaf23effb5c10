package evalmdcmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// evalmd check lists and takes only the flags run --check reads; those
// given win over the config, and -d finds that folder's config.
func TestCheckFlags(t *testing.T) {
	stdout, _, code := evalmd(t, testEnv("", nil), "check", "-h")
	if code != 0 {
		t.Fatalf("check -h: exit %d", code)
	}
	for _, want := range []string{"-d string", "-f string", "-base-url string", "-sandbox NAME", "-sandbox-image IMAGE", "-v\t"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("check -h does not list %q:\n%s", want, stdout)
		}
	}
	for _, not := range []string{"-m string", "-temperature", "-batch", "-watch", "-judge", "-limit"} {
		if strings.Contains(stdout, not) {
			t.Errorf("check -h lists run's %q:\n%s", not, stdout)
		}
	}
	if _, stderr, code := evalmd(t, testEnv("", nil), "check", "--temperature", "1"); code != 2 || !strings.Contains(stderr, "-temperature") {
		t.Errorf("check --temperature 1: exit %d\n%s", code, stderr)
	}

	if _, stderr, code := evalmd(t, testEnv("", nil), "check", "--sandbox", "bogus"); code != 2 || !strings.Contains(stderr, `invalid value "bogus" for flag -sandbox: is not bwrap, docker or none`) {
		t.Errorf("check --sandbox bogus: exit %d\n%s", code, stderr)
	}

	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "evalmd.yaml"), []byte("models: [mock]\n"), 0o644)
	stdout, stderr, _ := evalmd(t, testEnv(t.TempDir(), nil), "check", "-d", work, "--sandbox", "none", "-v")
	if !strings.Contains(stdout, "sandbox: ready: none") || !strings.Contains(stdout, "models: mock ("+filepath.Join(work, "evalmd.yaml")+")") {
		t.Errorf("check -d --sandbox none does not check that sandbox, or that folder's config:\n%s%s", stdout, stderr)
	}
	// check runs no model-written code: it says what none means, and no
	// warning that such code runs now.
	if !strings.Contains(stdout, "(unconfined: a run's model-written Python would run as you") || strings.Contains(stderr, "runs unconfined") {
		t.Errorf("check --sandbox none: stdout %q, stderr %q", stdout, stderr)
	}

	// --base-url is probed, as run --base-url would send every model there.
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2})
	stdout, stderr, _ = evalmd(t, testEnv(t.TempDir(), nil), "check", "--base-url", srv.URL, "--sandbox", "none")
	if !strings.Contains(stdout, "--base-url           ok: reachable at "+srv.URL) {
		t.Errorf("check --base-url does not probe that server:\n%s%s", stdout, stderr)
	}
}

// evalmd check -f SHEET reports, after the config, providers and
// sandbox, every problem of the sheet, one a line at its file and line,
// and exits 1 (a pre-commit hook fails); the config found from the
// sheet's folder counts (its ceiling raised by your own file). A clean
// sheet exits 0, and -d checks every sheet below a folder.
func TestCheckSheet(t *testing.T) {
	work := t.TempDir()
	bad := filepath.Join(work, "input-bad.md")
	os.WriteFile(bad, []byte("# Bad\n#### meta\nmax_token: 50\nmax_turns: 80\n## Q1\n#### question\nq\n## Q1\n#### meta\nmode: agents\n#### question\nr\n#### answer\na\n"), 0o644)
	good := filepath.Join(work, "sub", "input-good.md")
	os.MkdirAll(filepath.Dir(good), 0o755)
	os.WriteFile(good, []byte("# Good\n## Q\n#### question\nq\n#### answer\na\n"), 0o644)

	home := t.TempDir()
	env := testEnv(work, map[string]string{"HOME": home})
	stdout, stderr, code := evalmd(t, env, "check", "-f", bad, "--sandbox", "none")
	want := "sheets: 1 sheet checked, 5 problems\n" +
		bad + ":3: warning: meta max_token is not a setting or key evalmd reads (did you mean max_tokens?); it is kept as data\n" +
		bad + ":4: meta max_turns: \"80\" is over 50, the most a sheet or a workspace evalmd.yaml may ask; to allow it, run with --ceiling max_turns=80 (or ceilings: in your own config file), or set it yourself with --max-turns\n" +
		bad + ":5: question \"Q1\" cannot be graded: it has no answer section (saved half-written?)\n" +
		bad + ":8: warning: duplicate question name \"Q1\" (first at line 5): both kept\n" +
		bad + ":10: question \"Q1\": meta mode: \"agents\" is not chat, code or agent\n"
	if code != 1 || !strings.Contains(stdout, "sandbox: ready: none") || !strings.HasSuffix(stdout, want) ||
		!strings.HasSuffix(stderr, "evalmd check: 5 problems in 1 sheet: 3 would stop a run, 2 warnings\n") {
		t.Errorf("check -f: exit %d\n%s\nwant it to end with:\n%s\nstderr:\n%s", code, stdout, want, stderr)
	}

	// Your own config raises the ceiling: that problem is gone.
	os.MkdirAll(filepath.Join(home, ".config", "evalmd"), 0o755)
	os.WriteFile(filepath.Join(home, ".config", "evalmd", "config.yaml"), []byte("ceilings:\n  max_turns: 100\n"), 0o644)
	if stdout, _, code := evalmd(t, env, "check", "-f", bad, "--sandbox", "none"); code != 1 || strings.Contains(stdout, ":4:") || !strings.Contains(stdout, "4 problems") {
		t.Errorf("check -f with the ceiling raised: exit %d\n%s", code, stdout)
	}

	if stdout, stderr, code := evalmd(t, env, "check", "-f", good, "--sandbox", "none"); code != 0 || !strings.HasSuffix(stdout, "sheets: 1 sheet checked, 0 problems\n") {
		t.Errorf("check -f on a clean sheet: exit %d\n%s%s", code, stdout, stderr)
	}
	stdout, _, code = evalmd(t, env, "check", "-d", work, "--sandbox", "none")
	if code != 1 || !strings.Contains(stdout, "sheets: 2 sheets checked, 4 problems\n") || strings.Contains(stdout, good+":") {
		t.Errorf("check -d: exit %d\n%s", code, stdout)
	}
}
