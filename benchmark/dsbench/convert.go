package dsbench

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
)

// sheetTemplate is the user-message template of every DSBench sheet: the
// notebook's f-strings (see Context and User) as a Go text/template, with the
// notebook's odd spacing spelled {{"\n"}} so no line of the sheet ends in a
// space an editor could strip. .Context holds the introduction and
// .Workbooks the rendered workbooks, in the files section's order.
const sheetTemplate = `{{if .Workbooks}}The workbook is detailed as follows. {{range .Workbooks}}The excel file {{.Name}} is: {{.Text}}{{end}} {{"\n"}}{{end}}` +
	`The introduction is detailed as follows. {{"\n"}} {{.Context}} {{"\n"}}` +
	`The questions are detailed as follows. {{"\n"}} {{.Question}}`

// imageSystemTemplate is prepended to sheetTemplate for a competition with an
// image: the notebook's system message gains a second trailing space when
// the image is sent (.Images is empty for a model without vision).
const imageSystemTemplate = `{{define "system"}}` + System + `{{if .Images}} {{end}}{{end}}`

// sheetName is the file name of a competition's sheet; run -d picks up
// input*.md files.
func sheetName(id string) string { return "input-dsbench-" + id + ".md" }

// Sheet returns the sheet of one competition. sheetDir is the folder the
// sheet will be written to: the files section names the competition's
// workbooks and image relative to it, so the sheet finds them where Load
// found them.
//
// The sheet holds: meta (benchmark, competition, name, url, year, the
// DSBench truncation rule for package tokens, and the generation settings
// of the notebook), the system message, the introduction as context, the
// files, the template, and per question its meta id ("<competition>/<question
// name>"), its text and its answer. The answer is Answer.Python(): the text
// DSBench's judge (compute_answer.py) is shown as the true answer; the
// answer's JSON and kind are in the question's meta.
func (c *Competition) Sheet(sheetDir string) *sheet.Doc {
	meta := []string{
		"benchmark: " + Name,
		"competition: " + c.ID,
		"name: " + oneLine(c.Name),
		"url: " + oneLine(c.URL),
		"year: " + strconv.Itoa(c.Year),
		"grader: judge",
		// The notebook's truncation (see package tokens, ForMeta).
		"truncate: keep-last",
		"reserve_tokens: 6000",
		// The notebook's request settings. The text-only request leaves
		// max_tokens at the API default (the argument is commented out);
		// the one with an image sets 2256.
		"temperature: 0",
		"top_p: 1",
	}
	if c.Image != "" {
		meta = append(meta, "max_tokens: 2256")
	}
	// The files live in the competition's folder, which the sheet names as
	// its data root so a run sends them (see prompt.Builder).
	root, err := filepath.Rel(sheetDir, c.Dir)
	if err != nil {
		root = c.Dir
	}
	meta = append(meta, "data_root: "+filepath.ToSlash(root))
	var files []string
	for _, name := range append(append([]string(nil), c.Workbooks...), imageList(c.Image)...) {
		rel, err := filepath.Rel(sheetDir, filepath.Join(c.Dir, name))
		if err != nil {
			rel = filepath.Join(c.Dir, name)
		}
		files = append(files, "- "+filepath.ToSlash(rel))
	}
	tmpl := sheetTemplate
	if c.Image != "" {
		tmpl = imageSystemTemplate + sheetTemplate
	}
	head := sheet.Block{Kind: sheet.SheetKind, Name: "DSBench " + c.ID + ": " + oneLine(c.Name)}
	head.Sections = append(head.Sections,
		sheet.Section{Kind: "meta", Text: strings.Join(meta, "\n") + "\n"},
		sheet.Section{Kind: "system", Text: System},
	)
	if c.Introduction != "" {
		// An empty section draws a warning; without one .Context is "" too.
		head.Sections = append(head.Sections, sheet.Section{Kind: "context", Text: c.Introduction})
	}
	if len(files) > 0 {
		head.Sections = append(head.Sections, sheet.Section{Kind: "files", Text: strings.Join(files, "\n") + "\n"})
	}
	head.Sections = append(head.Sections, sheet.Section{Kind: "templates", Text: tmpl})
	doc := &sheet.Doc{Blocks: []sheet.Block{head}}
	for _, q := range c.Questions {
		qmeta := []string{
			"id: " + c.ID + "/" + q.Name,
			"answer_kind: " + q.Answer.Kind.String(),
		}
		if q.Answer.Kind != KindString {
			qmeta = append(qmeta, "answer_json: "+q.Answer.JSON)
		}
		doc.Blocks = append(doc.Blocks, sheet.Block{
			Kind: sheet.QuestionKind,
			Name: q.Name,
			Sections: []sheet.Section{
				{Kind: "meta", Text: strings.Join(qmeta, "\n") + "\n"},
				{Kind: "question", Text: q.Text},
				{Kind: "answer", Text: q.Answer.Python()},
			},
		})
	}
	return doc
}

func imageList(image string) []string {
	if image == "" {
		return nil
	}
	return []string{image}
}

// oneLine keeps a meta value or name on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// Options say what to convert.
type Options struct {
	// Data is DSBench's data_analysis folder (data.json and data/).
	Data string `flag:"i,required" meta:"DATA" usage:"DSBench's data_analysis folder (data.json and data/)"`
	// Out is the folder the sheets are written to.
	Out string `flag:"o,required" meta:"DIR" usage:"output folder for the sheets"`
	// Write says which existing sheets may be replaced (see
	// internal/outfile); Data is always an input.
	Write outfile.Options
}

// Convert loads the DSBench data folder opt.Data and writes one sheet per
// competition with questions into opt.Out (see Sheet and sheetName). It
// returns the sheets written and every problem met; a competition that
// cannot be loaded or written is reported and the others are still written.
// opt.Write says which existing sheets may be replaced (see
// internal/outfile).
func Convert(opt Options) ([]string, []error) {
	dataDir, outDir := opt.Data, opt.Out
	opt.Write.Inputs = append(opt.Write.Inputs, dataDir)
	comps, errs := Load(dataDir)
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return nil, append(errs, fmt.Errorf("dsbench: %w", err))
	}
	var written []string
	for i := range comps {
		c := &comps[i]
		if len(c.Questions) == 0 {
			continue // the notebook skips it too
		}
		data, err := sheet.Format(c.Sheet(outDir), schema.Default())
		if err != nil {
			errs = append(errs, fmt.Errorf("dsbench: competition %s: %w", c.ID, err))
			continue
		}
		path := filepath.Join(outDir, sheetName(c.ID))
		if err := outfile.Write(path, data, opt.Write); err != nil {
			errs = append(errs, fmt.Errorf("dsbench: %w", err))
			continue
		}
		written = append(written, path)
	}
	return written, errs
}
