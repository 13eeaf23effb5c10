package evalmdcmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"strings"
	"testing"
)

// The version line names the module version, the commit and its time:
// from the build's vcs settings (a build in a git checkout), else from a
// pseudo-version (go install MODULE@VERSION records no vcs settings).
func TestVersionLine(t *testing.T) {
	vcs := func(rev, when, modified string) []debug.BuildSetting {
		return []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: rev}, {Key: "vcs.time", Value: when}, {Key: "vcs.modified", Value: modified}}
	}
	for _, tc := range []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"checkout", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs("a652966abcdef0123", "2026-11-26T07:17:29Z", "false")},
			"evalmd (devel) (commit a652966, 2026-11-26T07:17:29Z) "},
		{"checkout with changes", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}, Settings: vcs("a652966abcdef0123", "2026-11-26T07:17:29Z", "true")},
			"evalmd v0.3.0 (commit a652966, 2026-11-26T07:17:29Z, with changes not committed) "},
		{"go install @latest", &debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20261126071729-a652966abcde"}},
			"evalmd v0.0.0-20261126071729-a652966abcde (commit a652966, 2026-11-26T07:17:29Z) "},
		{"pseudo-version after a tag", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.1-0.20261126071729-a652966abcde+dirty"}},
			"evalmd v0.3.1-0.20261126071729-a652966abcde+dirty (commit a652966, 2026-11-26T07:17:29Z) "},
		{"tagged", &debug.BuildInfo{Main: debug.Module{Version: "v0.3.0"}}, "evalmd v0.3.0 (commit unknown) "},
		{"no vcs", &debug.BuildInfo{}, "evalmd (devel) (commit unknown) "},
		{"no build info", nil, "evalmd (no build information) "},
	} {
		if got := versionLine(tc.info); !strings.HasPrefix(got, tc.want) || !strings.Contains(got, " go") {
			t.Errorf("%s: %q, want %q then the Go version", tc.name, got, tc.want)
		}
	}
}

// A binary built from a git checkout says which commit (and that it has
// changes not committed, when it has). go build stamps only a checkout
// whose .git is a folder: a git worktree (.git a file) is skipped, saying so.
func TestVersionOfBuiltBinary(t *testing.T) {
	if testing.Short() {
		t.Skip("builds evalmd")
	}
	git, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git not installed")
	}
	top, err := exec.Command(git, "rev-parse", "--show-toplevel").Output()
	if err != nil {
		t.Skipf("not in a git checkout: %v", err)
	}
	root := strings.TrimSpace(string(top))
	if st, err := os.Stat(filepath.Join(root, ".git")); err != nil || !st.IsDir() {
		t.Skipf("%s/.git is not a folder (a git worktree?): go build records no commit there", root)
	}
	commit, err := exec.Command(git, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "evalmd")
	build := exec.Command("go", "build", "-buildvcs=true", "-o", bin, "./cmd/evalmd")
	build.Dir = root
	build.Env = append(os.Environ(), "GOFLAGS=")
	if out, err := build.CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	out, err := exec.Command(bin, "version").Output()
	if err != nil {
		t.Fatal(err)
	}
	want := regexp.MustCompile(`^evalmd \S+ \(commit ` + string(commit[:7]) + `, \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ(, with changes not committed)?\) go\S+ \S+/\S+\n$`)
	if !want.Match(out) {
		t.Errorf("evalmd version: %q, want the commit %s and its time", out, commit[:7])
	}
}
