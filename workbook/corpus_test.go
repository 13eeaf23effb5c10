package workbook

import (
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// knownMismatch lists corpus files whose rendering is known to differ from
// pandas' reference, each with the reason. TestCorpus fails when a listed
// file starts matching (remove it) or an unlisted one stops matching.
var knownMismatch = map[string]string{}

// TestCorpus renders every workbook of the shared corpus and compares it
// byte for byte with what pandas 1.5.3 printed.
func TestCorpus(t *testing.T) {
	files := shared.Path(t, "corpora", "workbooks", "files")
	refs := shared.Path(t, "reference", "workbooks")
	entries, err := os.ReadDir(files)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if !e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	if len(names) == 0 {
		t.Fatal("empty corpus")
	}
	match := 0
	for _, name := range names {
		want, err := os.ReadFile(filepath.Join(refs, name+".txt"))
		if err != nil {
			t.Errorf("%s: no reference: %v", name, err)
			continue
		}
		got, err := Render(t.Context(), filepath.Join(files, name))
		same := err == nil && got == string(want)
		if same {
			match++
		}
		reason, known := knownMismatch[name]
		switch {
		case same && known:
			t.Errorf("%s: now matches the reference; remove it from knownMismatch (%s)", name, reason)
		case !same && !known:
			if err != nil {
				t.Errorf("%s: %v", name, err)
			} else {
				t.Errorf("%s: differs from the reference: %s", name, firstDiff(got, string(want)))
			}
			if dir := os.Getenv("WORKBOOK_GOT_DIR"); dir != "" {
				_ = os.WriteFile(filepath.Join(dir, name+".got"), []byte(got), 0o644)
			}
		}
	}
	t.Logf("corpus: %d of %d workbooks identical to pandas (%.1f%%)", match, len(names), 100*float64(match)/float64(len(names)))
}

// firstDiff describes the first differing line.
func firstDiff(got, want string) string {
	g := strings.Split(got, "\n")
	w := strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + quoteTrunc(gl) + "\nwant: " + quoteTrunc(wl)
		}
	}
	return "lengths differ"
}

func quoteTrunc(s string) string {
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return "\"" + s + "\""
}
