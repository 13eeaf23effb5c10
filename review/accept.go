package review

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/sheet"
)

// Accept makes the answer right and one of its question's accepted
// answers: its text is added to the question in the sheet the run read
// (sheet.AddAccepted: any grader but the judge then takes it, on any
// model's run), then d, made right, is recorded as Record does. Nothing
// is recorded when the sheet cannot be written. It returns the sheet's
// path with Record's report.
func Accept(ctx context.Context, a *Answer, d Decision, seal *outfile.Key) (string, regrade.Report, error) {
	if a.Graded == nil {
		return "", regrade.Report{}, fmt.Errorf("%s: no answer to accept", a.Label())
	}
	path, err := SheetOf(a)
	if err != nil {
		return "", regrade.Report{}, err
	}
	if err := sheet.AddAccepted(path, a.Q.Name, a.Key.N, *a.Graded); err != nil {
		return path, regrade.Report{}, err
	}
	d.Right = true
	rep, err := Record(ctx, a, d, seal)
	return path, rep, err
}

// SheetOf finds the sheet the answer's run read: the path its output
// records (sheet_file, as the run was given it), from the current folder
// or from a folder above its outputs, the first that holds a sheet of
// the answer's sheet name. The sheet must lie below the current folder
// or the folder above the outputs (links followed): an output handed
// over cannot point accept at a sheet elsewhere of the same name.
func SheetOf(a *Answer) (string, error) {
	rec := a.Sheet.SheetFile
	if rec == "" {
		return "", fmt.Errorf("%s: its output records no sheet file", a.Label())
	}
	tries := []string{rec}
	if !filepath.IsAbs(rec) {
		if dir, err := filepath.Abs(a.Dir); err == nil {
			for d := dir; ; d = filepath.Dir(d) {
				tries = append(tries, filepath.Join(d, rec))
				if filepath.Dir(d) == d {
					break
				}
			}
		}
	}
	roots := allowedRoots(a.Dir)
	for _, p := range tries {
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if !insideAny(p, roots) {
			return "", fmt.Errorf("%s: the sheet %s its run read is outside the current folder and the folder above %s: accept writes no sheet there (run review from a folder that holds it)", a.Label(), p, a.Dir)
		}
		doc, err := sheet.ParseFile(p, nil)
		if err != nil {
			continue
		}
		if info, _ := doc.Resolve(); info.Name == a.Key.Sheet {
			return p, nil
		}
	}
	return "", fmt.Errorf("%s: the sheet %s its run read is not found here or in a folder above %s (run review where the run ran)", a.Label(), rec, a.Dir)
}

// allowedRoots are the folders a sheet accept writes into may lie below:
// the current folder and the folder above the outputs in dir.
func allowedRoots(dir string) []string {
	var roots []string
	if wd, err := os.Getwd(); err == nil {
		roots = append(roots, wd)
	}
	if abs, err := filepath.Abs(dir); err == nil {
		roots = append(roots, filepath.Dir(abs))
	}
	return roots
}

func insideAny(path string, roots []string) bool {
	for _, r := range roots {
		if _, err := readfile.Inside(path, r); err == nil {
			return true
		}
	}
	return false
}
