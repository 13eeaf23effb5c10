package runcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
)

// --max-reply stops at the longest string an output's readers take: a
// longer reply would be written into an output agg and grade refuse.
func TestMaxReplyCap(t *testing.T) {
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, []string{"-f", writeSheet(t, "# S\n## Q1\n#### question\nq\n#### answer\nB\n"),
		"-o", t.TempDir(), "-m", "mock", "--max-reply", "65M"})
	if cli.ExitCode(err) != 2 || !strings.Contains(err.Error(), "--max-reply 65M: at most 64 MiB") {
		t.Errorf("exit %d: %v", cli.ExitCode(err), err)
	}
}
