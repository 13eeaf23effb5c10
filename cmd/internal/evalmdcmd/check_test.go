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

	// --base-url is probed, as run --base-url would send every model there.
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2})
	stdout, stderr, _ = evalmd(t, testEnv(t.TempDir(), nil), "check", "--base-url", srv.URL, "--sandbox", "none")
	if !strings.Contains(stdout, "--base-url           ok: reachable at "+srv.URL) {
		t.Errorf("check --base-url does not probe that server:\n%s%s", stdout, stderr)
	}
}
