// Package regrade is what the grade command does, as a library: it reads
// output files, regrades every question with its grader (LIME's rule by
// default, liberal on request), optionally refreshes ground truths from a
// sheet, and, when asked to write, rewrites each output file, its readable
// .md (as run writes it) and the LIME-style grade file beside it. Without Write it is LIME's dry run: a
// report of what would change.
//
// Regrade returns a Report: a FileReport per file, with each Change of
// grade. GradeQuestion, which run uses too, grades one question as its
// answer arrives; questions left ungraded make an *UngradedError.
package regrade

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// Options say how to regrade.
type Options struct {
	// Settings are the command's settings (its config's and its flags':
	// grade -l is --grading liberal). Each question's grading mode is
	// resolved from them with the file's sheet and question meta between,
	// as a run resolves it; with none set, a question keeps the mode it
	// was graded in (result.Question.SetGrading).
	Settings []setting.Layer
	// Write rewrites the output files and writes the grade files; without
	// it nothing is written (LIME's default dry run).
	Write bool
	// GraderOverride, when set, grades every question with this grader
	// instead of the one its "grader" meta names.
	GraderOverride string
	// Sheet, when set, replaces each question's ground truth by the sheet's
	// answer for the question of the same name (LIME's -i).
	Sheet *SheetTruths
	// Verbose adds LIME's verbose lines (ground-truth counts, the old and
	// new grade lists) to the printed report.
	Verbose bool
	// Force writes grade files over files evalmd did not write or that
	// were changed since (see internal/outfile).
	Force bool
	// Seal is the machine's key: an output file sealed with it as it was
	// read (evalmd wrote it here) is sealed again as rewritten, so a
	// rerun still reuses its answers; any other stays unsealed, since
	// regrading a stranger's answers does not make them this machine's.
	Seal *outfile.Key
	// Judge configures the "judge" grader: its model, template and
	// max_tokens (grade.Options' Judge fields).
	Judge grade.JudgeOptions
	// Scripts runs the script grader's programs (grade.Options.Scripts);
	// nil: a question that grader grades is graded null, saying why.
	Scripts grade.ScriptRunner
	// Graders names the graders; nil means grade.NewRegistry(), the
	// generic ones. Commands pass their benchmark Set's.
	Graders *grade.Registry
	// VerdictsOnly applies the people's verdicts (each output folder's
	// verdicts.txt) and grades nothing again: every other question keeps
	// the grade its grader gave (what review does after a verdict, which
	// must not call a judge).
	VerdictsOnly bool
}

// SheetTruths are the ground truths of a sheet by question name, and its
// accepted answers; a nil truth is a question without an answer. The
// command builds it from the sheet.
type SheetTruths struct {
	Path   string // the sheet file, for the report
	Truths map[string]*string
	// Accepted are the answers the sheet also accepts, by question name
	// (sheet.Item.Accepted); a question without any is absent.
	Accepted map[string][]string
}

// Report is what a regrade did, file by file.
type Report struct {
	Files   []FileReport
	Write   bool   // files were written
	Verbose bool   // print LIME's verbose lines
	Sheet   string // the sheet ground truths came from, or ""
	// VerdictErrors name each line of a verdicts file that is no verdict
	// (FILE:LINE), and each verdicts file that could not be read; the
	// other verdicts applied.
	VerdictErrors []error
}

// FileReport is the regrade of one output file.
type FileReport struct {
	Path      string
	Err       error        // the file could not be regraded; nothing was written for it
	Questions int          // questions in the file
	Ungraded  []Ungradable // the questions that could not be graded: graded null, the rest written
	Old, New  []*bool      // grades before and after, one per question
	Changes   []Change     // the questions whose grade changed
	// Ground truths from the sheet: questions of the sheet found, matched
	// by name in this file, and overwritten because they differed.
	TruthsFound, TruthsMatched, TruthsOverwritten int
	GradePath                                     string // the grade file written, or "" when nothing was written
	MarkdownPath                                  string // the readable .md written beside the output, or ""

	// Liberal counts the questions graded liberally, Kept those of them
	// that kept the mode a flag gave them before (no source sets one now).
	Liberal, Kept int
	// Reviewed counts the questions whose grade is a person's verdict.
	Reviewed int
}

// ungraded names the questions, over all files, that could not be graded.
func (r *Report) ungraded() []Ungradable {
	var out []Ungradable
	for _, f := range r.Files {
		out = append(out, f.Ungraded...)
	}
	return out
}

// Failed counts the files that could not be regraded.
func (r *Report) Failed() int {
	n := 0
	for _, f := range r.Files {
		if f.Err != nil {
			n++
		}
	}
	return n
}

// Regrade regrades the output files at paths: each path is a file, or a
// folder whose output-*.json files (at any depth) are taken. A file that
// cannot be read, parsed or graded gets a one-line error naming it in its
// FileReport and in the returned error, and the other files are still done.
// A question that cannot be graded is graded null with the reason, the
// file is still written, and the error names it.
func Regrade(ctx context.Context, paths []string, opt Options) (Report, error) {
	rep := Report{Write: opt.Write, Verbose: opt.Verbose}
	if opt.Sheet != nil {
		rep.Sheet = opt.Sheet.Path
	}
	files, errs := collect(paths)
	graders := NewGraders(opt.Graders, grade.Options{JudgeOptions: opt.Judge, Scripts: opt.Scripts}, opt.GraderOverride)
	var fv folderVerdicts
	for _, path := range files {
		if err := ctx.Err(); err != nil {
			errs = append(errs, err)
			break
		}
		fr := regradeFile(ctx, path, opt, graders, fv.of(path))
		if fr.Err != nil {
			errs = append(errs, fr.Err)
		}
		rep.Files = append(rep.Files, fr)
	}
	rep.VerdictErrors = fv.bad
	if err := GradeErrors("grade", rep.ungraded()); err != nil {
		errs = append(errs, err)
	}
	return rep, errors.Join(errs...)
}

// collect expands paths into output files, in the order given, folders in
// lexical order. A path that does not exist is an error; the rest go on.
func collect(paths []string) ([]string, []error) {
	var files []string
	var errs []error
	seen := map[string]bool{}
	add := func(p string) {
		if !seen[p] {
			seen[p] = true
			files = append(files, p)
		}
	}
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			errs = append(errs, oneLine(err))
			continue
		}
		if !st.IsDir() {
			add(p)
			continue
		}
		found, err := result.Find(p, func(err error) { errs = append(errs, oneLine(err)) })
		if err != nil {
			errs = append(errs, oneLine(err))
		}
		for _, f := range found {
			add(f)
		}
	}
	return files, errs
}

// regradeFile regrades one file and writes it when asked.
func regradeFile(ctx context.Context, path string, opt Options, graders *Graders, verdicts *verdict.Set) FileReport {
	fr := FileReport{Path: path}
	data, err := readfile.ReadThrough(path, readfile.Output, result.GuardStrings)
	if err != nil {
		fr.Err = oneLine(err)
		return fr
	}
	f, err := result.Parse(data)
	if err != nil {
		fr.Err = oneLine(fmt.Errorf("%s%w", path, err))
		return fr
	}
	fr.Questions = len(f.Questions)
	var oldTruths map[int]*string
	if opt.Sheet != nil {
		oldTruths = refreshTruths(f, opt.Sheet, &fr)
		refreshAccepted(f, opt.Sheet)
	}
	var bad map[int]error
	kept := 0
	if !opt.VerdictsOnly {
		bad, kept = setGrading(path, f, opt.Settings)
	}
	g, err := gradeFile(ctx, f, graders, bad, verdicts, opt.VerdictsOnly)
	if err != nil {
		fr.Err = fmt.Errorf("%s: %w", path, err)
		return fr
	}
	for i := range g.Changes {
		c := &g.Changes[i]
		if old, ok := oldTruths[c.Question-1]; ok {
			c.Truth, c.OldTruth, c.NewTruth = true, old, f.Questions[c.Question-1].GroundTruth
		}
	}
	fr.Old, fr.New, fr.Changes, fr.Reviewed = g.Old, g.New, g.Changes, g.Reviewed
	for _, i := range g.Ungraded {
		fr.Ungraded = append(fr.Ungraded, UngradedAt(path, &f.Questions[i]))
	}
	fr.Kept = kept
	for i := range f.Questions {
		if f.Questions[i].Liberal() {
			fr.Liberal++
		}
	}
	if !opt.Write {
		return fr
	}
	// The output file is rewritten in place because -w asks for it: its
	// own content (a hand edit included) is what was regraded, so nothing
	// is lost and no ownership is asked; a read-only file is still refused,
	// and so is a file another process (a run) replaced since it was read
	// here, whose content would be lost. The readable .md beside it (run's
	// twin of the JSON, rendered by the same code) and the grade file are
	// protected as any other: a .md edited by hand since evalmd wrote it
	// keeps the edit unless --force. The three are written as one (both or
	// neither, even racing a run that writes the pair, or on a full disk),
	// so the JSON and its .md never disagree.
	gp := GradePath(path)
	others := outfile.Options{Force: opt.Force, Inputs: []string{path}}
	newData, err := f.Marshal()
	if err != nil {
		fr.Err = oneLine(fmt.Errorf("%s: %w", path, err))
		return fr
	}
	if opt.VerdictsOnly && bytes.Equal(newData, data) {
		return fr // no verdict changed it: nothing to write
	}
	own := outfile.Options{Force: true, Expect: outfile.Sum(data)}
	if seals, err := outfile.ReadSeals(filepath.Dir(path), opt.Seal); err == nil && seals.Sealed(filepath.Base(path), own.Expect) {
		own.Seal = opt.Seal
	}
	files := append(f.WithMarkdown(path, newData, own, others),
		outfile.Bytes(gp, gradeJSON(fr.New), others))
	if err := outfile.WriteFiles(files...); err != nil {
		fr.Err = oneLine(fmt.Errorf("%w; nothing written for %s", err, path))
		return fr
	}
	fr.GradePath, fr.MarkdownPath = gp, result.MarkdownPath(path)
	return fr
}

// refreshTruths is LIME's -i: for each sheet question, the first output
// question of that name takes the sheet's ground truth. It returns the
// truths it replaced, by question index.
func refreshTruths(f *result.File, s *SheetTruths, fr *FileReport) map[int]*string {
	replaced := map[int]*string{}
	fr.TruthsFound = len(s.Truths)
	first := map[string]int{}
	for i := len(f.Questions) - 1; i >= 0; i-- {
		first[f.Questions[i].Name] = i
	}
	for name, truth := range s.Truths {
		i, ok := first[name]
		if !ok {
			continue
		}
		fr.TruthsMatched++
		q := &f.Questions[i]
		if fmtTruth(q.GroundTruth) == fmtTruth(truth) {
			continue
		}
		fr.TruthsOverwritten++
		replaced[i] = q.GroundTruth
		if truth == nil {
			q.GroundTruth = nil
		} else {
			t := *truth
			q.GroundTruth = &t
		}
	}
	return replaced
}

func fmtTruth(s *string) string {
	if s == nil {
		return "\x00null"
	}
	return *s
}

// GradePath is the LIME grade file beside an output file (grade -w):
// output-<rest>.json -> grade-<rest>.json. Only the file name's leading
// "output" is replaced (LIME replaced every "output" in the whole path, a
// bug its own comment admits); a file not named output-* gets "grade-" in
// front.
func GradePath(outputPath string) string {
	dir, base := filepath.Split(outputPath)
	if strings.HasPrefix(base, "output") {
		return dir + "grade" + strings.TrimPrefix(base, "output")
	}
	return dir + "grade-" + base
}

// gradeJSON encodes grades as LIME's grade file: Python's json.dump(grades,
// indent=2), one true/false/null per line, no final newline, "[]" when
// empty.
func gradeJSON(grades []*bool) []byte {
	if len(grades) == 0 {
		return []byte("[]")
	}
	var b bytes.Buffer
	b.WriteString("[\n")
	for i, g := range grades {
		if i > 0 {
			b.WriteString(",\n")
		}
		b.WriteString("  ")
		b.WriteString(fmtGrade(g))
	}
	b.WriteString("\n]")
	return b.Bytes()
}

func fmtGrade(g *bool) string {
	switch {
	case g == nil:
		return "null"
	case *g:
		return "true"
	}
	return "false"
}

// pyGrades prints grades as Python prints a list of them, as LIME's
// verbose output does: [True, False, None].
func pyGrades(gs []*bool) string {
	parts := make([]string, len(gs))
	for i, g := range gs {
		switch {
		case g == nil:
			parts[i] = "None"
		case *g:
			parts[i] = "True"
		default:
			parts[i] = "False"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// oneLine keeps an error to one line, so a report stays one line per file.
func oneLine(err error) error {
	s := err.Error()
	if !strings.ContainsAny(s, "\r\n") {
		return err
	}
	return errors.New(strings.Join(strings.Fields(s), " "))
}

// WriteTo prints the report: per file the number of changed grades, by
// cause, and each change (question: old -> new, and what changed it; see
// Change.Cause), with LIME's verbose lines when Verbose, and LIME's closing
// line on a dry run.
func (r *Report) WriteTo(w io.Writer) (int64, error) {
	var b bytes.Buffer
	var all []Change
	for _, err := range r.VerdictErrors {
		fmt.Fprintf(&b, "warning: %v (not applied)\n", oneLine(err))
	}
	for _, f := range r.Files {
		if f.Err != nil {
			fmt.Fprintf(&b, "error: %v\n", f.Err)
			continue
		}
		all = append(all, f.Changes...)
		fmt.Fprintf(&b, "%s: %s, %s changed%s", f.Path, count(f.Questions, "question"), count(len(f.Changes), "grade"), byCause(f.Changes))
		if f.Liberal > 0 {
			fmt.Fprintf(&b, ", %d graded liberally", f.Liberal)
			if f.Kept > 0 {
				fmt.Fprintf(&b, " (%d as a flag left them: grade -l or --grading; --grading strict grades them strictly)", f.Kept)
			}
		}
		if f.Reviewed > 0 {
			fmt.Fprintf(&b, ", %d by people's verdicts", f.Reviewed)
		}
		if n := len(f.Ungraded); n > 0 {
			fmt.Fprintf(&b, ", %d could not be graded", n)
		}
		b.WriteString("\n")
		if r.Verbose && f.TruthsFound > 0 {
			fmt.Fprintf(&b, "ground_truth entries from input: %s\nfound:  %d\nmatched: %d\noverwritten: %d\n",
				r.Sheet, f.TruthsFound, f.TruthsMatched, f.TruthsOverwritten)
		}
		for _, c := range f.Changes {
			fmt.Fprintf(&b, "  %s\n", c.explain(r.Sheet))
		}
		if r.Verbose {
			fmt.Fprintf(&b, "orig_grades:   %s\nnew_grades:    %s\n", pyGrades(f.Old), pyGrades(f.New))
		}
		if f.GradePath != "" {
			fmt.Fprintf(&b, "  wrote %s, %s and %s\n", f.Path, f.MarkdownPath, f.GradePath)
		}
	}
	fmt.Fprintf(&b, "%s, %s changed%s, %s failed\n", count(len(r.Files), "file"), count(len(all), "grade"), byCause(all), count(r.Failed(), "file"))
	if !r.Write {
		b.WriteString("Script done. To overwrite run with -w flag.\n")
	}
	n, err := w.Write(b.Bytes())
	return int64(n), err
}

// count is n things, "1 file" or "2 files".
func count(n int, thing string) string {
	if n == 1 {
		return "1 " + thing
	}
	return fmt.Sprintf("%d %ss", n, thing)
}

// byCause is " (liberal 15, grader 5)", or "" when nothing changed.
func byCause(changes []Change) string {
	if len(changes) == 0 {
		return ""
	}
	return " (" + causeCounts(changes) + ")"
}
