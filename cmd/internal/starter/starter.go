// Package starter writes an example sheet folder a newcomer can run at
// once (evalmd init, convert init): a sheet with three questions graded three ways, a
// workspace config naming offline models, and a README with the next
// commands.
package starter

import (
	"embed"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/evalmd/evalmd/internal/outfile"
)

//go:embed files
var files embed.FS

// Write writes the example folder into dir (made if missing) and returns
// the files written. It writes through the project's one writer: never
// over a file evalmd did not write unless force.
func Write(dir string, force bool) ([]string, error) {
	if err := outfile.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("init: %w", err)
	}
	names, err := fs.Glob(files, "files/*")
	if err != nil {
		return nil, err
	}
	sort.Strings(names)
	// Every file is checked before any is written: a refusal leaves the
	// folder as it was.
	var paths []string
	for _, n := range names {
		p := filepath.Join(dir, filepath.Base(n))
		if err := outfile.Check(p, outfile.Options{Force: force}); err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
		paths = append(paths, p)
	}
	for i, n := range names {
		data, err := files.ReadFile(n)
		if err != nil {
			return nil, err
		}
		if err := outfile.Write(paths[i], data, outfile.Options{Force: force}); err != nil {
			return nil, fmt.Errorf("init: %w", err)
		}
	}
	return paths, nil
}
