package result

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/shared"
)

// Every real LIME output file loads, and rewriting it unchanged keeps every
// field and value.
func TestLIMEFilesRoundTrip(t *testing.T) {
	paths, _ := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	if len(paths) != 26 {
		t.Fatalf("found %d LIME output files, want 26", len(paths))
	}
	for _, p := range paths {
		raw, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		f, err := Read(p)
		if err != nil {
			t.Fatalf("read: %v", err)
		}
		if len(f.Questions) == 0 || f.Sheet.Name == "" || f.Sheet.ModelName == "" {
			t.Errorf("%s: sheet %q model %q questions %d", p, f.Sheet.Name, f.Sheet.ModelName, len(f.Questions))
		}
		out, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var want, got any
		if err := json.Unmarshal(raw, &want); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(want, got) {
			t.Errorf("%s: rewriting changed the file", filepath.Base(p))
		}
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"{\n\"sheet\": {\n", ":3: not an output file"},
		{"[1,2]", ":1: not an output file"},
		{"{}", ":1: not an output file"},
		{"{\"sheet\": {\"name\": 3}}", ":1: not an output file"},
	} {
		_, err := Parse([]byte(tc.in))
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) = %v, want prefix %q", tc.in, err, tc.want)
		}
	}
}

func TestFileName(t *testing.T) {
	for _, tc := range []struct{ sheet, model, id, want string }{
		{"a/input-rules-qa-1.md", "gpt-4", "09fa", "output-rules-qa-1-gpt-4-09fa.json"},
		{"input-dsbench-00000001.md", "openai/gpt-4o", "ab12", "output-dsbench-00000001-openai_gpt-4o-ab12.json"},
		{"x/input_one.md", "replay:r.jsonl", "1", "output-one-replay_r.jsonl-1.json"},
	} {
		if got := FileName(tc.sheet, tc.model, tc.id); got != tc.want {
			t.Errorf("FileName(%q,%q,%q) = %q, want %q", tc.sheet, tc.model, tc.id, got, tc.want)
		}
	}
}
