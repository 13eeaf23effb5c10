package databench

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/codemode"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// lineBreaks are the characters Python's str.splitlines breaks at, which
// databench_eval uses to read predictions.txt back; "\r\n" is one break.
var lineBreaks = strings.NewReplacer(
	"\r\n", " ", "\n", " ", "\r", " ", "\v", " ", "\f", " ",
	"\x1c", " ", "\x1d", " ", "\x1e", " ", "\u0085", " ", "\u2028", " ", "\u2029", " ",
)

// The files of a SemEval 2025 Task 8 submission.
const (
	predictionsFile     = "predictions.txt"      // answers on the full tables
	predictionsLiteFile = "predictions_lite.txt" // answers on the 20-row samples (DataBench lite)
)

// failedCall is the line the competition baseline saves for a question
// whose model call failed: call_gguf_model answers "__CODE_GEN_ERROR__",
// which example_postprocess cannot split at a second "return".
var failedCall = codemode.Failure(func() error {
	_, err := codemode.Extract(codemode.Baseline, "", "__CODE_GEN_ERROR__")
	return err
}()).Answer

// predictionLine is a question's line in a predictions file, as
// Runner.save_responses writes its response (str(response) with "\n" made
// " "), with every other line break Python's splitlines reads also made a
// space, so that line n stays question n:
//   - the text graded: in code mode the answer string, else the completion;
//   - code mode without an answer: the "__CODE_ERROR__: ..." string of what
//     stopped it (a sandbox limit), or, when the model gave nothing (an
//     error, a replay without the question), the line the baseline saves
//     for a failed model call ("__CODE_ERROR__: list index out of range");
//   - chat mode without a completion: an empty line.
//
// A question is in code mode when it ran so, or when its meta or its
// file's sheet says so (a question whose model call failed ran nothing).
func predictionLine(f *result.File, q *result.Question) string {
	if g := q.Graded(); g != nil {
		return lineBreaks.Replace(*g)
	}
	if !codeMode(f, q) {
		return ""
	}
	if q.CodeError != "" {
		return lineBreaks.Replace(codemode.ErrorAnswer(q.CodeError))
	}
	return failedCall
}

// codeMode says whether q was asked in code mode: it ran so, its record
// (or in an older file its meta) says so, or another question of its file
// ran so.
func codeMode(f *result.File, q *result.Question) bool {
	if q.Mode == model.ModeCode || f.SolveSetting(q, "mode") == model.ModeCode {
		return true
	}
	for i := range f.Questions {
		if f.Questions[i].Mode == model.ModeCode {
			return true
		}
	}
	return false
}

// writePredictions writes one output file's questions as a predictions
// file, a predictionLine each in the file's order.
func writePredictions(w io.Writer, f *result.File) error {
	if f == nil {
		return fmt.Errorf("semeval predictions: no output file")
	}
	var lines []string
	for i := range f.Questions {
		lines = append(lines, predictionLine(f, &f.Questions[i]))
	}
	if err := writeLines(w, lines); err != nil {
		return fmt.Errorf("semeval predictions for %q: %w", f.Sheet.Name, err)
	}
	return nil
}

func writeLines(w io.Writer, lines []string) error {
	bw := bufio.NewWriter(w)
	for _, l := range lines {
		bw.WriteString(l)
		bw.WriteByte('\n')
	}
	return bw.Flush()
}

// predictionFiles builds a run's submission from its output files (one model;
// dry runs left out): predictions.txt from the sheets of the full tables
// and predictions_lite.txt from the lite sheets (the "lite" meta), each
// present kind one file. Line n is QA row n (a question's "id" meta,
// which convert databench sets), as databench_eval's Runner saves a run
// over the QA table; every row from 0 to the last must be answered once.
// Output files without ids (not made from convert databench's sheets)
// are accepted one at a time, in the file's order.
func predictionFiles(files []*result.File) ([]benchmark.ExportFile, error) {
	var runs []*result.File
	models := map[string]bool{}
	for _, f := range files {
		if f != nil && !f.Sheet.DryRun {
			runs = append(runs, f)
			models[f.Sheet.ModelName] = true
		}
	}
	if len(runs) == 0 {
		return nil, fmt.Errorf("semeval predictions: no output file with answers (dry runs are left out)")
	}
	if len(models) > 1 {
		names := slices.Sorted(maps.Keys(models))
		return nil, fmt.Errorf("semeval predictions: output files of %d models (%s); give one model's run", len(names), strings.Join(names, ", "))
	}
	if len(runs) == 1 && !hasIDs(runs[0]) {
		f := runs[0]
		name := predictionsFile
		if f.Sheet.MetaData["lite"] == "true" {
			name = predictionsLiteFile
		}
		return []benchmark.ExportFile{{Name: name, Write: func(w io.Writer) error { return writePredictions(w, f) }}}, nil
	}
	type at struct {
		line  string
		sheet string
	}
	rows := map[bool]map[int]at{}
	for _, f := range runs {
		lite := f.Sheet.MetaData["lite"] == "true"
		if rows[lite] == nil {
			rows[lite] = map[int]at{}
		}
		where := fmt.Sprintf("sheet %q (run %s)", f.Sheet.Name, f.Sheet.RunID)
		for i := range f.Questions {
			q := &f.Questions[i]
			n, err := strconv.Atoi(q.ID())
			if err != nil || n < 0 {
				return nil, fmt.Errorf("semeval predictions: %s: question %q has no QA row number (id meta %q); give output files of evalmd convert databench's sheets", where, q.Name, q.ID())
			}
			if prev, dup := rows[lite][n]; dup {
				return nil, fmt.Errorf("semeval predictions: QA row %d answered twice, in %s and %s; give one run's files", n, prev.sheet, where)
			}
			rows[lite][n] = at{predictionLine(f, q), where}
		}
	}
	var out []benchmark.ExportFile
	for _, lite := range []bool{false, true} {
		byRow, ok := rows[lite]
		if !ok {
			continue
		}
		name := predictionsFile
		if lite {
			name = predictionsLiteFile
		}
		last := slices.Max(slices.Collect(maps.Keys(byRow)))
		// The rows are distinct, so they are 0 to last exactly when there
		// are last+1 of them; checked before anything is sized by last,
		// a number an output file claims.
		if n := last + 1 - len(byRow); n > 0 {
			var missing []string
			for row := 0; row <= last && len(missing) < 6; row++ {
				if _, ok := byRow[row]; !ok {
					missing = append(missing, strconv.Itoa(row))
				}
			}
			if len(missing) > 5 {
				missing = append(missing[:5], "...")
			}
			return nil, fmt.Errorf("semeval predictions: %s: %d QA rows before row %d have no answer in the output files (rows %s): a sheet not run, or a question left out", name, n, last, strings.Join(missing, ", "))
		}
		lines := make([]string, last+1)
		for n, a := range byRow {
			lines[n] = a.line
		}
		out = append(out, benchmark.ExportFile{Name: name, Write: func(w io.Writer) error { return writeLines(w, lines) }})
	}
	return out, nil
}

// hasIDs says whether any question of f has an id meta.
func hasIDs(f *result.File) bool {
	for i := range f.Questions {
		if f.Questions[i].ID() != "" {
			return true
		}
	}
	return false
}
