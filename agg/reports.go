package agg

import (
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode"

	"github.com/evalmd/evalmd/agg/load"
	"github.com/evalmd/evalmd/agg/render"
	"github.com/evalmd/evalmd/internal/mdcell"
	"github.com/evalmd/evalmd/internal/visible"
)

// Report is which report agg writes. As in LIME's agg, each report type
// replaces the default report.
type Report int

const (
	// Summary is the default report: LIME's tables, then agg's own.
	Summary Report = iota
	// Completions lists every question's completions, a row per run, the
	// runs of a question one under another (LIME's --completions).
	Completions
	// DiscrepanciesFull lists the questions graded differently between
	// runs, each run's grade and completion side by side (LIME's
	// --discrepancies-full).
	DiscrepanciesFull
)

// LIME's headings of the two report types, as agg.py writes them
// (trailing space included).
const (
	limeCompletionsTitle   = "### Questions/IDs: full Completions "
	limeDiscrepanciesTitle = "### Model/RunIDs: rows where grade_bool has discrepancy "
)

// textFormat is LIME's fmt_field: long text wrapped to width columns, cut
// to height lines and then to chars characters (with "..."), its control
// characters made visible; for markdown, escaped as every cell's when the
// table is written (line ends <br>).
type textFormat struct {
	width, height, chars int
	markdown             bool
}

// LIME's settings (AggSettings for markdown, fmt_field's defaults for the
// terminal; the full discrepancies cut terminal text at 20 characters).
var (
	mdText        = textFormat{width: 60, height: 7, chars: 300, markdown: true}
	screenText    = textFormat{width: 30, height: 3, chars: 90}
	screenDiscAll = textFormat{width: 30, height: 3, chars: 20}
)

// apply formats s.
func (f textFormat) apply(s string) string {
	lines := wrap(visible.Lines(s), f.width)
	if len(lines) > f.height {
		lines = lines[:f.height]
	}
	s = strings.Join(lines, "\n")
	if r := []rune(s); len(r) > f.chars {
		s = string(r[:f.chars]) + "..."
	}
	// LIME's markdown also wrote '<' and '>' as entities; the table
	// escapes the text as every cell's (mdcell.Literal: '<' where it
	// could open a tag, markup, line ends).
	return s
}

// wrap is Python's textwrap.wrap(s, width) in its common case: every white
// space character counts as a space, words are filled greedily into lines
// of at most width characters, a longer word is broken.
func wrap(s string, width int) []string {
	var lines []string
	var line []rune
	for _, word := range strings.FieldsFunc(s, unicode.IsSpace) {
		w := []rune(word)
		for len(w) > 0 {
			switch {
			case len(line) == 0 && len(w) <= width:
				line, w = append(line, w...), nil
			case len(line) > 0 && len(line)+1+len(w) <= width:
				line = append(append(line, ' '), w...)
				w = nil
			case len(line) > 0:
				lines = append(lines, string(line))
				line = nil
			default: // a word longer than a line
				lines = append(lines, string(w[:width]))
				w = w[width:]
			}
		}
	}
	if len(line) > 0 {
		lines = append(lines, string(line))
	}
	return lines
}

// answers returns the kept questions (LoadOptions.Answers) keep accepts,
// their texts formatted by f. They come by sheet, name, model and run.
func (d *Data) answers(keep func(sheet, name string) bool, f textFormat) ([]load.Answer, error) {
	kept, ok := d.Kept()
	if !ok {
		return nil, errors.New("agg: LIME's report types need the data loaded with LoadOptions.Answers")
	}
	var out []load.Answer
	for _, a := range kept {
		if !keep(a.Sheet, a.Name) {
			continue
		}
		if a.Completion != nil {
			s := f.apply(*a.Completion)
			a.Completion = &s
		}
		if a.Code != nil {
			s := f.apply(*a.Code)
			a.Code = &s
		}
		out = append(out, a)
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Sheet != b.Sheet {
			return a.Sheet < b.Sheet
		}
		if a.Name != b.Name {
			return a.Name < b.Name
		}
		if a.Model != b.Model {
			return a.Model < b.Model
		}
		if a.RunID != b.RunID {
			return a.RunID < b.RunID
		}
		return a.Epoch < b.Epoch
	})
	return out, nil
}

func textValue(s *string) render.CellValue {
	if s == nil {
		return render.NullCell()
	}
	return render.TextCell(*s)
}

func gradeValue(g *bool) render.CellValue {
	switch {
	case g == nil:
		return render.NullCell()
	case *g:
		return render.TextCell("True")
	}
	return render.TextCell("False")
}

// completionsTables is the Completions report: one table, a row per
// question and run. A column "answer" holds code mode's answer when any
// question has one.
func (d *Data) completionsTables(f textFormat) ([]limeTable, error) {
	as, err := d.answers(func(string, string) bool { return true }, f)
	if err != nil {
		return nil, err
	}
	code := false
	for _, a := range as {
		code = code || a.Code != nil
	}
	fr := render.DataFrame{Columns: []string{"input_name", "name", "model_name", "run_id", "completion"}}
	if code {
		fr.Columns = append(fr.Columns, "answer")
	}
	for _, a := range as {
		row := []render.CellValue{render.TextCell(a.Sheet), render.TextCell(a.Name), render.TextCell(a.Model), render.TextCell(a.Run), textValue(a.Completion)}
		if code {
			row = append(row, textValue(a.Code))
		}
		fr.Rows = append(fr.Rows, row)
	}
	return []limeTable{{limeCompletionsTitle, fr}}, nil
}

// discrepanciesTables is the DiscrepanciesFull report: per sheet, the
// questions graded both right and wrong (as the default report's
// discrepancies), a row each, with a grade column and a completion column
// per run of the sheet (LIME's pivot). A run that repeats a question name
// shows its first.
func (d *Data) discrepanciesTables(f textFormat) ([]limeTable, error) {
	ds, _ := d.Discrepancies(0)
	differ := map[[2]string]bool{}
	for _, q := range ds {
		differ[[2]string{q.Sheet, q.Name}] = true
	}
	as, err := d.answers(func(sheet, name string) bool { return differ[[2]string{sheet, name}] }, f)
	if err != nil {
		return nil, err
	}
	sep, esc := "\n", func(s string) string { return s }
	if f.markdown {
		sep, esc = "<br>", mdcell.Literal // the header is written as it is
	}
	type run struct{ model, id string }
	var out []limeTable
	for len(as) > 0 {
		sheet := as[0].Sheet
		n := 1
		for n < len(as) && as[n].Sheet == sheet {
			n++
		}
		group := as[:n]
		as = as[n:]
		col := map[run]int{}
		var runs []run
		for _, a := range group {
			r := run{a.Model, a.Run}
			if _, ok := col[r]; !ok {
				col[r] = 0
				runs = append(runs, r)
			}
		}
		sort.Slice(runs, func(i, j int) bool {
			if runs[i].model != runs[j].model {
				return runs[i].model < runs[j].model
			}
			return runs[i].id < runs[j].id
		})
		fr := render.DataFrame{Columns: []string{"name"}}
		for i, r := range runs {
			col[r] = i
			fr.Columns = append(fr.Columns, strings.Join([]string{"grade_bool", esc(r.model), esc(r.id)}, sep))
		}
		for _, r := range runs {
			fr.Columns = append(fr.Columns, strings.Join([]string{"completion", esc(r.model), esc(r.id)}, sep))
		}
		var row []render.CellValue
		filled := make([]bool, len(runs))
		for i, a := range group {
			if i == 0 || a.Name != group[i-1].Name {
				row = make([]render.CellValue, 1+2*len(runs))
				for j := range row {
					row[j] = render.NullCell()
				}
				row[0] = render.TextCell(a.Name)
				clear(filled)
				fr.Rows = append(fr.Rows, row)
			}
			c := col[run{a.Model, a.Run}]
			if filled[c] {
				continue
			}
			filled[c] = true
			row[1+c] = gradeValue(a.Grade)
			row[1+len(runs)+c] = textValue(a.Completion)
		}
		heading := limeDiscrepanciesTitle
		if f.markdown {
			heading += "\n\n#### " + mdcell.Literal(sheet)
		} else {
			heading = "Discrepancies with completions: " + sheet
		}
		out = append(out, limeTable{heading, fr})
	}
	if len(out) == 0 {
		out = append(out, limeTable{limeDiscrepanciesTitle, render.DataFrame{Columns: []string{"name"}}})
	}
	return out, nil
}

// Text renders the report kind: as markdown, or laid out for a terminal
// when screen is set (LIME's --terminal). The summary's markdown is
// Markdown's.
func (d *Data) Text(kind Report, screen bool, opt ReportOptions) (string, error) {
	var tables []limeTable
	var err error
	switch kind {
	case Summary:
		if !screen {
			return d.Markdown(opt)
		}
		return d.screenSummary(opt)
	case Completions:
		f := mdText
		if screen {
			f = screenText
		}
		tables, err = d.completionsTables(f)
	case DiscrepanciesFull:
		f := mdText
		if screen {
			f = screenDiscAll
		}
		tables, err = d.discrepanciesTables(f)
	default:
		return "", fmt.Errorf("agg: unknown report type %d", kind)
	}
	if err != nil {
		return "", err
	}
	var b strings.Builder
	for _, t := range tables {
		if screen {
			s, err := t.frame.Screen(strings.TrimPrefix(t.heading, "### "))
			if err != nil {
				return "", err
			}
			b.WriteString(s)
			continue
		}
		b.WriteString(t.heading + "\n\n")
		if len(t.frame.Rows) == 0 {
			b.WriteString("(none)\n\n")
			continue
		}
		b.WriteString(render.Tabulate(t.frame) + "\n\n")
	}
	return b.String(), nil
}

// screenSummary is the default report laid out for a terminal: LIME's
// tables (All Questions cut to its first 10 rows, as LIME does on a
// terminal), then agg's own.
func (d *Data) screenSummary(opt ReportOptions) (string, error) {
	var b strings.Builder
	for i, t := range d.limeTables() {
		header, numeric, rows := t.frame.Cells()
		more := 0
		if i == 2 && len(rows) > 10 {
			rows, more = rows[:10], len(rows)-10
		}
		s, err := render.ScreenTable(strings.TrimPrefix(t.heading, "### "), "", header, numeric, rows, more)
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	for _, t := range append(d.ownTables(opt), opt.Extra...) {
		s, err := t.Screen()
		if err != nil {
			return "", err
		}
		b.WriteString(s)
	}
	if len(opt.Charts) > 0 {
		b.WriteString("Charts\n\n")
		for _, c := range opt.Charts {
			fmt.Fprintf(&b, "%s: %s\n", c.Title, c.File)
		}
		b.WriteString("\n")
	}
	return b.String(), nil
}
