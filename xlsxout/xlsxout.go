// Package xlsxout writes Excel workbooks: agg's results as a workbook (agg
// -xlsx): a Leaderboard sheet (LIME's), a Models sheet with 95% intervals,
// a Grades sheet (one row per question, one column per run, coloured
// right, wrong and not graded) and a Completions sheet that each grade
// links to. Every sheet has its header frozen and filters on.
//
// It also holds the rules for every cell the tool writes into a workbook:
// text is stored as text in a cell formatted as text, so a completion that
// starts with =, +, - or @ is never a formula, not even after someone edits
// the cell; text longer than Excel's 32,767-character cell limit is cut
// with a visible marker saying how much was cut.
//
// WriteFile reads a folder of output files (once, through agg) and writes
// its workbook; Save writes the workbook of data already read.
//
// WriteXLSX writes a sheet as a workbook of its questions, for editing in a
// spreadsheet; ReadTable reads such a workbook, or a CSV or xlsx question
// table made elsewhere, back as a Table: the sheet and its text.
package xlsxout

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf16"

	"github.com/xuri/excelize/v2"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/report"
)

// maxCell is Excel's limit on a cell's text, in UTF-16 code units.
const maxCell = 32767

// cutCell returns s cut to fit a cell, ending with a marker saying how many
// characters were cut, and whether it cut. Invalid XML characters (C0
// controls other than tab, newline and carriage return), which no
// workbook can hold, become U+FFFD.
func cutCell(s string) (string, bool) {
	s = strings.Map(func(r rune) rune {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0xFFFE || r == 0xFFFF {
			return '\uFFFD'
		}
		return r
	}, s)
	n := utf16Len(s)
	if n <= maxCell {
		return s, false
	}
	// The marker's length depends on the count it holds; the count is at
	// most n, so size the marker for n.
	marker := func(cut int) string { return fmt.Sprintf("\n[... cut by evalmd: %d more characters]", cut) }
	room := maxCell - utf16Len(marker(n))
	var b strings.Builder
	used := 0
	for _, r := range s {
		w := utf16.RuneLen(r)
		if w < 0 {
			w = 1
		}
		if used+w > room {
			break
		}
		used += w
		b.WriteRune(r)
	}
	return b.String() + marker(n-used), true
}

func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// Options shape the workbook.
type Options struct {
	// Warn receives one line per output file that is skipped.
	Warn io.Writer
	// Force lets WriteFile replace a file evalmd did not write or that was
	// changed since (see internal/outfile).
	Force bool
	// IncludeDryRuns counts dry-run outputs, which agg leaves out by
	// default.
	IncludeDryRuns bool
}

// Save writes the workbook of d (agg's tables) and data (the questions) to
// path, as WriteFile does: what a command that read the folder once, for
// several reports, calls.
func Save(path string, d *agg.Data, data *report.Data, opt Options) error {
	b, err := build(d, data)
	if err != nil {
		return fmt.Errorf("xlsx: %w", err)
	}
	defer b.f.Close()
	buf, err := b.f.WriteToBuffer()
	if err != nil {
		return fmt.Errorf("xlsx: %w", err)
	}
	if err := outfile.Write(path, buf.Bytes(), outfile.Options{Force: opt.Force, Inputs: d.Paths}); err != nil {
		return fmt.Errorf("xlsx: %w", err)
	}
	return nil
}

// book is a workbook being written, with its styles.
type book struct {
	f                  *excelize.File
	text, head, number int // cell styles
	cut                int // cells cut to maxCell
}

func newBook() (*book, error) {
	f := excelize.NewFile()
	b := &book{f: f}
	var err error
	// Number format 49 is "@", text: what is typed into the cell stays text.
	if b.text, err = f.NewStyle(&excelize.Style{NumFmt: 49, Alignment: &excelize.Alignment{Vertical: "top"}}); err != nil {
		return nil, err
	}
	if b.head, err = f.NewStyle(&excelize.Style{NumFmt: 49, Font: &excelize.Font{Bold: true},
		Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{"E8EAED"}}}); err != nil {
		return nil, err
	}
	prec := 4
	if b.number, err = f.NewStyle(&excelize.Style{DecimalPlaces: &prec, NumFmt: 2}); err != nil {
		return nil, err
	}
	return b, nil
}

// cell names column col (0-based) of row (1-based).
func cell(col, row int) string {
	name, _ := excelize.CoordinatesToCellName(col+1, row)
	return name
}

// setText writes s as a text cell, cut to fit.
func (b *book) setText(sheet string, col, row int, s string) error {
	s, cut := cutCell(s)
	if cut {
		b.cut++
	}
	ref := cell(col, row)
	if err := b.f.SetCellStr(sheet, ref, s); err != nil {
		return err
	}
	return b.f.SetCellStyle(sheet, ref, ref, b.text)
}

// setNumber writes a number; NaN leaves the cell empty.
func (b *book) setNumber(sheet string, col, row int, v float64) error {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	ref := cell(col, row)
	if err := b.f.SetCellFloat(sheet, ref, v, -1, 64); err != nil {
		return err
	}
	return b.f.SetCellStyle(sheet, ref, ref, b.number)
}

func (b *book) setInt(sheet string, col, row, v int) error {
	return b.f.SetCellInt(sheet, cell(col, row), int64(v))
}

// table starts a sheet with a header row, frozen, filters on over rows
// rows of data, and column widths.
func (b *book) table(sheet string, header []string, widths []float64, rows int) error {
	if _, err := b.f.NewSheet(sheet); err != nil { // the existing one, if any
		return err
	}
	for i, h := range header {
		if err := b.f.SetCellStr(sheet, cell(i, 1), h); err != nil {
			return err
		}
		if i < len(widths) {
			col, _ := excelize.ColumnNumberToName(i + 1)
			if err := b.f.SetColWidth(sheet, col, col, widths[i]); err != nil {
				return err
			}
		}
	}
	if err := b.f.SetCellStyle(sheet, cell(0, 1), cell(len(header)-1, 1), b.head); err != nil {
		return err
	}
	if err := b.f.SetPanes(sheet, &excelize.Panes{Freeze: true, YSplit: 1, TopLeftCell: "A2", ActivePane: "bottomLeft"}); err != nil {
		return err
	}
	return b.f.AutoFilter(sheet, cell(0, 1)+":"+cell(len(header)-1, max(rows+1, 2)), nil)
}

// Grade words, as the page says them.
const (
	right     = "right"
	wrong     = "wrong"
	notGraded = "not graded"
)

func gradeWord(g int) string {
	switch g {
	case 1:
		return right
	case 0:
		return wrong
	}
	return notGraded
}

// build fills the workbook.
func build(d *agg.Data, data *report.Data) (*book, error) {
	b, err := newBook()
	if err != nil {
		return nil, err
	}
	if err := b.f.SetSheetName("Sheet1", "Leaderboard"); err != nil {
		return nil, err
	}
	steps := []func() error{
		func() error { return b.leaderboard(d) },
		func() error { return b.models(d) },
		func() error { return b.grades(data) },
	}
	for _, step := range steps {
		if err := step(); err != nil {
			b.f.Close()
			return nil, err
		}
	}
	return b, nil
}

// leaderboard is LIME's Leaderboard: per sheet and model, the questions
// and the mean grade (unrounded here; LIME's table rounds to 2 places).
func (b *book) leaderboard(d *agg.Data) error {
	const s = "Leaderboard"
	rows := d.Leaderboard()
	if err := b.table(s, []string{"input_name", "model_name", "num_questions", "pct_correct"}, []float64{36, 28, 14, 12}, len(rows)); err != nil {
		return err
	}
	for i, r := range rows {
		row := i + 2
		if err := b.setText(s, 0, row, r.Sheet); err != nil {
			return err
		}
		if err := b.setText(s, 1, row, r.Model); err != nil {
			return err
		}
		if err := b.setInt(s, 2, row, r.Questions); err != nil {
			return err
		}
		if err := b.setNumber(s, 3, row, r.Mean); err != nil {
			return err
		}
	}
	return nil
}

// models is agg's Models table: accuracy over all sheets with its 95%
// interval and stderr, over questions (agg.ModelTotal: a question answered
// in several epochs or runs is one, scored by the mean of its answers;
// correct / graded with Wilson's interval and Inspect's stderr when no
// question was answered twice).
func (b *book) models(d *agg.Data) error {
	const s = "Models"
	ts := d.Totals()
	header := []string{"model", "questions", "graded", "correct", "wrong", "not graded", "errors", "accuracy", "ci_low", "ci_high", "stderr"}
	if err := b.table(s, header, []float64{28, 11, 9, 9, 9, 11, 9, 10, 10, 10, 10}, len(ts)); err != nil {
		return err
	}
	for i, t := range ts {
		row := i + 2
		if err := b.setText(s, 0, row, t.Model); err != nil {
			return err
		}
		for j, v := range []int{t.Questions, t.Graded, t.Correct, t.Graded - t.Correct, t.Ungraded, t.Errors} {
			if err := b.setInt(s, 1+j, row, v); err != nil {
				return err
			}
		}
		for j, v := range []float64{t.Score, t.Lo, t.Hi, t.Stderr} {
			if t.Graded == 0 {
				v = math.NaN()
			}
			if err := b.setNumber(s, 7+j, row, v); err != nil {
				return err
			}
		}
	}
	return nil
}

// grades writes the Grades sheet (a question a row, a run a column,
// coloured by grade, each grade linked to its completion) and the
// Completions sheet (a row per question and run).
func (b *book) grades(data *report.Data) error {
	const g, c = "Grades", "Completions"
	header := []string{"sheet", "question", "ground truth"}
	widths := []float64{28, 28, 20}
	for _, r := range data.Runs {
		header = append(header, r.Label)
		widths = append(widths, 14)
	}
	if err := b.table(g, header, widths, len(data.Questions)); err != nil {
		return err
	}
	var answers int
	for _, q := range data.Questions {
		answers += len(q.Answers)
	}
	if err := b.table(c, []string{"sheet", "question", "run", "grade", "ground truth", "completion", "answer graded", "code or transcript", "error", "file"},
		[]float64{28, 28, 20, 11, 20, 80, 20, 80, 30, 30}, answers); err != nil {
		return err
	}
	crow := 2
	for i, q := range data.Questions {
		row := i + 2
		sheet := data.Sheets[q.Sheet]
		if err := b.setText(g, 0, row, sheet); err != nil {
			return err
		}
		if err := b.setText(g, 1, row, q.Name); err != nil {
			return err
		}
		if len(q.Answers) > 0 {
			if gt, ok := data.Text(q.Answers[0].Truth); ok {
				if err := b.setText(g, 2, row, gt); err != nil {
					return err
				}
			}
		}
		for k, a := range q.Answers {
			// A run's epochs come together, in order: its cell in
			// Grades says them all and links to the first.
			if k == 0 || q.Answers[k-1].Run != a.Run {
				ref := cell(3+a.Run, row)
				if err := b.setText(g, 3+a.Run, row, epochGrades(q.Answers[k:], a.Run)); err != nil {
					return err
				}
				if err := b.f.SetCellHyperLink(g, ref, fmt.Sprintf("%s!%s", c, cell(5, crow)), "Location"); err != nil {
					return err
				}
			}
			label := data.Runs[a.Run].Label
			if a.Epoch > 0 {
				label += fmt.Sprintf(" · epoch %d", a.Epoch)
			}
			texts := []string{sheet, q.Name, label, gradeWord(a.Grade)}
			truth, _ := data.Text(a.Truth)
			completion, _ := data.Text(a.Completion)
			answer, work := workTexts(data, a)
			errText, _ := data.Text(a.Error)
			texts = append(texts, truth, completion, answer, work, errText, a.File)
			for j, t := range texts {
				if t == "" {
					continue
				}
				if err := b.setText(c, j, crow, t); err != nil {
					return err
				}
			}
			crow++
		}
	}
	// Colours by grade, on the grade columns of both sheets.
	last := max(len(data.Questions)+1, 2)
	if len(data.Runs) > 0 {
		if err := b.colourGrades(g, cell(3, 2)+":"+cell(2+len(data.Runs), last)); err != nil {
			return err
		}
	}
	return b.colourGrades(c, cell(3, 2)+":"+cell(3, max(crow-1, 2)))
}

// epochGrades is the Grades cell of run's answers at the start of as (a
// run's epochs, together): the grade when they agree, else how many were
// right, "3 of 5 right".
func epochGrades(as []report.Answer, run int) string {
	n, right, same := 0, 0, true
	for _, a := range as {
		if a.Run != run {
			break
		}
		n++
		if a.Grade == 1 {
			right++
		}
		same = same && a.Grade == as[0].Grade
	}
	if same {
		return gradeWord(as[0].Grade)
	}
	return fmt.Sprintf("%d of %d right", right, n)
}

// workTexts are what an answer's code ran beside its completion: code
// mode's answer (the text graded), and the code executed (with its error)
// or an agent's transcript, turn by turn. Chat answers have neither.
func workTexts(data *report.Data, a report.Answer) (answer, work string) {
	var parts []string
	code := ""
	for _, s := range a.Sections {
		t, _ := data.Text(s.Text)
		switch s.Title {
		case report.SectionAnswer:
			answer = t
		case report.SectionDetail, report.SectionSubs, report.SectionJudge:
		default:
			if s.Title == report.SectionCode {
				code = t
			}
			parts = append(parts, s.Title+":\n"+t)
		}
	}
	if len(parts) == 1 && code != "" {
		return answer, code // the code alone needs no title
	}
	return answer, strings.Join(parts, "\n\n")
}

// colourGrades colours right green, wrong red and not graded grey.
func (b *book) colourGrades(sheet, ref string) error {
	var opts []excelize.ConditionalFormatOptions
	for _, c := range []struct{ word, fill, font string }{
		{right, "C6EFCE", "006100"}, {wrong, "FFC7CE", "9C0006"}, {notGraded, "E7E6E6", "595959"},
	} {
		id, err := b.f.NewConditionalStyle(&excelize.Style{
			Font: &excelize.Font{Color: c.font},
			Fill: excelize.Fill{Type: "pattern", Pattern: 1, Color: []string{c.fill}, Shading: 0},
		})
		if err != nil {
			return err
		}
		opts = append(opts, excelize.ConditionalFormatOptions{Type: "cell", Criteria: "==", Format: &id, Value: strconv.Quote(c.word)})
	}
	return b.f.SetConditionalFormat(sheet, ref, opts)
}
