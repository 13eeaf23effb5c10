package benchmark

import (
	"strings"
	"testing"
)

// Quote spells out what a terminal would act on and keeps a short
// excerpt of a long value.
func TestQuote(t *testing.T) {
	for in, want := range map[string]string{
		"x":                      `"x"`,
		"a\u202eb\x1b[31m":       `"a\u202eb\x1b[31m"`,
		strings.Repeat("é", 40):  `"` + strings.Repeat("é", 32) + `"...`,
		strings.Repeat("x", 200): `"` + strings.Repeat("x", 64) + `"...`,
	} {
		if got := Quote(in); got != want {
			t.Errorf("Quote(%q) = %s, want %s", in, got, want)
		}
	}
}
