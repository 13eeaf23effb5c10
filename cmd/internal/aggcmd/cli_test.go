package aggcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
)

// agg's command line: -h prints the synopsis (exit 0); usage errors exit 2.
func TestCommandLine(t *testing.T) {
	for _, tc := range []struct {
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{[]string{"-h"}, 0, "usage: agg -i DIR", ""},
		{[]string{"-bogus"}, 2, "", "agg: flag provided but not defined: -bogus\nusage: agg -i DIR"},
		{nil, 2, "", "agg: -i DIR is required"},
		{[]string{"a", "b"}, 2, "", "agg: unexpected arguments"},
		{[]string{"-i", "x", "-max-discrepancies", "-2"}, 2, "", "agg: -max-discrepancies -2"},
		{[]string{"-i", "x", "--completions", "--discrepancies-full"}, 2, "", "agg: --completions and --discrepancies-full are two report types"},
		{[]string{"-i", "x", "--md", "--terminal"}, 2, "", "agg: --md and --terminal contradict"},
		{[]string{"-i", "x", "--completions", "-charts"}, 2, "", "agg: -charts goes with the default report"},
		{[]string{"-i", "x", "--fail-on", "regression"}, 2, "", "agg: --fail-on compares with a baseline: give --baseline DIR"},
		{[]string{"-i", "x", "--baseline", "y", "--fail-on", "noise"}, 2, "", "agg: --fail-on \"noise\": known values are regression, never"},
		{[]string{"-i", "x", "--baseline", "y", "--alpha", "0"}, 2, "", "agg: --alpha 0: a significance level above 0"},
		{[]string{"-i", "x", "--baseline", "y", "--alpha", "1"}, 2, "", "agg: --alpha 1: a significance level between 0 and 1"},
		{[]string{"-i", "x", "--baseline", "y", "--min-drop", "2"}, 2, "", "agg: --min-drop 2: a drop in accuracy from 0 to 1"},
		{[]string{"-i", "x", "--fail-under", "70"}, 2, "", "agg: --fail-under 70: an accuracy from 0 to 1"},
		{[]string{"-i", "x", "--comment", "c.md"}, 2, "", "agg: --comment writes the comparison with a baseline"},
		{[]string{"-i", "x", "--baseline", "y", "--report-url", "javascript:alert(1)"}, 2, "", "agg: --report-url \"javascript:alert(1)\": an http or https address"},
		{[]string{"-i", "x", "--baseline", "y", "--serve", "8080"}, 2, "", "agg: --serve shows the folder"},
	} {
		var stdout, stderr bytes.Buffer
		err := aggregate(context.Background(), &stdout, &stderr, tc.args)
		code := cli.Report(&stderr, "agg", err)
		if code != tc.code || !strings.Contains(stdout.String(), tc.stdout) || !strings.Contains(stderr.String(), tc.stderr) {
			t.Errorf("agg %q: exit %d, stdout %q, stderr %q; want %d, %q, %q", tc.args, code, stdout.String(), stderr.String(), tc.code, tc.stdout, tc.stderr)
		}
	}
}
