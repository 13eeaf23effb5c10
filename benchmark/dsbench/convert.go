package dsbench

import (
	"context"
	"fmt"
	"path"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/dsbench/score"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/workbook"
)

// The notebook's system messages, byte for byte. Both say "give  you" with
// two spaces; the text-only one ends in one space, the one sent with an
// image in two (get_gpt_res has two copies of the request that drifted).
const (
	System      = "You are a data analyst. I will give  you a background introduction and data analysis question. You must answer the question. "
	SystemImage = "You are a data analyst. I will give  you a background introduction and data analysis question. You must answer the question.  "
)

// sheetTemplate is the user-message template of every DSBench sheet: the
// notebook's f-strings (see Context and User) as a Go text/template, with the
// notebook's odd spacing spelled {{"\n"}} so no line of the sheet ends in a
// space an editor could strip. .Context holds the introduction and
// .Workbooks the rendered workbooks, in the files section's order.
const sheetTemplate = `{{if .Workbooks}}The workbook is detailed as follows. {{range .Workbooks}}The excel file {{.Name}} is: {{.Text}}{{end}} {{"\n"}}{{end}}` +
	introTemplate

// introTemplate is the notebook's introduction and question part, which
// agent sheets keep after their paragraph about the files.
const introTemplate = `The introduction is detailed as follows. {{"\n"}} {{.Context}} {{"\n"}}` +
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
// name>"), its text and its answer. The answer is answer.Python(): the text
// DSBench's judge (compute_answer.py) is shown as the true answer; the
// answer's JSON and kind are in the question's meta.
func (c *Competition) Sheet() *sheet.Doc {
	return c.sheet(nil)
}

// sheetCSV is one sheet of a competition's workbook written as CSV for an
// agent sheet (see workbook.CSV).
type sheetCSV struct {
	Workbook string // the workbook's file name
	Sheet    string // the sheet's name in it
	Path     string // the CSV file, relative to the sheet's folder
}

// AgentSheet returns the agent-mode sheet of one competition: the chat
// sheet's system message, introduction and questions, but no workbook text
// in the prompt; instead the workbooks, and each of their sheets as CSV
// (csvs), are in the sandbox's working directory under their base names,
// and the prompt says so. DSBench's best setting is an agent (AutoGen with
// GPT-4o); pandas in the sandbox reads .xlsx and .xlsm (openpyxl) but not
// .xlsb (pyxlsb is not in Debian), hence the CSV files.
func (c *Competition) AgentSheet(csvs []sheetCSV) *sheet.Doc {
	return c.sheet(&csvs)
}

// sheet is the chat sheet, or the agent sheet when csvs is not nil.
func (c *Competition) sheet(csvs *[]sheetCSV) *sheet.Doc {
	meta := []string{
		"benchmark: " + score.Name,
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
	if csvs != nil {
		meta = append(meta, "mode: agent")
	}
	// The files are put beside the sheet, in its competition's folder
	// (see linkFiles): a sheet sends files from below its own folder only,
	// unless the user vouches for another (run --data-root).
	root := filesDir(c.ID)
	meta = append(meta, "data_root: "+root)
	var files []string
	for _, name := range c.files() {
		rel := path.Join(root, name)
		files = append(files, "- "+rel)
	}
	tmpl := sheetTemplate
	if csvs != nil {
		for _, f := range *csvs {
			files = append(files, "- "+filepath.ToSlash(f.Path))
		}
		tmpl = agentFiles(c.Workbooks, *csvs) + introTemplate
	}
	if c.Image != "" {
		// The system message only: the user message stays the chat or
		// the agent template chosen above.
		tmpl = imageSystemTemplate + tmpl
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
		if q.Answer.Kind != kindString {
			qmeta = append(qmeta, "answer_json: "+q.Answer.JSON)
		}
		if q.Answer.Kind == kindObject {
			// A dict is also graded by its members (the json grader reads
			// the Python text the judge is shown), recorded beside the
			// judge's grade.
			qmeta = append(qmeta, "also_grade: json")
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

// agentFiles is the paragraph of an agent sheet's prompt that names the
// files in the working directory, as template text.
func agentFiles(books []string, csvs []sheetCSV) string {
	if len(books) == 0 {
		return ""
	}
	var b strings.Builder
	b.WriteString("The workbooks of this task are in the working directory of the python tool, read-only, under these names: ")
	b.WriteString(strings.Join(books, ", "))
	b.WriteString(".")
	if len(csvs) > 0 {
		b.WriteString(" pandas there reads .xlsx and .xlsm files (pd.read_excel) but not .xlsb, so each sheet of each workbook is also there as a CSV file (as pd.read_excel reads the sheet, written with to_csv(index=False)):\n")
		for _, f := range csvs {
			fmt.Fprintf(&b, "- %s: sheet %q of %s\n", filepath.Base(f.Path), f.Sheet, f.Workbook)
		}
	} else {
		b.WriteString("\n")
	}
	// Template text: only "{{" has a meaning there.
	return strings.ReplaceAll(b.String(), "{{", `{{"{{"}}`)
}

// writeCSVs writes each sheet of each of c's workbooks as CSV into
// dir/dsbench-<id>/ (under outDir), named <workbook>-<sheet>.csv made
// file-safe and unique among the competition's files. A workbook is read
// only from below dataDir; one that cannot be read is reported, and the
// others are still written.
func (c *Competition) writeCSVs(ctx context.Context, dataDir, outDir string, w outfile.Options) ([]sheetCSV, []error) {
	if len(c.Workbooks) == 0 {
		return []sheetCSV{}, nil
	}
	sub := filesDir(c.ID)
	dir := filepath.Join(outDir, sub)
	if err := outfile.MkdirAll(dir, 0o755); err != nil {
		return []sheetCSV{}, []error{fmt.Errorf("dsbench: %w", err)}
	}
	taken := map[string]bool{}
	for _, b := range c.Workbooks {
		taken[strings.ToLower(b)] = true
	}
	if c.Image != "" {
		taken[strings.ToLower(c.Image)] = true
	}
	out := []sheetCSV{}
	var errs []error
	for _, book := range c.Workbooks {
		stem := fileSafe(strings.TrimSuffix(book, filepath.Ext(book)))
		real, err := readfile.Inside(filepath.Join(c.Dir, book), dataDir)
		if err != nil {
			errs = append(errs, fmt.Errorf("dsbench: competition %s: %w", c.ID, err))
			continue
		}
		err = workbook.CSV(ctx, real, workbook.Options{}, func(name string, data []byte) error {
			base := stem + "-" + fileSafe(name)
			file := base + ".csv"
			for n := 2; taken[strings.ToLower(file)]; n++ {
				file = base + "-" + strconv.Itoa(n) + ".csv"
			}
			taken[strings.ToLower(file)] = true
			if err := outfile.Write(filepath.Join(dir, file), data, w); err != nil {
				return err
			}
			out = append(out, sheetCSV{Workbook: book, Sheet: name, Path: filepath.Join(sub, file)})
			return nil
		})
		if err != nil {
			errs = append(errs, fmt.Errorf("dsbench: competition %s: sheets of %s as CSV: %w", c.ID, book, err))
		}
	}
	return out, errs
}

// fileSafe keeps ASCII letters, digits, '.', '_' and '-' of s and turns
// every other character into '_'.
func fileSafe(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

func imageList(image string) []string {
	if image == "" {
		return nil
	}
	return []string{image}
}

// filesDir is the folder, beside the sheets, of a competition's files: its
// workbooks and image, and in agent mode their CSVs.
func filesDir(id string) string { return "dsbench-" + id }

// files are the names of the competition's files a sheet sends, in Dir.
func (c *Competition) files() []string {
	return append(append([]string(nil), c.Workbooks...), imageList(c.Image)...)
}

// linkFiles puts the competition's files in its folder under outDir, as
// hard links where the file system allows, else copies (outfile.Link); a
// file that leads out of the data folder is refused.
func (c *Competition) linkFiles(dataDir, outDir string, w outfile.Options) error {
	for _, name := range c.files() {
		if _, err := outfile.Link(filepath.Join(outDir, filesDir(c.ID), name), filepath.Join(c.Dir, name), dataDir, w); err != nil {
			return fmt.Errorf("dsbench: competition %s: %w; skipped", c.ID, err)
		}
	}
	return nil
}

// oneLine keeps a meta value or name on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// The sheet modes Convert writes.
const (
	// modeChat sheets (the default) are the notebook's: one completion,
	// the workbooks' text in the prompt.
	modeChat = "chat"
	// modeAgent sheets answer in agent mode: the workbooks, and each of
	// their sheets as CSV, in the sandbox's working directory.
	modeAgent = "agent"
)

// Options say what to convert.
type Options struct {
	// Data is DSBench's data_analysis folder (data.json and data/).
	Data string `flag:"i,required" meta:"DATA" usage:"DSBench's data_analysis folder (data.json and data/)"`
	// Out is the folder the sheets are written to.
	Out string `flag:"o,required" meta:"DIR" usage:"output folder for the sheets"`
	// Mode is "chat" (modeChat; empty means it) or "agent" (modeAgent).
	Mode string `flag:"mode" usage:"sheet mode: chat (default: the notebook's prompt, workbooks as text) or agent (workbooks, and their sheets as CSV, in the sandbox's working directory)"`
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
func Convert(ctx context.Context, opt Options) ([]string, []error) {
	dataDir, outDir := opt.Data, opt.Out
	switch opt.Mode {
	case "", modeChat, modeAgent:
	default:
		return nil, []error{fmt.Errorf("dsbench: mode %q: want %s or %s", opt.Mode, modeChat, modeAgent)}
	}
	opt.Write.Inputs = append(opt.Write.Inputs, dataDir)
	comps, errs := Load(dataDir)
	if err := outfile.MkdirAll(outDir, 0o755); err != nil {
		return nil, append(errs, fmt.Errorf("dsbench: %w", err))
	}
	var written []string
	var bare []string // competitions written without a workbook
	for i := range comps {
		c := &comps[i]
		if len(c.Questions) == 0 {
			continue // the notebook skips it too
		}
		if err := c.linkFiles(dataDir, outDir, opt.Write); err != nil {
			errs = append(errs, err)
			continue
		}
		doc := c.Sheet()
		if opt.Mode == modeAgent {
			csvs, cerrs := c.writeCSVs(ctx, dataDir, outDir, opt.Write)
			errs = append(errs, cerrs...)
			doc = c.AgentSheet(csvs)
		}
		data, err := sheet.Format(doc, schema.Default())
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
		if len(c.Workbooks) == 0 {
			bare = append(bare, c.ID)
		}
	}
	if n := noWorkbooks(dataDir, bare, len(written)); n != nil {
		errs = append(errs, n)
	}
	return written, errs
}

// noWorkbooks is the note of the competitions converted without a
// workbook (DSBench's data without its download of workbooks), nil for
// none: their prompts hold the introduction and questions, which ask
// about the workbook's data ("provided in the workbook"), and none of it.
func noWorkbooks(dataDir string, ids []string, written int) error {
	if len(ids) == 0 {
		return nil
	}
	named := strings.Join(ids, ", ")
	if len(ids) > 5 {
		named = strings.Join(ids[:5], ", ") + fmt.Sprintf(" and %d more", len(ids)-5)
	}
	return &benchmark.Note{Text: fmt.Sprintf("dsbench: %d of %d competitions have no workbook (.xlsx, .xlsm, .xlsb) in %s: %s. "+
		"Their sheets send none, so the model sees the introduction and the questions, which ask about the workbook's data "+
		"(\"provided in the workbook\"), and none of that data: put each competition's workbooks (DSBench's data_analysis download) in data/<id>/ and convert again",
		len(ids), written, filepath.Join(dataDir, "data", "<id>"), named)}
}
