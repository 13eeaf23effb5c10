package prompt

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/sheet"
)

// A sheet's files resolve, links followed, below its folder or a folder
// the user vouched for (--data-root); anything else is refused unless
// AllowOutsideFiles. The sheet's own data_root meta vouches for nothing: a
// sheet naming "/" sends nothing from outside its folder. A large file
// draws a warning.
func TestFilesStayInPlace(t *testing.T) {
	root := t.TempDir()
	sheets := filepath.Join(root, "sheets")
	data := filepath.Join(root, "data")
	secret := filepath.Join(root, "secret")
	for _, d := range []string{sheets, data, secret, filepath.Join(sheets, "sub")} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(sheets, "in.txt"), []byte("in"), 0o644)
	os.WriteFile(filepath.Join(sheets, "sub", "in.txt"), []byte("in"), 0o644)
	os.WriteFile(filepath.Join(data, "d.txt"), []byte("d"), 0o644)
	os.WriteFile(filepath.Join(secret, "s.txt"), []byte("s"), 0o644)
	os.Symlink(filepath.Join(secret, "s.txt"), filepath.Join(sheets, "link.txt"))
	os.Symlink(filepath.Join(data, "d.txt"), filepath.Join(sheets, "link-data.txt"))
	os.Symlink(secret, filepath.Join(data, "escape"))
	os.Symlink(root, filepath.Join(sheets, "up"))
	for _, tc := range []struct {
		file     string
		dataRoot string // the sheet's meta
		roots    string // the user's --data-root
		allow    bool
		ok       bool
	}{
		{"in.txt", "", "", false, true},
		{"sub/in.txt", "sub", "", false, true},
		{"../data/d.txt", "", "", false, false},
		{"../data/d.txt", "../data", "", false, false}, // the sheet alone cannot
		{"../data/d.txt", "", data, false, true},
		{"../data/d.txt", "../data", data, false, true},
		{filepath.Join(data, "d.txt"), "", data, false, true},
		{"../secret/s.txt", "", data, false, false},
		{"../secret/s.txt", "/", "", false, false},
		{"up/secret/s.txt", "up", "", false, false}, // a link inside to a folder outside
		{"link.txt", "", "", false, false},          // a link inside pointing out
		{"link-data.txt", "", data, false, true},    // a link into a data root
		{"link-data.txt", "../data", "", false, false},
		{"../data/escape/s.txt", "", data, false, false},
		{"/etc/hostname", "", "", false, false},
		{"/etc/hostname", "/", "", false, false},
		{"../secret/s.txt", "", "", true, true},
	} {
		b := &Builder{Dir: sheets, AllowOutsideFiles: tc.allow}
		if tc.roots != "" {
			b.DataRoots = []string{tc.roots}
		}
		if tc.dataRoot != "" {
			b.SheetMeta = map[string]string{"data_root": tc.dataRoot}
			b.SheetMetaLines = map[string]int{"data_root": 3}
		}
		it := &sheet.Item{Name: "q", Text: "x", Sections: &sheet.Sections{Files: []sheet.Located{{Text: tc.file, Line: 7}}}}
		_, err := b.Build(t.Context(), filepath.Join(sheets, "input-s.md"), it)
		if strings.HasPrefix(tc.file, "/etc/") {
			if _, serr := os.Stat(tc.file); serr != nil {
				continue
			}
		}
		if (err == nil) != tc.ok {
			t.Errorf("%s (data_root %q, --data-root %q, allow %v): err %v", tc.file, tc.dataRoot, tc.roots, tc.allow, err)
		}
		if err == nil {
			continue
		}
		want := "--allow-outside-files"
		if tc.dataRoot != "" {
			want = "the sheet's own data_root (line 3) cannot send files from outside its folder: --data-root"
		}
		if !strings.Contains(err.Error(), "input-s.md:7: file") || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %q does not name the sheet line and say %q", err, want)
		}
	}
}

func TestLargeFileWarns(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "big.parquet") // referenced, not read
	f, err := os.Create(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(largeFile + 1); err != nil {
		t.Skip("no sparse files")
	}
	f.Close()
	var warned []string
	b := &Builder{Dir: dir, Warn: func(m string) { warned = append(warned, m) }}
	it := &sheet.Item{Name: "q", Text: "x", Sections: &sheet.Sections{Files: []sheet.Located{{Text: "big.parquet", Line: 3}}}}
	if _, err := b.Build(t.Context(), filepath.Join(dir, "input-s.md"), it); err != nil {
		t.Fatal(err)
	}
	if len(warned) != 1 || !strings.Contains(warned[0], "big.parquet is 50 MB") {
		t.Errorf("warnings %q", warned)
	}
}

// ImageNames are the base names of a question's images alone, in order,
// whatever the case of their extension.
func TestImageNames(t *testing.T) {
	for _, tc := range []struct {
		files []string
		want  []string
	}{
		{nil, nil},
		{[]string{"t.csv", "b.xlsx", "notes.txt"}, nil},
		{[]string{"data/chart.PNG", "t.csv", "x/y/photo.jpeg", "a.gif", "w.webp", "p.jpg"}, []string{"chart.PNG", "photo.jpeg", "a.gif", "w.webp", "p.jpg"}},
	} {
		it := &sheet.Item{Sections: &sheet.Sections{}}
		for _, f := range tc.files {
			it.Files = append(it.Files, sheet.Located{Text: f})
		}
		if got := ImageNames(it); !slices.Equal(got, tc.want) {
			t.Errorf("ImageNames(%v) = %v, want %v", tc.files, got, tc.want)
		}
	}
}
