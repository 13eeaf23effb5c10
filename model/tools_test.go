package model

import "testing"

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
