package gradecmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
)

// grade's command line: -h prints the synopsis and the shared grading and
// judge flags (exit 0); a bad flag is reported once (exit 2).
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"-h"}, 0, "usage: grade -o OUTPUT.json|DIR", ""},
		{[]string{"-h"}, 0, "  -grader string\n", ""},
		{[]string{"-h"}, 0, "  -judge-template string\n", ""},
		{[]string{"-bogus"}, 2, "", "grade: flag provided but not defined: -bogus\nusage: grade -o"},
		{nil, 2, "", "grade: name output files or folders with -o\nusage: grade"},
		{[]string{"-o", "missing.json"}, 1, "", "missing.json"},
		{[]string{"-h"}, 0, "  -grading MODE\n", ""},
		{[]string{"-l", "--grading", "strict", "-o", "x.json"}, 2, "", "grade: -l is --grading liberal, not --grading strict\n"},
		{[]string{"--grading", "loose", "-o", "x.json"}, 2, "", `invalid value "loose" for flag -grading: is not strict or liberal`},
	} {
		var stdout, stderr bytes.Buffer
		err := grade(context.Background(), &stdout, &stderr, tc.args)
		code := cli.Report(&stderr, "grade", err)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("grade %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
		if strings.Count(stderr.String(), "-bogus") > 1 {
			t.Errorf("grade %q: the error is printed more than once: %q", tc.args, stderr.String())
		}
	}
}
