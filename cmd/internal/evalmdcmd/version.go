package evalmdcmd

import (
	"context"
	"fmt"
	"io"
	"regexp"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/evalmd/evalmd/cmd/internal/cli"
)

func versionCommand(buildInfo func() (*debug.BuildInfo, bool)) *cli.Command {
	return &cli.Command{
		Name:  "version",
		Short: "Print evalmd's version and the commit it was built from.",
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) > 0 {
				return cli.Usagef("unexpected argument %q", args[0])
			}
			info, ok := buildInfo()
			if !ok {
				info = nil
			}
			_, err := fmt.Fprintln(stdout, versionLine(info))
			return err
		},
	}
}

// pseudoVersion matches the tail of a Go pseudo-version
// (v0.0.0-20261126071729-a652966abcde): its UTC time and commit.
var pseudoVersion = regexp.MustCompile(`(?:^|[-.])(\d{14})-([0-9a-f]{12})(?:\+.*)?$`)

// versionLine is "evalmd VERSION (commit C, TIME) GO OS/ARCH": the
// module's version as the build recorded it, then the commit and its time.
// A build from a git checkout records them as vcs.* settings; go install
// MODULE@VERSION records none, but a pseudo-version carries both.
func versionLine(info *debug.BuildInfo) string {
	platform := fmt.Sprintf("%s %s/%s", runtime.Version(), runtime.GOOS, runtime.GOARCH)
	if info == nil {
		return "evalmd (no build information) " + platform
	}
	version := info.Main.Version
	if version == "" {
		version = "(devel)"
	}
	var commit, when string
	modified := false
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			commit = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	if commit == "" {
		if m := pseudoVersion.FindStringSubmatch(strings.TrimSuffix(version, "+dirty")); m != nil {
			t := m[1]
			commit, when = m[2], fmt.Sprintf("%s-%s-%sT%s:%s:%sZ", t[0:4], t[4:6], t[6:8], t[8:10], t[10:12], t[12:14])
		}
	}
	if commit == "" {
		return fmt.Sprintf("evalmd %s (commit unknown) %s", version, platform)
	}
	parts := []string{"commit " + commit[:min(7, len(commit))]}
	if when != "" {
		parts = append(parts, when)
	}
	if modified {
		parts = append(parts, "with changes not committed")
	}
	return fmt.Sprintf("evalmd %s (%s) %s", version, strings.Join(parts, ", "), platform)
}
