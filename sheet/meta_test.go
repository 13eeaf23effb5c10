package sheet

import (
	"reflect"
	"testing"
)

// ParseMeta follows LIME's extract_meta_kv, whose keys go through Python's
// str.lower() (so a Greek word ending in capital sigma ends in final sigma).
func TestParseMeta(t *testing.T) {
	for _, c := range []struct {
		text string
		want map[string]string
	}{
		{"Answer Suggested Length: 10", map[string]string{"answer_suggested_length": "10"}},
		{"- top-p: 0.5\n  bad line\nkey:  v:w ", map[string]string{"top_p": "0.5", "key": "v:w"}},
		{"ΟΔΟΣ: 1\nΣΑΣ Σ: 2", map[string]string{"οδος": "1", "σας_σ": "2"}},
		{"İD: x", map[string]string{"i\u0307d": "x"}},
		{"\x1cK\x1f: \x1cv\x1f", map[string]string{"k": "v"}},
	} {
		if got := ParseMeta(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseMeta(%q) = %q, want %q", c.text, got, c.want)
		}
	}
}
