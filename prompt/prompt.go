// Package prompt turns a sheet question into the request sent to a model:
// the system message, the user message (from the sheet's template, or
// LIME's concatenation of sheet and question text), images, generation
// settings and truncation to the model's context.
//
// A sheet's template sees Data: the question's texts, meta and each File,
// and Data.Table, which renders one of its tables ({{.Table "data.csv"}}).
//
// A question's turns (the sheet's few-shot turns, then its own) are sent
// as messages before the user message, which stays the last; its schema
// section is the request's Schema, and asks for a JSON answer.
package prompt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"text/template"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/table"
)

// Data is what a sheet's template sees.
type Data struct {
	Name          string
	Meta          map[string]string
	Question      string // the question's own text, cut at the end token
	SheetQuestion string // the sheet-level question text, cut
	Prompt        string // LIME's prompt: SheetQuestion + Question
	Context       string
	Files         []File // every file of the question, in sheet order
	Workbooks     []File // the workbook files (.xlsx, .xlsm, .xlsb), rendered
	Tables        []File // .csv/.tsv/.json/.jsonl (text loaded) and .parquet (referenced) files
	Images        []File // images that will be sent (none for a model without vision)
	Model         string

	table func(name string) (string, error)
}

// Table renders one of the question's table files (.csv, .tsv, .parquet,
// .jsonl), named as in its files section or by its base name, as the
// table_rows and table_format meta ask: {{.Table "data.csv"}}.
func (d Data) Table(name string) (string, error) {
	if d.table == nil {
		return "", fmt.Errorf("no tables here")
	}
	return d.table(name)
}

// File is a file named in a sheet's files section.
type File struct {
	Path string // as resolved: relative to the sheet
	Name string // base name, as benchmarks print it
	Kind string // "workbook", "table", "image" or "text"
	Text string // a workbook's rendering or a text file's content; "" otherwise
}

// Builder builds requests for the questions of one run. It caches
// rendered workbooks, which every question of a DSBench competition shares.
type Builder struct {
	// Dir is the folder of the sheet; files are relative to it.
	Dir string
	// Model is the model name, visible to templates and truncation.
	Model string
	// Vision says whether the model takes images.
	Vision bool
	// UserFirst says the model refuses a conversation that opens with an
	// assistant turn (model.Info.UserFirst): such a question is refused
	// at its first turn's line.
	UserFirst bool
	// RenderWorkbook renders a workbook as the model sees it (package
	// workbook). Nil means workbooks are an error.
	RenderWorkbook func(ctx context.Context, path string) (string, error)
	// Truncate cuts a user message to the model's context as the
	// question's settings ask (truncate, reserve_tokens, context_limit,
	// encoding); nil, or a question without truncate, leaves it whole.
	Truncate func(text string, p setting.Prompt) (string, error)
	// Settings are the run's own settings (the config files' and the
	// flags'), laid with the sheet's and the question's meta into each
	// question's (see setting.Resolve).
	Settings []setting.Layer
	// SheetMeta is the sheet's own meta. The settings that steer a
	// question (generation settings, truncation limits) come from its meta,
	// else the sheet's: LIME copies the sheet's meta only into questions
	// with a meta section, so a sheet-wide max_tokens would otherwise do
	// nothing for the others.
	SheetMeta map[string]string
	// SheetMetaLines gives the line of each key of SheetMeta.
	SheetMetaLines map[string]int
	// Warn receives warnings (a setting ignored), each once; nil drops them.
	Warn func(msg string)
	// AllowOutsideFiles sends files that resolve (links followed) outside
	// the sheet's folder and DataRoots; without it such a file is an
	// error, so a sheet cannot send /etc/passwd.
	AllowOutsideFiles bool
	// DataRoots are folders the user vouches for (run --data-root): a
	// sheet's files may also resolve below them. A sheet's own data_root
	// meta never widens what it may send: a sheet from a stranger could
	// name "/". Converted sheets name their data folder there, which the
	// error then suggests passing.
	DataRoots []string
	// MissingTable, when set, is told of each parquet table a chat
	// question names that does not exist, and the question is built: its
	// prompt only names the table (DataBench's chat sheets, converted
	// without the tables). Nil, or a question in code or agent mode, which
	// hands the table to the sandbox, makes it an error.
	MissingTable func(path string)

	mu     sync.Mutex
	warned map[string]bool
	files  map[string]fileResult
	tmpls  map[*sheet.Located]*template.Template
	// stopped holds the templates stopped at a bound (bound.go) for a
	// question: they are not run again for the others.
	stopped map[*sheet.Located]*limitError
	tables  map[tableKey]tableResult
}

// tableKey is one rendering of a table file.
type tableKey struct {
	path   string
	rows   int
	format table.Format
}

type tableResult struct {
	text string
	err  error
}

type fileResult struct {
	f   File
	img []byte
	err error
}

// Build makes the task for one question: the request sent, and beside it
// the question and how its answer is made. sheetPath names the sheet in
// errors.
func (b *Builder) Build(ctx context.Context, sheetPath string, it *sheet.Item) (model.Task, error) {
	req, _, err := b.BuildSettings(ctx, sheetPath, it)
	return req, err
}

// BuildSettings is Build, also returning the question's settings as
// resolved (what its output records).
func (b *Builder) BuildSettings(ctx context.Context, sheetPath string, it *sheet.Item) (model.Task, setting.Values, error) {
	return b.BuildResolved(ctx, sheetPath, it, nil)
}

// Layers are the layers of a question's settings (setting.Resolve): its
// sheet's meta (sheetMeta, at sheetLines), its own meta, then run's (the
// config files' and the flags').
func Layers(sheetPath string, sheetMeta map[string]string, sheetLines map[string]int, it *sheet.Item, run []setting.Layer) []setting.Layer {
	return append([]setting.Layer{
		{Source: setting.SheetMeta, File: sheetPath, Values: sheetMeta, Lines: sheetLines},
		{Source: setting.QuestionMeta, File: sheetPath, Values: it.Meta, Lines: it.MetaLines},
	}, run...)
}

// BuildResolved is BuildSettings with the question's settings resolved
// already, once for the run (setting.ResolveKept of its Layers): their
// warnings are said and their error returned where they would be
// resolved. Nil resolves them from SheetMeta, the question's meta and
// Settings.
func (b *Builder) BuildResolved(ctx context.Context, sheetPath string, it *sheet.Item, r *setting.Resolved) (model.Task, setting.Values, error) {
	var none setting.Values
	req := model.Task{Question: model.QuestionRef{
		Sheet: sheetPath, Name: it.Name, ID: it.Meta["id"], GroundTruth: it.GroundTruth,
		IDIsNumber: it.Meta["id_type"] == "number",
	}}
	d := Data{
		Name: it.Name, Meta: it.Meta, Question: it.Text, SheetQuestion: it.SheetText,
		Prompt: it.Prompt, Model: b.Model,
	}
	if it.Context != nil {
		d.Context = *it.Context
	}
	files, err := b.readFiles(ctx, sheetPath, it, &d)
	if err != nil {
		return req, none, err
	}
	if r == nil {
		r = setting.ResolveKept(it.Name, Layers(sheetPath, b.SheetMeta, b.SheetMetaLines, it, b.Settings)...)
	}
	for _, w := range r.Warnings {
		b.warn(w)
	}
	if r.Err != nil {
		return req, none, r.Err
	}
	v := r.Values
	user, system := it.Prompt, it.System
	if it.Template != nil {
		if user, system, err = b.render(ctx, sheetPath, it, d, v.Prompt, files.tablePaths); err != nil {
			return req, none, err
		}
	}
	if b.Truncate != nil {
		cut, err := b.Truncate(user, v.Prompt)
		if err != nil {
			return req, none, fmt.Errorf("%s:%d: question %q: truncate: %w", sheetPath, it.Line, it.Name, err)
		}
		user = cut
	}
	if system != nil {
		req.System = *system
	}
	if req.Messages, err = b.conversation(sheetPath, it); err != nil {
		return req, none, err
	}
	req.Messages = append(req.Messages, model.Message{Role: "user", Content: user, Images: files.images})
	req.Settings = v.Gen
	if err := answerFormat(sheetPath, it, &req); err != nil {
		return req, none, err
	}
	if sv := v.Solving(); sv != nil {
		// Code and agent modes see every file of the question under its
		// base name, images included.
		for _, f := range d.Files {
			sv.Files = append(sv.Files, f.Path)
		}
		req.Solve = sv
		if files.missingErr != nil {
			return req, none, files.missingErr
		}
	}
	for _, f := range files.missing {
		b.MissingTable(f.Path)
	}
	return req, v, nil
}

// questionFiles is what a question's files give its request besides its
// template's Data.
type questionFiles struct {
	images     []model.Image
	tablePaths map[string]string // files-section text and base name -> path
	missing    []File            // named-only tables that do not exist
	missingErr error             // the first of them, an error in code and agent modes
}

// readFiles reads the question's files into d (Files, Workbooks, Tables,
// and Images when the model takes them).
func (b *Builder) readFiles(ctx context.Context, sheetPath string, it *sheet.Item, d *Data) (questionFiles, error) {
	out := questionFiles{tablePaths: map[string]string{}}
	for _, loc := range it.Files {
		fr := b.file(ctx, loc.Text)
		if fr.err != nil && b.MissingTable != nil && onlyNamed(fr.f) && errors.Is(fr.err, fs.ErrNotExist) {
			out.missing = append(out.missing, fr.f)
			if out.missingErr == nil {
				out.missingErr = fmt.Errorf("%s:%d: %w", sheetPath, loc.Line, fr.err)
			}
		} else if fr.err != nil {
			return out, fmt.Errorf("%s:%d: %w", sheetPath, loc.Line, fr.err)
		}
		d.Files = append(d.Files, fr.f)
		switch fr.f.Kind {
		case "workbook":
			d.Workbooks = append(d.Workbooks, fr.f)
		case "table":
			d.Tables = append(d.Tables, fr.f)
			out.tablePaths[loc.Text] = fr.f.Path
			if _, ok := out.tablePaths[fr.f.Name]; !ok {
				out.tablePaths[fr.f.Name] = fr.f.Path
			}
		case "image":
			if b.Vision {
				d.Images = append(d.Images, fr.f)
				out.images = append(out.images, model.Image{MediaType: mediaType(fr.f.Name), Data: fr.img})
			}
		}
	}
	return out, nil
}

// render is the user message the question's template makes of d, and the
// system message when the template defines "system"; its tables are
// rendered as p says.
func (b *Builder) render(ctx context.Context, sheetPath string, it *sheet.Item, d Data, p setting.Prompt, tablePaths map[string]string) (string, *string, error) {
	format, err := table.ParseFormat(p.TableFormat)
	if err != nil {
		return "", nil, fmt.Errorf("%s:%d: question %q: %w", sheetPath, it.Line, it.Name, err)
	}
	rows := -1
	if p.TableRows != nil {
		rows = *p.TableRows
	}
	d.table = func(name string) (string, error) {
		path, ok := tablePaths[name]
		if !ok {
			return "", fmt.Errorf("%q is not a table in the question's files", name)
		}
		return b.renderTable(ctx, path, rows, format)
	}
	t, err := b.template(sheetPath, it.Template)
	if err != nil {
		return "", nil, err
	}
	return b.execute(ctx, sheetPath, it, t, d)
}

// onlyNamed says whether f is a file a chat prompt only names: a parquet
// table, which is never read into the prompt.
func onlyNamed(f File) bool {
	return f.Kind == "table" && strings.EqualFold(filepath.Ext(f.Path), ".parquet")
}

// warn passes msg to Warn once per run: a sheet-wide setting would
// otherwise be reported for every question.
func (b *Builder) warn(msg string) {
	if b.Warn == nil {
		return
	}
	b.mu.Lock()
	seen := b.warned[msg]
	if b.warned == nil {
		b.warned = map[string]bool{}
	}
	b.warned[msg] = true
	b.mu.Unlock()
	if !seen {
		b.Warn(msg)
	}
}

func (b *Builder) template(sheetPath string, loc *sheet.Located) (*template.Template, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if t, ok := b.tmpls[loc]; ok {
		return t, nil
	}
	t, err := template.New("user").Option("missingkey=error").Parse(loc.Text)
	if err != nil {
		n, msg := templateMessage(err)
		return nil, fmt.Errorf("%s:%d: templates section: %s", sheetPath, loc.Line+n, msg)
	}
	if err := guard(t); err != nil {
		n := 1
		if le, ok := errors.AsType[*limitError](err); ok {
			n = lineAt(loc.Text, le.pos)
		}
		return nil, fmt.Errorf("%s:%d: templates section: %w", sheetPath, loc.Line+n, err)
	}
	if b.tmpls == nil {
		b.tmpls = map[*sheet.Located]*template.Template{}
	}
	b.tmpls[loc] = t
	return t, nil
}

// templatePrefix is how text/template starts its errors: "template:
// NAME:LINE[:COL]: " and, when executing, "executing "NAME" at <...>: "
// (the action stays, the rest goes).
var templatePrefix = regexp.MustCompile(`^template: [^:]*:(\d+)(?::\d+)?: (?:executing "[^"]*" )?`)

// templateMessage splits a text/template error into the line it names,
// relative to the template text (1 when it names none), and its message
// without the "template: NAME:LINE:" prefix.
func templateMessage(err error) (int, string) {
	msg := err.Error()
	m := templatePrefix.FindStringSubmatch(msg)
	if m == nil {
		return 1, strings.TrimPrefix(msg, "template: ")
	}
	n, _ := strconv.Atoi(m[1])
	return n, msg[len(m[0]):]
}

// templateError reports a template that failed for one question: the
// question's line and name, then the sheet line of the template text.
func templateError(sheetPath string, it *sheet.Item, err error) error {
	n, msg := templateMessage(err)
	if le, ok := errors.AsType[*limitError](err); ok {
		n, msg = lineAt(it.Template.Text, le.pos), le.msg
	}
	return causedError{fmt.Sprintf("%s:%d: question %q: template at line %d: %s", sheetPath, it.Line, it.Name, it.Template.Line+n, msg), err}
}

// causedError is a message said in its own words that still unwraps to its
// cause, so a caller sees that a template stopped because its context
// ended (errors.Is(err, context.Canceled)).
type causedError struct {
	msg   string
	cause error
}

func (e causedError) Error() string { return e.msg }
func (e causedError) Unwrap() error { return e.cause }

// renderTable reads and renders a table once per run and rendering.
func (b *Builder) renderTable(ctx context.Context, path string, rows int, f table.Format) (string, error) {
	k := tableKey{path, rows, f}
	b.mu.Lock()
	r, ok := b.tables[k]
	b.mu.Unlock()
	if ok {
		return r.text, r.err
	}
	t, err := table.Read(ctx, path, table.Options{})
	if err == nil {
		r.text, r.err = t.Head(rows).String(f)
	} else {
		r.err = err
	}
	b.mu.Lock()
	if b.tables == nil {
		b.tables = map[tableKey]tableResult{}
	}
	b.tables[k] = r
	b.mu.Unlock()
	return r.text, r.err
}

// file loads a file once per run.
func (b *Builder) file(ctx context.Context, rel string) fileResult {
	b.mu.Lock()
	if fr, ok := b.files[rel]; ok {
		b.mu.Unlock()
		return fr
	}
	b.mu.Unlock()
	fr := b.load(ctx, rel)
	b.mu.Lock()
	if b.files == nil {
		b.files = map[string]fileResult{}
	}
	b.files[rel] = fr
	b.mu.Unlock()
	return fr
}

// largeFile is the size past which a file a sheet sends draws a warning:
// it is read whole and sent with every question that names it.
const largeFile = 50 << 20

func (b *Builder) load(ctx context.Context, rel string) fileResult {
	path := rel
	if !filepath.IsAbs(path) {
		path = filepath.Join(b.Dir, rel)
	}
	f := File{Path: path, Name: filepath.Base(path), Kind: fileKind(path)}
	if err := b.checkPlace(rel, path); err != nil {
		return fileResult{f: f, err: err}
	}
	switch f.Kind {
	case "workbook":
		if b.RenderWorkbook == nil {
			return fileResult{f: f, err: fmt.Errorf("%s: workbooks cannot be rendered here", path)}
		}
		text, err := b.RenderWorkbook(ctx, path)
		if err != nil {
			return fileResult{f: f, err: err}
		}
		f.Text = text
		return fileResult{f: f}
	case "table":
		// Text tables are loaded so a template may inline them; parquet is
		// only referenced.
		if onlyNamed(f) {
			_, err := os.Stat(path)
			return fileResult{f: f, err: err}
		}
		data, err := readfile.Read(path, readfile.Data)
		f.Text = string(data)
		return fileResult{f: f, err: err}
	case "image":
		data, err := readfile.Read(path, readfile.Data)
		return fileResult{f: f, img: data, err: err}
	default:
		data, err := readfile.Read(path, readfile.Data)
		f.Text = string(data)
		return fileResult{f: f, err: err}
	}
}

// checkPlace refuses a file that resolves outside the sheet's folder and
// the DataRoots (unless AllowOutsideFiles), and warns about a large one. A
// file that does not exist is left to the reading, which names it.
func (b *Builder) checkPlace(rel, path string) error {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil
	}
	fi, err := os.Stat(real)
	if err != nil {
		return nil
	}
	if !fi.Mode().IsRegular() {
		// A FIFO would hold the run forever, waiting for a writer.
		return fmt.Errorf("file %q (%s) is %w: a FIFO, a device or a folder is never sent", rel, real, readfile.ErrNotRegular)
	}
	if fi.Size() > largeFile {
		b.warn(fmt.Sprintf("file %s is %d MB: it is read whole and sent with every question that names it", path, fi.Size()>>20))
	}
	if b.AllowOutsideFiles {
		return nil
	}
	for _, root := range append([]string{b.Dir}, b.DataRoots...) {
		if r, err := filepath.EvalSymlinks(root); err == nil && readfile.Within(real, r) {
			return nil
		}
	}
	where := "the sheet's folder"
	if len(b.DataRoots) > 0 {
		where += " and --data-root " + strings.Join(b.DataRoots, ", ")
	}
	if dr := b.SheetMeta["data_root"]; dr != "" {
		if !filepath.IsAbs(dr) {
			dr = filepath.Join(b.Dir, dr)
		}
		at := ""
		if n := b.SheetMetaLines["data_root"]; n > 0 {
			at = fmt.Sprintf(" (line %d)", n)
		}
		return fmt.Errorf("file %q resolves to %s, outside %s; the sheet's own data_root%s cannot send files from outside its folder: --data-root %s does, if you trust that folder",
			rel, real, where, at, dr)
	}
	return fmt.Errorf("file %q resolves to %s, outside %s; --allow-outside-files sends it anyway", rel, real, where)
}

// ImageNames are the base names of the image files of a question, in
// its files section's order: what its message carries to a model that
// takes images (Builder.Vision), and what the others are not sent.
func ImageNames(it *sheet.Item) []string {
	var out []string
	for _, loc := range it.Files {
		if fileKind(loc.Text) == "image" {
			out = append(out, filepath.Base(filepath.FromSlash(loc.Text)))
		}
	}
	return out
}

// fileKind classifies a file by its extension.
func fileKind(path string) string {
	switch strings.ToLower(filepath.Ext(path)) {
	case ".xlsx", ".xlsm", ".xlsb":
		return "workbook"
	case ".csv", ".tsv", ".parquet", ".json", ".jsonl":
		return "table"
	case ".png", ".jpg", ".jpeg", ".gif", ".webp":
		return "image"
	}
	return "text"
}

func mediaType(name string) string {
	switch strings.ToLower(filepath.Ext(name)) {
	case ".png":
		return "image/png"
	case ".gif":
		return "image/gif"
	case ".webp":
		return "image/webp"
	}
	return "image/jpeg"
}
