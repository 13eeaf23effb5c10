package evalmd_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestExportedAPI checks that every package-level identifier a package
// outside internal/ and cmd/ exports is its documented API:
// another package of the module uses it (tests count), or its package doc
// names it. An identifier only its own package uses is unexported instead.
// Commands (package main) export nothing anyone imports.
func TestExportedAPI(t *testing.T) {
	const module = "github.com/evalmd/evalmd"
	fset := token.NewFileSet()
	used := map[string]bool{} // import path + "." + name, used outside its folder
	exported := map[string][]string{}
	docs := map[string]string{}
	checked := map[string]bool{} // folders of the packages whose API is checked
	walkGo(t, func(path string) error {
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if apiFolder(dir) && !strings.HasSuffix(path, "_test.go") && f.Name.Name != "main" {
			checked[dir] = true
			if f.Doc != nil {
				docs[dir] += f.Doc.Text()
			}
			exported[dir] = append(exported[dir], exportedNames(f)...)
		}
		imports := map[string]string{} // name in the file -> folder in the module
		for _, im := range f.Imports {
			ip, _ := strconv.Unquote(im.Path.Value)
			rel, ok := strings.CutPrefix(ip, module+"/")
			if !ok || rel == dir {
				continue
			}
			name := rel[strings.LastIndex(rel, "/")+1:]
			if im.Name != nil {
				name = im.Name.Name
			}
			imports[name] = rel
		}
		ast.Inspect(f, func(n ast.Node) bool {
			if sel, ok := n.(*ast.SelectorExpr); ok {
				if x, ok := sel.X.(*ast.Ident); ok && imports[x.Name] != "" {
					used[imports[x.Name]+"."+sel.Sel.Name] = true
				}
			}
			return true
		})
		return nil
	})
	if len(checked) < 20 {
		t.Fatalf("found %d packages to check; the walk is broken", len(checked))
	}
	for _, p := range slices.Sorted(maps.Keys(checked)) {
		var loose []string
		for _, name := range exported[p] {
			if used[p+"."+name] || regexp.MustCompile(`\b`+name+`\b`).MatchString(docs[p]) {
				continue
			}
			loose = append(loose, name)
		}
		sort.Strings(loose)
		if len(loose) > 0 {
			t.Errorf("%s exports %s, which no other package uses and its package doc does not name: unexport it, or name it in the doc if it is API", p, strings.Join(loose, ", "))
		}
	}
}

// apiFolder says whether the package in folder dir (slash-separated,
// relative to the module root) is importable API: not a command, not
// below an internal folder.
func apiFolder(dir string) bool {
	parts := strings.Split(dir, "/")
	return dir != "." && parts[0] != "cmd" && !slices.Contains(parts, "internal")
}

// exportedNames lists the exported package-level identifiers a file
// declares (methods are not package-level).
func exportedNames(f *ast.File) []string {
	var names []string
	for _, decl := range f.Decls {
		switch d := decl.(type) {
		case *ast.FuncDecl:
			if d.Recv == nil && d.Name.IsExported() {
				names = append(names, d.Name.Name)
			}
		case *ast.GenDecl:
			for _, s := range d.Specs {
				switch s := s.(type) {
				case *ast.TypeSpec:
					if s.Name.IsExported() {
						names = append(names, s.Name.Name)
					}
				case *ast.ValueSpec:
					for _, n := range s.Names {
						if n.IsExported() {
							names = append(names, n.Name)
						}
					}
				}
			}
		}
	}
	return names
}
