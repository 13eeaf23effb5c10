package model

import (
	"strings"
	"testing"
	"time"
)

func TestSolveFromMetaToolLimits(t *testing.T) {
	for _, tc := range []struct {
		meta    map[string]string
		timeout time.Duration
		memory  int64
		err     string
	}{
		{map[string]string{"mode": "agent", "tool_timeout": "90", "tool_memory": "512M"}, 90 * time.Second, 512 << 20, ""},
		{map[string]string{"mode": "code", "tool_timeout": "2m", "tool_memory": "3GiB"}, 2 * time.Minute, 3 << 30, ""},
		{map[string]string{"mode": "agent", "tool_timeout": "0.5"}, 500 * time.Millisecond, 0, ""},
		{map[string]string{"mode": "agent", "tool_timeout": "soon"}, 0, 0, "meta tool_timeout"},
		{map[string]string{"mode": "agent", "tool_timeout": "-3"}, 0, 0, "meta tool_timeout"},
		{map[string]string{"mode": "agent", "tool_memory": "lots"}, 0, 0, "meta tool_memory"},
		{map[string]string{"mode": "agent", "tool_memory": "0"}, 0, 0, "meta tool_memory"},
	} {
		s, err := SolveFromMeta(tc.meta, Solve{})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want it to say %q", tc.meta, err, tc.err)
			}
			continue
		}
		if err != nil || s.ToolTimeout != tc.timeout || s.ToolMemory != tc.memory {
			t.Errorf("%v: %+v, %v; want timeout %v memory %d", tc.meta, s, err, tc.timeout, tc.memory)
		}
	}
	// Flags win over the meta.
	s, err := SolveFromMeta(map[string]string{"mode": "agent", "tool_timeout": "90", "tool_memory": "1G"}, Solve{ToolTimeout: time.Second, ToolMemory: 2 << 30})
	if err != nil || s.ToolTimeout != time.Second || s.ToolMemory != 2<<30 {
		t.Errorf("flags over meta: %+v, %v", s, err)
	}
}

func TestParseSize(t *testing.T) {
	for in, want := range map[string]int64{"2G": 2 << 30, "2GiB": 2 << 30, "512m": 512 << 20, "1024": 1024, "64KB": 64 << 10} {
		if got, err := ParseSize(in); err != nil || got != want {
			t.Errorf("ParseSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, in := range []string{"", "0", "-1G", "2T", "G", "9999999999G"} {
		if _, err := ParseSize(in); err == nil {
			t.Errorf("ParseSize(%q): no error", in)
		}
	}
}

func TestSolveFromMetaReformat(t *testing.T) {
	s, err := SolveFromMeta(map[string]string{"mode": "agent", "reformat": "required",
		"reformat_question": `"What is the mean?"`, "reformat_format": `"@mean[v]\nwhere v is a number"`}, Solve{})
	if err != nil || s.Reformat == nil || *s.Reformat != (Reformat{Question: "What is the mean?", Format: "@mean[v]\nwhere v is a number"}) {
		t.Fatalf("%+v, %v", s, err)
	}
	for _, meta := range []map[string]string{
		{"mode": "agent", "reformat": "required", "reformat_question": `"q"`},
		{"mode": "agent", "reformat": "required", "reformat_question": `q`, "reformat_format": `"f"`},
		{"mode": "agent", "reformat": "maybe"},
	} {
		if _, err := SolveFromMeta(meta, Solve{}); err == nil || !strings.Contains(err.Error(), "reformat") {
			t.Errorf("%v: error %v", meta, err)
		}
	}
	if s, err := SolveFromMeta(map[string]string{"mode": "agent"}, Solve{}); err != nil || s.Reformat != nil {
		t.Errorf("no reformat meta: %+v, %v", s, err)
	}
}
