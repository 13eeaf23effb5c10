package result

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// Find walks a folder at any depth, but for the superseded outputs below
// it unless it is given that folder, and matches a glob pattern without
// recursion, keeping regular files with output names (LIME's rule).
func TestFind(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"output-a-gpt-4-1.json", "output-b-gpt-3.5-2.json", "sub/output-c-gpt-4-3.json",
		"notes-gpt-4.json", "output-gpt-4.md", "output-dir-gpt-4.json/output-e.json",
		"superseded/output-a-gpt-4-0.json", "sub/superseded/output-c-gpt-4-0.json"} {
		p := filepath.Join(dir, f)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	j := func(names ...string) []string {
		out := []string{}
		for _, n := range names {
			out = append(out, filepath.Join(dir, n))
		}
		return out
	}
	for _, tc := range []struct {
		where string
		want  []string
		err   error
	}{
		{dir, j("output-a-gpt-4-1.json", "output-b-gpt-3.5-2.json", "output-dir-gpt-4.json/output-e.json", "sub/output-c-gpt-4-3.json"), nil},
		{filepath.Join(dir, "superseded"), j("superseded/output-a-gpt-4-0.json"), nil},
		{filepath.Join(dir, "superseded", "*"), j("superseded/output-a-gpt-4-0.json"), nil},
		{filepath.Join(dir, "*gpt-4*"), j("output-a-gpt-4-1.json"), nil},
		{filepath.Join(dir, "*"), j("output-a-gpt-4-1.json", "output-b-gpt-3.5-2.json"), nil},
		// A pattern is matched as LIME's agg matches it: superseded
		// outputs it names are read.
		{filepath.Join(dir, "*", "output-*"), j("output-dir-gpt-4.json/output-e.json", "sub/output-c-gpt-4-3.json", "superseded/output-a-gpt-4-0.json"), nil},
		{filepath.Join(dir, "notes*"), j(), nil},
		{filepath.Join(dir, "*claude*"), nil, ErrNoMatch},
		{filepath.Join(dir, "[a"), nil, filepath.ErrBadPattern},
	} {
		got, err := Find(tc.where, nil)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("Find(%q): error %v, want %v", tc.where, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("Find(%q): %v", tc.where, err)
			continue
		}
		if len(got) == 0 {
			got = []string{}
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Find(%q) = %q, want %q", tc.where, got, tc.want)
		}
	}
}

func TestRoot(t *testing.T) {
	for in, want := range map[string]string{
		"results":               "results",
		"results/*gpt-4*":       "results",
		"a/b/output-?-x.json":   "a/b",
		"*.json":                ".",
		"/r/[ab]/output-x.json": "/r",
		"/*":                    "/",
	} {
		if got := DisplayRoot(in); got != want {
			t.Errorf("DisplayRoot(%q) = %q, want %q", in, got, want)
		}
	}
}
