package xlsb

import (
	"archive/zip"
	"fmt"
	"io"
	"maps"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// corpusFiles returns the .xlsb workbooks of the shared corpus with the
// text pandas (through pyxlsb) printed for each.
func corpusFiles(t *testing.T) (files []string, refDir string) {
	t.Helper()
	dir := shared.Path(t, "corpora", "workbooks", "files")
	refDir = shared.Path(t, "reference", "workbooks")
	files, err := filepath.Glob(filepath.Join(dir, "*.xlsb"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatalf("no .xlsb files in %s", dir)
	}
	return files, refDir
}

// refSections splits a reference text into its sheets, in order: the name
// from each "Sheet name: X" line and the text printed under it.
func refSections(text string) (names, bodies []string) {
	const marker = "Sheet name: "
	for _, chunk := range strings.Split("\n\n"+text, "\n\n"+marker)[1:] {
		name, body, _ := strings.Cut(chunk, "\n")
		names = append(names, name)
		bodies = append(bodies, body)
	}
	return names, bodies
}

func TestCorpusSheetNames(t *testing.T) {
	files, refDir := corpusFiles(t)
	for _, f := range files {
		base := filepath.Base(f)
		t.Run(base, func(t *testing.T) {
			ref, err := os.ReadFile(filepath.Join(refDir, base+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			want, _ := refSections(string(ref))
			w, err := openFile(f)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			var got []string
			for _, s := range w.Sheets() {
				got = append(got, s.Name)
			}
			if strings.Join(got, "\x00") != strings.Join(want, "\x00") {
				t.Errorf("sheets %q, pandas printed %q", got, want)
			}
		})
	}
}

// pandasNA are the strings pandas' parser reads as NaN by default.
var pandasNA = map[string]bool{"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true,
	"-1.#QNAN": true, "-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true, "<NA>": true,
	"N/A": true, "NA": true, "NULL": true, "NaN": true, "n/a": true, "nan": true, "null": true}

// numberForms lists the spellings pandas may give a number: as an integer
// (it converts integral floats), with a column's common count of decimals
// or exponent digits, or as Python's repr in an object column.
func numberForms(v float64) []string {
	var out []string
	if v == math.Trunc(v) && math.Abs(v) < 1e16 {
		out = append(out, strconv.FormatFloat(v, 'f', 0, 64), strconv.FormatFloat(v, 'f', 1, 64))
	}
	for p := -1; p <= 9; p++ {
		out = append(out, strconv.FormatFloat(v, 'f', p, 64), strconv.FormatFloat(v, 'e', p, 64))
	}
	return out
}

// TestCorpusValues checks that every value read from every sheet appears in
// what pandas printed for that sheet: strings as text (with the escapes
// to_string applies), numbers, booleans and error codes as one of the
// whitespace-separated tokens. It also counts, so a reader that returned
// nothing could not pass.
func TestCorpusValues(t *testing.T) {
	files, refDir := corpusFiles(t)
	total := 0
	for _, f := range files {
		base := filepath.Base(f)
		t.Run(base, func(t *testing.T) {
			ref, err := os.ReadFile(filepath.Join(refDir, base+".txt"))
			if err != nil {
				t.Fatal(err)
			}
			names, bodies := refSections(string(ref))
			w, err := openFile(f)
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			checked, missing := 0, 0
			for i, s := range w.Sheets() {
				if i >= len(bodies) || names[i] != s.Name {
					t.Fatalf("sheet %d %q has no matching reference section", i, s.Name)
				}
				body := bodies[i]
				tokens := map[string]bool{}
				for _, tok := range strings.Fields(body) {
					// A sheet with a header and no data prints
					// "Columns: [a, b]".
					tokens[tok] = true
					tokens[strings.Trim(tok, "[],")] = true
				}
				rows, err := w.Rows(s.Name)
				if err != nil {
					t.Fatalf("sheet %q: %v", s.Name, err)
				}
				for r, row := range rows {
					for c, cell := range row {
						var forms []string
						found := false
						switch cell.Kind {
						case Empty:
							continue
						case String:
							if pandasNA[cell.Str] {
								continue
							}
							esc := strings.NewReplacer("\t", `\t`, "\r", `\r`, "\n", `\n`).Replace(cell.Str)
							forms = []string{esc}
							found = strings.Contains(body, esc)
						// pandas' sanitize_objects memoises equal values
						// of an object column, and in Python True == 1:
						// a 1 after a True prints as True, and the other
						// way round. A bool column with blanks prints
						// 1.0/0.0.
						case Number:
							forms = numberForms(cell.Num)
							switch cell.Num {
							case 1:
								forms = append(forms, "True")
							case 0:
								forms = append(forms, "False")
							}
						case Bool:
							forms = []string{"False", "0.0", "0"}
							if cell.Bool {
								forms = []string{"True", "1.0", "1"}
							}
						case Error:
							forms = []string{fmt.Sprintf("%#x", cell.Err)}
						}
						for _, f := range forms {
							found = found || tokens[f]
						}
						checked++
						if !found {
							missing++
							t.Errorf("sheet %q cell (%d,%d) %v %+v: none of %q in pandas' text", s.Name, r, c, cell.Kind, cell, forms)
						}
					}
				}
			}
			t.Logf("%d values checked, %d missing", checked, missing)
			total += checked
			if checked == 0 {
				t.Errorf("no values read")
			}
		})
	}
	t.Logf("%d values checked in %d files", total, len(files))
}

// TestCorpusNumberColumns compares, for every sheet that is one column of
// numbers, each value with the number pandas printed on that line (the
// first value is the header line), to the precision printed. This pins the
// RK and IEEE decodings: POI's 62815.xlsb holds 282 RK numbers of every
// form.
func TestCorpusNumberColumns(t *testing.T) {
	files, refDir := corpusFiles(t)
	sheets := 0
	for _, f := range files {
		base := filepath.Base(f)
		ref, err := os.ReadFile(filepath.Join(refDir, base+".txt"))
		if err != nil {
			t.Fatal(err)
		}
		_, bodies := refSections(string(ref))
		w, err := openFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, s := range w.Sheets() {
			rows, err := w.Rows(s.Name)
			if err != nil {
				t.Fatalf("%s %q: %v", base, s.Name, err)
			}
			if len(rows) < 2 || len(rows[0]) != 1 {
				continue
			}
			numeric := true
			for _, r := range rows {
				numeric = numeric && r[0].Kind == Number
			}
			if !numeric {
				continue
			}
			sheets++
			lines := strings.Split(strings.TrimRight(bodies[i], "\n"), "\n")
			if len(lines) != len(rows) {
				t.Errorf("%s %q: %d values, pandas printed %d lines", base, s.Name, len(rows), len(lines))
				continue
			}
			for r, line := range lines {
				text := strings.TrimSpace(line)
				printed, err := strconv.ParseFloat(text, 64)
				if err != nil {
					t.Fatalf("%s %q line %d: %v", base, s.Name, r, err)
				}
				if got := rows[r][0].Num; math.Abs(got-printed) > halfULP(text)*1.0000001 {
					t.Errorf("%s %q row %d: read %v, pandas printed %s", base, s.Name, r, got, text)
				}
			}
		}
		w.Close()
	}
	if sheets == 0 {
		t.Fatal("no single-column numeric sheet found")
	}
	t.Logf("%d single-column numeric sheets compared", sheets)
}

// halfULP is half the unit of the last digit printed in text, the most a
// correctly rounded print can differ from the value.
func halfULP(text string) float64 {
	mant, exp, _ := strings.Cut(strings.ToLower(text), "e")
	e := 0
	if exp != "" {
		e, _ = strconv.Atoi(exp)
	}
	decimals := 0
	if _, frac, ok := strings.Cut(mant, "."); ok {
		decimals = len(frac)
	}
	return 0.5 * math.Pow(10, float64(e-decimals))
}

// TestMutatedParts damages one binary part at a time (truncation, random
// byte changes) in the fixture and in every corpus workbook and re-zips it,
// which reaches the record parsers past the zip's checksums, where fuzzing
// the zip bytes rarely gets. Errors are expected; a panic fails the test.
func TestMutatedParts(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	opened, failed := mutateParts(t, "fixture", fixtureParts(), rng)
	if opened == 0 || failed == 0 {
		t.Errorf("fixture: opened %d, failed %d: the mutations should give both", opened, failed)
	}
	t.Run("corpus", func(t *testing.T) {
		files, _ := corpusFiles(t)
		for _, f := range files {
			o, e := mutateParts(t, filepath.Base(f), unzipAll(t, f), rng)
			opened, failed = opened+o, failed+e
		}
	})
	t.Logf("%d damaged workbooks opened, %d errors reported", opened, failed)
}

// mutateParts damages each .bin part of parts in turn, in name order so
// the run is repeatable, and reads the whole workbook each time.
func mutateParts(t *testing.T, src string, parts map[string][]byte, rng *rand.Rand) (opened, failed int) {
	for _, name := range slices.Sorted(maps.Keys(parts)) {
		data := parts[name]
		if !strings.HasSuffix(name, ".bin") || len(data) == 0 {
			continue
		}
		for i := range 6 {
			bad := slices.Clone(data)
			if i < 2 {
				bad = bad[:rng.IntN(len(bad))]
			} else {
				for range 1 + rng.IntN(8) {
					bad[rng.IntN(len(bad))] = byte(rng.Uint32())
				}
			}
			mutated := maps.Clone(parts)
			mutated[name] = bad
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("%s with %s damaged (try %d): panic: %v", src, name, i, r)
					}
				}()
				w, err := openParts(t, mutated)
				if err != nil {
					failed++
					return
				}
				opened++
				for _, s := range w.Sheets() {
					if _, err := w.Rows(s.Name); err != nil {
						failed++
					}
					w.Dimension(s.Name)
				}
			}()
		}
	}
	return opened, failed
}

func unzipAll(t *testing.T, path string) map[string][]byte {
	t.Helper()
	zr, err := zip.OpenReader(path)
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	out := map[string][]byte{}
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		out[f.Name] = b
	}
	return out
}

// openFile opens the .xlsb file at path. Close releases it.
func openFile(path string) (*Workbook, error) {
	f, err := readfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("xlsb: %w", err)
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("xlsb: %w", err)
	}
	w, err := open(path, f, st.Size())
	if err != nil {
		f.Close()
		return nil, err
	}
	w.closer = f
	return w, nil
}
