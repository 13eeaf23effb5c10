package modeflag

import (
	"flag"
	"io"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/setting"
)

func parse(t *testing.T, args ...string) *Flags {
	t.Helper()
	fs := flag.NewFlagSet("run", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	f := Bind(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return f
}

// The run's tool_timeout and tool_memory (config, flags) are the sandbox
// pool's defaults.
func TestFlags(t *testing.T) {
	f := parse(t, "--mode", "agent", "--agent-style", "react", "--max-turns", "4", "--question-timeout", "90s",
		"--sandbox", "none", "--tool-memory", "512M", "--tool-timeout", "5s", "--sandboxes", "3")
	v, err := setting.Resolve("", nil, *f.Settings)
	s := v.Solving()
	if err != nil || s == nil || s.Mode != "agent" || s.Style != "react" || s.MaxTurns != 4 || s.QuestionTimeout != 90*time.Second ||
		s.ToolTimeout != 5*time.Second || s.ToolMemory != 512<<20 {
		t.Errorf("solve %+v, %v", s, err)
	}
	c, err := f.Sandbox(v)
	if err != nil || c.Backend != "none" || c.Memory != 512<<20 || c.Timeout != 5*time.Second || c.MaxInFlight != 3 {
		t.Errorf("sandbox %+v, %v", c, err)
	}
	if _, err := parse(t, "--sandboxes", "-1").Sandbox(setting.Values{}); err == nil {
		t.Errorf("--sandboxes -1: no error")
	}
}
