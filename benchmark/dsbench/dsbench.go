// Package dsbench is the data-analysis task of DSBench (Jing et al.,
// github.com/LiqiangJing/DSBench, data_analysis/) as a benchmark's
// conversion: Conversions offers its converter (Convert with Options: one
// sheet per competition, whose template and system text rebuild the
// messages its eval_GPT.ipynb sends, byte for byte). Its figures in agg's
// report (task- and competition-level accuracy) are in package
// dsbench/score; its sheets are graded by grade's judge with DSBench's
// prompt.
//
// The data folder holds data.json (one competition per line) and data/<id>/
// with introduction.txt, questionN.txt, workbooks (.xlsx, .xlsb, .xlsm) and
// sometimes an image. Load reads it, one Competition for each, with its
// introduction, its file names and its Questions (a Question is one question
// file's name and text, with its ground truth from data.json).
// The tests rebuild the notebook's messages directly (notebook_test.go)
// and compare them with what the sheets give. Quirks of the notebook that
// shape those bytes are kept and named where they happen.
package dsbench

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/readfile"
)

// Competition is one DSBench case: its data.json entry and the texts and
// file names found in its folder.
type Competition struct {
	entry
	Line         int        // line of data.json the entry is on (1-based)
	Dir          string     // the competition's folder, data/<id>
	Introduction string     // introduction.txt as Python's read_txt returns it
	Questions    []Question // in data.json's order
	Workbooks    []string   // workbook file names in Dir, sorted (see findWorkbooks)
	Image        string     // the image file name in Dir, "" if none (see findImage)
}

// Question is one question of a competition.
type Question struct {
	Name   string // file name without ".txt", as data.json lists it ("question6")
	Text   string // the file's text as Python's read_txt returns it
	Answer answer // the ground truth, from data.json
}

// Load reads the DSBench data folder dir (holding data.json and data/). It
// returns every competition that loaded and one error per problem: a
// data.json line that does not parse (named by file and line), or a
// competition whose introduction or question file is missing or unreadable
// (named by file, with the data.json line); such a competition is left out
// and the others still load. Blank lines in data.json are skipped. Every
// file is read only from below dir (readfile.Inside): a link leading out
// of it is refused, its target never read.
func Load(dir string) ([]Competition, []error) {
	path := filepath.Join(dir, "data.json")
	data, err := readfile.ReadInside(path, dir, readfile.Data)
	if err != nil {
		return nil, []error{fmt.Errorf("dsbench: %w", err)}
	}
	var comps []Competition
	var errs []error
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1) // a line may be as long as the file
	for n := 1; sc.Scan(); n++ {
		// eval(line.strip()): surrounding white space does not matter.
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		e, err := parseLine(line)
		if err != nil {
			errs = append(errs, fmt.Errorf("dsbench: %s:%d: %w", path, n, err))
			continue
		}
		c, err := loadCompetition(dir, e)
		if err != nil {
			errs = append(errs, fmt.Errorf("dsbench: competition %s (%s:%d): %w", e.ID, path, n, err))
			continue
		}
		c.Line = n
		comps = append(comps, c)
	}
	if err := sc.Err(); err != nil {
		errs = append(errs, fmt.Errorf("dsbench: %s: %w", path, err))
	}
	return comps, errs
}

// loadCompetition reads the folder of one data.json entry.
func loadCompetition(dir string, e entry) (Competition, error) {
	c := Competition{entry: e, Dir: filepath.Join(dir, "data", e.ID)}
	var err error
	if c.Introduction, err = readText(filepath.Join(c.Dir, "introduction.txt"), dir); err != nil {
		return c, err
	}
	var missing []error
	for i, name := range e.Questions {
		text, err := readText(filepath.Join(c.Dir, name+".txt"), dir)
		if err != nil {
			missing = append(missing, err)
			continue
		}
		c.Questions = append(c.Questions, Question{Name: name, Text: text, Answer: e.Answers[i]})
	}
	if len(missing) > 0 {
		return c, errors.Join(missing...)
	}
	if c.Workbooks, err = findWorkbooks(c.Dir); err != nil {
		return c, err
	}
	if c.Image, err = findImage(c.Dir); err != nil {
		return c, err
	}
	return c, nil
}

// readText reads a text file as the notebook's read_txt does
// (open(path, "r").read()): UTF-8 (the locale's encoding on the machines
// DSBench ran on), with universal newlines, so "\r\n" and a lone "\r" both
// become "\n". A file that is not valid UTF-8 is an error, as Python raises
// UnicodeDecodeError. path is read only from below root.
func readText(path, root string) (string, error) {
	data, err := readfile.ReadInside(path, root, readfile.Data)
	if err != nil {
		return "", err
	}
	if !utf8.Valid(data) {
		return "", fmt.Errorf("%s: not valid UTF-8", path)
	}
	s := string(data)
	if strings.IndexByte(s, '\r') >= 0 {
		s = strings.ReplaceAll(s, "\r\n", "\n")
		s = strings.ReplaceAll(s, "\r", "\n")
	}
	return s, nil
}

// isWorkbook is the notebook's find_excel_files test on a file name: it ends
// in xlsx, xlsb or xlsm, case-insensitively (no dot required, as written),
// and "answer" does not occur in the lower-cased name (answer workbooks sit
// beside the data and must not be shown to the model).
func isWorkbook(name string) bool {
	l := strings.ToLower(name)
	return (strings.HasSuffix(l, "xlsx") || strings.HasSuffix(l, "xlsb") || strings.HasSuffix(l, "xlsm")) &&
		!strings.Contains(l, "answer")
}

// isImage is the notebook's find_jpg_files test: the lower-cased name ends
// in ".jpg" or ".png".
func isImage(name string) bool {
	l := strings.ToLower(name)
	return strings.HasSuffix(l, ".jpg") || strings.HasSuffix(l, ".png")
}

// findWorkbooks lists the workbooks of a competition folder, sorted by name.
// The notebook takes them in os.listdir order, which is whatever order the
// file system gives, and its prompt concatenates them in that order; sorting
// is the one reproducible choice, and for a folder with one workbook (the
// usual case) it changes nothing. Entries are taken as os.listdir gives
// them, folders included.
func findWorkbooks(dir string) ([]string, error) {
	names, err := listDir(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, n := range names {
		if isWorkbook(n) {
			out = append(out, n)
		}
	}
	return out, nil
}

// findImage returns the image the notebook attaches for a competition
// folder: it keeps image[0] of the names find_jpg_files lists, in
// os.listdir order; here the first by sorted name, for the reason given at
// findWorkbooks. It returns "" when there is none.
func findImage(dir string) (string, error) {
	names, err := listDir(dir)
	if err != nil {
		return "", err
	}
	for _, n := range names {
		if isImage(n) {
			return n, nil
		}
	}
	return "", nil
}

// listDir returns the entry names of dir, sorted (os.ReadDir sorts).
func listDir(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	names := make([]string, len(entries))
	for i, e := range entries {
		names[i] = e.Name()
	}
	return names, nil
}
