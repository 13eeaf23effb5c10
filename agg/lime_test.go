package agg

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// TestLIMEReference checks LIME's three tables against the output of LIME's
// own agg.py on the real LIME results.
func TestLIMEReference(t *testing.T) {
	dir := shared.Path(t, "corpora", "lime", "results")
	want, err := os.ReadFile(shared.Path(t, "reference", "lime", "agg", "agg-reference.md"))
	if err != nil {
		t.Fatal(err)
	}
	var warn bytes.Buffer
	d, err := Load(context.Background(), dir, &warn, LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if warn.Len() > 0 {
		t.Errorf("warnings on LIME's own files:\n%s", warn.String())
	}
	got := d.LIMEMarkdown()
	if got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := 0; i < len(gl) && i < len(wl); i++ {
			if gl[i] != wl[i] {
				t.Fatalf("line %d:\n got %q\nwant %q", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("lengths differ: got %d lines, want %d", len(gl), len(wl))
	}
}
