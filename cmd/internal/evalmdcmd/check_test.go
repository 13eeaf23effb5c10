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
	for _, want := range []string{"-d string", "-f string", "-base-url string", "-sandbox string", "-sandbox-image string", "-v\t"} {
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

	work := t.TempDir()
	os.WriteFile(filepath.Join(work, "evalmd.yaml"), []byte("sandbox: docker\n"), 0o644)
	stdout, stderr, _ := evalmd(t, testEnv(t.TempDir(), nil), "check", "-d", work, "--sandbox", "bogus", "-v")
	if !strings.Contains(stdout, `unknown backend "bogus"`) {
		t.Errorf("check --sandbox bogus does not check the sandbox given:\n%s%s", stdout, stderr)
	}
	if !strings.Contains(stdout+stderr, filepath.Join(work, "evalmd.yaml")) {
		t.Errorf("check -d does not read that folder's config:\n%s%s", stdout, stderr)
	}

	// --base-url is probed, as run --base-url would send every model there.
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2})
	stdout, stderr, _ = evalmd(t, testEnv(t.TempDir(), nil), "check", "--base-url", srv.URL, "--sandbox", "none")
	if !strings.Contains(stdout, "--base-url           ok: reachable at "+srv.URL) {
		t.Errorf("check --base-url does not probe that server:\n%s%s", stdout, stderr)
	}
}
