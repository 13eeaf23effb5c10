package setting

import (
	"os"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/golden"
)

const (
	tableStart = "<!-- settings table: made from internal/setting's declarations; go test ./internal/setting -update -->\n"
	tableEnd   = "<!-- end of settings table -->\n"
)

// The settings table of docs/settings.md is the one the declarations make.
func TestReadmeTable(t *testing.T) {
	const path = "../../docs/settings.md"
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, tableStart), strings.Index(text, tableEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: no settings table between %q and %q", path, tableStart, tableEnd)
	}
	// The page with the declarations' table is the golden file's content.
	golden.Check(t, path, []byte(text[:i+len(tableStart)]+Table()+text[j:]))
}
