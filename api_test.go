package evalmd_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// apiChecked are the packages whose exported identifiers TestExportedAPI
// checks. The others outside internal/ still export names only their own
// package uses; each joins the list once cleaned.
var apiChecked = []string{
	"agent",
	"agg",
	"batch",
	"benchmark",
	"benchmark/dabench",
	"benchmark/databench",
	"benchmark/dsbench",
	"codemode",
	"grade",
	"harness",
	"inspect",
	"model",
	"model/anthropic",
	"model/builtin",
	"model/openai",
	"prompt",
	"regrade",
	"report",
	"result",
	"runner/aimd",
	"sandbox",
	"schema",
	"sheet",
	"solve",
	"spreadsheet",
	"table",
	"tokens",
	"workbook",
}

// TestExportedAPI checks that every package-level identifier a checked
// package exports is its documented API: another package of the module
// uses it (tests count), or its package doc names it. An identifier only
// its own package uses is unexported instead.
func TestExportedAPI(t *testing.T) {
	const module = "github.com/evalmd/evalmd"
	fset := token.NewFileSet()
	used := map[string]bool{} // import path + "." + name, used outside its folder
	exported := map[string][]string{}
	docs := map[string]string{}
	checked := map[string]bool{}
	for _, p := range apiChecked {
		checked[p] = true
	}
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
		f, err := parser.ParseFile(fset, path, nil, parser.ParseComments|parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		dir := filepath.ToSlash(filepath.Dir(path))
		if checked[dir] && !strings.HasSuffix(path, "_test.go") {
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
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range apiChecked {
		if len(exported[p]) == 0 && docs[p] == "" {
			t.Errorf("%s: no such package (apiChecked lists it)", p)
			continue
		}
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
