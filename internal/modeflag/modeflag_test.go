package modeflag

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"
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
	if err != nil || s.Mode != "agent" || s.Style != "react" || s.MaxTurns != 4 || s.QuestionTimeout != 90*time.Second {
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

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"2G": 2 << 30, "2GiB": 2 << 30, "512m": 512 << 20, "1024": 1024, "64KB": 64 << 10} {
		if got, err := parseSize(in); err != nil || got != want {
			t.Errorf("parseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
}
