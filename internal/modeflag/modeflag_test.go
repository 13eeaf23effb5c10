package modeflag

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sheet"
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

func TestFlags(t *testing.T) {
	f := parse(t, "--mode", "agent", "--agent-style", "react", "--max-turns", "4", "--question-timeout", "90s",
		"--sandbox", "none", "--tool-memory", "512M", "--tool-timeout", "5s", "--sandboxes", "3")
	s, err := f.Solve()
	if err != nil || s.Mode != "agent" || s.Style != "react" || s.MaxTurns != 4 || s.QuestionTimeout != 90*time.Second ||
		s.ToolTimeout != 5*time.Second || s.ToolMemory != 512<<20 {
		t.Errorf("solve %+v, %v", s, err)
	}
	c, err := f.Sandbox()
	if err != nil || c.Backend != "none" || c.Memory != 512<<20 || c.Timeout != 5*time.Second || c.MaxInFlight != 3 {
		t.Errorf("sandbox %+v, %v", c, err)
	}
}

func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "coode"}, `mode "coode"`},
		{[]string{"--mode", "code", "--code-extract", "loose"}, `code_extract "loose"`},
		{[]string{"--mode", "agent", "--agent-style", "chain"}, `agent_style "chain"`},
		{[]string{"--max-turns", "-1"}, "negative"},
		{[]string{"--tool-memory", "lots"}, "--tool-memory"},
		{[]string{"--tool-memory", "0"}, "--tool-memory"},
		{[]string{"--tool-timeout", "-1s"}, "--tool-timeout"},
	} {
		f := parse(t, tc.args...)
		_, err1 := f.Solve()
		_, err2 := f.Sandbox()
		err := err1
		if err == nil {
			err = err2
		}
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want it to say %q", tc.args, err, tc.want)
		}
	}
}

// The per-call limits come from the flags, then the question's meta, then
// the sheet's, then the sandbox's defaults (zero here).
func TestToolLimitsPrecedence(t *testing.T) {
	sheetMeta := map[string]string{"mode": "agent", "tool_timeout": "30", "tool_memory": "1G"}
	for _, tc := range []struct {
		name     string
		question map[string]string
		args     []string
		timeout  time.Duration
		memory   int64
	}{
		{"sheet", map[string]string{}, nil, 30 * time.Second, 1 << 30},
		{"question over sheet", map[string]string{"tool_timeout": "2m", "tool_memory": "512M"}, nil, 2 * time.Minute, 512 << 20},
		{"flags over both", map[string]string{"tool_timeout": "2m"}, []string{"--tool-timeout", "5s", "--tool-memory", "3G"}, 5 * time.Second, 3 << 30},
		{"defaults", nil, nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sm := sheetMeta
			if tc.question == nil {
				sm = map[string]string{"mode": "agent"}
			}
			flags, err := parse(t, tc.args...).Solve()
			if err != nil {
				t.Fatal(err)
			}
			s, err := model.SolveFromMeta(sheet.Steering(tc.question, sm), flags)
			if err != nil {
				t.Fatal(err)
			}
			if s.ToolTimeout != tc.timeout || s.ToolMemory != tc.memory {
				t.Errorf("tool timeout %v memory %d; want %v and %d", s.ToolTimeout, s.ToolMemory, tc.timeout, tc.memory)
			}
		})
	}
}
