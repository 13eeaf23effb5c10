package evalmd_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"maps"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// creators are the calls that create a file or folder, or replace one, by
// name, by the import path of their package: none of evalmd's code but
// internal/outfile makes them, so every file a command creates goes
// through the one writer, which never follows a link. os.OpenFile counts
// unless its flags are O_RDONLY and name no flag that writes.
var creators = map[string][]string{
	"os":                            {"Create", "CreateTemp", "WriteFile", "Mkdir", "MkdirAll", "Symlink", "Link", "Rename", "Truncate", "OpenFile"},
	"io/ioutil":                     {"WriteFile", "TempFile", "TempDir"},
	"syscall":                       {"Open", "Openat", "Creat", "Mkdir", "Mkdirat", "Mkfifo", "Mknod", "Link", "Linkat", "Symlink", "Symlinkat", "Rename", "Renameat", "Truncate"},
	"golang.org/x/sys/unix":         {"Open", "Openat", "Creat", "Mkdir", "Mkdirat", "Mkfifo", "Mknod", "Link", "Linkat", "Symlink", "Symlinkat", "Rename", "Renameat", "Renameat2", "Truncate"},
	"github.com/google/renameio/v2": nil, // any use
}

// writeFlags are the os.OpenFile flags that make an open a write.
var writeFlags = []string{"O_CREATE", "O_WRONLY", "O_RDWR", "O_APPEND", "O_TRUNC"}

// TestOneWriter walks the module's code (not its tests, nor the packages
// only tests import) and fails on every call that creates a file outside
// internal/outfile, naming file:line.
func TestOneWriter(t *testing.T) {
	const module = "github.com/evalmd/evalmd"
	type call struct{ pos, name string }
	fset := token.NewFileSet()
	byDir := map[string][]call{}
	usedByCode := map[string]bool{} // folders a non-test file imports
	mains := map[string]bool{}
	walkGo(t, func(path string) error {
		if strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if f.Name.Name == "main" {
			mains[dir] = true
		}
		names := map[string]string{} // name in the file -> import path
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			if rel, ok := strings.CutPrefix(ip, module+"/"); ok {
				usedByCode[rel] = true
			}
			name := ip[strings.LastIndex(ip, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			if ip == "github.com/google/renameio/v2" {
				name = "renameio"
				byDir[dir] = append(byDir[dir], call{fset.Position(im.Pos()).String(), ip})
			}
			names[name] = ip
		}
		ast.Inspect(f, func(n ast.Node) bool {
			c, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := c.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			x, ok := sel.X.(*ast.Ident)
			if !ok {
				return true
			}
			ip := names[x.Name]
			banned, known := creators[ip]
			if !known || banned != nil && !slices.Contains(banned, sel.Sel.Name) {
				return true
			}
			if ip == "os" && sel.Sel.Name == "OpenFile" && len(c.Args) > 1 && mentions(c.Args[1], []string{"O_RDONLY"}) && !mentions(c.Args[1], writeFlags) {
				return true // a read-only open
			}
			byDir[dir] = append(byDir[dir], call{fset.Position(c.Pos()).String(), x.Name + "." + sel.Sel.Name})
			return true
		})
		return nil
	})
	if len(byDir["internal/outfile"]) < 5 {
		t.Fatalf("found %d file-creating calls in internal/outfile itself; the walk is broken", len(byDir["internal/outfile"]))
	}
	for _, dir := range slices.Sorted(maps.Keys(byDir)) {
		calls := byDir[dir]
		if dir == "internal/outfile" || !usedByCode[dir] && !mains[dir] {
			continue // the writer itself; a package only tests import
		}
		for _, c := range calls {
			t.Errorf("%s: %s creates a file around the one writer: use internal/outfile (Write, WriteFiles, Open, Create, MkdirAll), which never follows a link", c.pos, c.name)
		}
	}
}

// mentions says whether expression e names one of idents (os.O_CREATE
// in os.O_RDWR|os.O_CREATE, say).
func mentions(e ast.Expr, idents []string) bool {
	found := false
	ast.Inspect(e, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			found = found || slices.Contains(idents, n.Name)
		case *ast.SelectorExpr:
			found = found || slices.Contains(idents, n.Sel.Name)
		}
		return !found
	})
	return found
}

// walkGo calls fn for every .go file of the module (tests included), by
// path relative to its root, skipping testdata and hidden folders; an
// error stops the walk and fails t.
func walkGo(t *testing.T, fn func(path string) error) {
	t.Helper()
	err := filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") && path != "." {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") {
			return nil
		}
		return fn(path)
	})
	if err != nil {
		t.Fatal(err)
	}
}
