package setting

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the README's settings table")

const (
	tableStart = "<!-- settings table: made from internal/setting's declarations; go test ./internal/setting -update -->\n"
	tableEnd   = "<!-- end of settings table -->\n"
)

// The README's settings table is the one the declarations make.
func TestReadmeTable(t *testing.T) {
	const path = "../../README.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, tableStart), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no settings table between %q and %q", path, tableStart, tableEnd)
	}
	have, want := text[i+len(tableStart):j], Table()
	if have == want {
		return
	}
	if *update {
		if err := os.WriteFile(path, []byte(text[:i+len(tableStart)]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's settings table is not the declarations' (go test ./internal/setting -update):\n%s\nwant:\n%s", path, have, want)
}
