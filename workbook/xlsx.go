package workbook

import (
	"archive/zip"
	"bufio"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"path"
	"strconv"
	"strings"
)

// This file reads .xlsx/.xlsm the way openpyxl 3.0.9 does for pandas
// (load_workbook(read_only=True, data_only=True)): cached formula values,
// shared and inline strings, dates from the cell style's number format,
// error cells, no merged-cell filling, worksheets only (chartsheets are not
// listed; macro and dialog sheets are). A Strict-OOXML workbook uses other
// namespaces, which openpyxl does not recognise, so it has no sheets.
//
// The package's parts are read here (content types, relationships, the
// workbook, shared strings, styles); xlsxsheet.go reads the sheets' rows.

const (
	nsMain    = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	nsRel     = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
	nsPkgRels = "http://schemas.openxmlformats.org/package/2006/relationships"

	ctSharedStrings = "application/vnd.openxmlformats-officedocument.spreadsheetml.sharedStrings+xml"
)

// workbookTypes are the content types openpyxl accepts for the workbook
// part, in the order it looks for them.
var workbookTypes = []string{
	"application/vnd.ms-excel.template.macroEnabled.main+xml",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.template.main+xml",
	"application/vnd.ms-excel.sheet.macroEnabled.main+xml",
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml",
}

type xlsxSheet struct {
	name, part string
}

type xlsxBook struct {
	file    string
	opts    Options
	zr      *zip.Reader
	files   map[string]*zip.File
	budget  int64 // uncompressed bytes left to read
	sheets  []xlsxSheet
	shared  []string
	dateXF  map[int]bool
	mac     bool
	sharedP string
}

func openXLSX(file string, zr *zip.Reader, opts Options) (*xlsxBook, error) {
	b := &xlsxBook{file: file, opts: opts, zr: zr, files: map[string]*zip.File{}, budget: opts.MaxUncompressed}
	for _, f := range zr.File {
		b.files[f.Name] = f
	}
	wbPart, overrides, err := b.manifest()
	if err != nil {
		return nil, err
	}
	for _, o := range overrides {
		if o[1] == ctSharedStrings && b.sharedP == "" {
			b.sharedP = o[0]
		}
	}
	if err := b.readWorkbook(wbPart); err != nil {
		return nil, err
	}
	if b.sharedP != "" {
		if err := b.readShared(b.sharedP); err != nil {
			return nil, err
		}
	}
	if err := b.readStyles("xl/styles.xml"); err != nil {
		return nil, err
	}
	return b, nil
}

// open returns a reader for one part, charged against the budget so a
// zip bomb ends in an error instead of exhausting memory.
func (b *xlsxBook) open(name string) (io.ReadCloser, error) {
	f := b.files[name]
	if f == nil {
		return nil, fmt.Errorf("%s: part %s: %w", b.file, name, errMissingPart)
	}
	if int64(f.UncompressedSize64) > b.budget && f.UncompressedSize64 > 0 {
		return nil, fmt.Errorf("%s: part %s inflates to %d bytes: %w", b.file, name, f.UncompressedSize64, ErrTooLarge)
	}
	rc, err := f.Open()
	if err != nil {
		return nil, fmt.Errorf("%s: part %s: %w", b.file, name, err)
	}
	return &budgetReader{r: rc, b: b, name: name}, nil
}

var errMissingPart = errors.New("missing from the archive")

type budgetReader struct {
	r    io.ReadCloser
	b    *xlsxBook
	name string
}

func (r *budgetReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.b.budget -= int64(n)
	if r.b.budget < 0 {
		return n, fmt.Errorf("%s: part %s: more than %d uncompressed bytes: %w", r.b.file, r.name, r.b.opts.MaxUncompressed, ErrTooLarge)
	}
	return n, err
}

func (r *budgetReader) Close() error { return r.r.Close() }

func attr(se xml.StartElement, space, local string) (string, bool) {
	for _, a := range se.Attr {
		if a.Name.Local == local && a.Name.Space == space {
			return a.Value, true
		}
	}
	return "", false
}

// manifest reads [Content_Types].xml and picks the workbook part as
// openpyxl's _find_workbook_part does. overrides lists (part, content
// type) pairs in document order.
func (b *xlsxBook) manifest() (wb string, overrides [][2]string, err error) {
	var defaults []string
	rc, err := b.open("[Content_Types].xml")
	if err != nil {
		return "", nil, err
	}
	defer rc.Close()
	d := xml.NewDecoder(bufio.NewReader(rc))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return "", nil, fmt.Errorf("%s: [Content_Types].xml: %w", b.file, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		ct, _ := attr(se, "", "ContentType")
		switch se.Name.Local {
		case "Override":
			pn, _ := attr(se, "", "PartName")
			overrides = append(overrides, [2]string{strings.TrimPrefix(pn, "/"), ct})
		case "Default":
			defaults = append(defaults, ct)
		}
	}
	for _, want := range workbookTypes {
		for _, o := range overrides {
			if o[1] == want {
				return o[0], overrides, nil
			}
		}
	}
	for _, ct := range defaults {
		for _, want := range workbookTypes {
			if ct == want {
				return "xl/workbook.xml", overrides, nil
			}
		}
	}
	return "", nil, fmt.Errorf("%s: file contains no valid workbook part", b.file)
}

// rels reads the relationships of part, resolving targets as openpyxl's
// get_dependents does.
func (b *xlsxBook) rels(part string) (map[string][2]string, error) {
	relsPath := path.Join(path.Dir(part), "_rels", path.Base(part)+".rels")
	out := map[string][2]string{}
	if b.files[relsPath] == nil {
		return out, nil
	}
	rc, err := b.open(relsPath)
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	folder := path.Dir(relsPath)
	parent := path.Dir(folder)
	d := xml.NewDecoder(bufio.NewReader(rc))
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %s: %w", b.file, relsPath, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Local != "Relationship" {
			continue
		}
		id, _ := attr(se, "", "Id")
		typ, _ := attr(se, "", "Type")
		target, _ := attr(se, "", "Target")
		if mode, _ := attr(se, "", "TargetMode"); mode == "External" {
			continue
		}
		if strings.HasPrefix(target, "/") {
			target = target[1:]
		} else {
			target = path.Clean(path.Join(parent, target))
		}
		out[id] = [2]string{typ, target}
	}
	return out, nil
}

func (b *xlsxBook) readWorkbook(part string) error {
	rels, err := b.rels(part)
	if err != nil {
		return err
	}
	rc, err := b.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := xml.NewDecoder(bufio.NewReader(rc))
	type ref struct{ name, id string }
	var refs []ref
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", b.file, part, err)
		}
		se, ok := tok.(xml.StartElement)
		if !ok || se.Name.Space != nsMain {
			continue
		}
		switch se.Name.Local {
		case "workbookPr":
			if v, ok := attr(se, "", "date1904"); ok && (v == "1" || strings.EqualFold(v, "true")) {
				b.mac = true
			}
		case "sheet":
			name, _ := attr(se, "", "name")
			id, _ := attr(se, nsRel, "id")
			refs = append(refs, ref{name, id})
		}
	}
	for _, r := range refs {
		rel, ok := rels[r.id]
		if !ok {
			return fmt.Errorf("%s: %s: sheet %q has no relationship %q", b.file, part, r.name, r.id)
		}
		if b.files[rel[1]] == nil {
			continue
		}
		if strings.Contains(rel[0], "chartsheet") {
			continue
		}
		b.sheets = append(b.sheets, xlsxSheet{name: r.name, part: rel[1]})
	}
	if b.sharedP == "" {
		for _, rel := range rels {
			if strings.HasSuffix(rel[0], "/sharedStrings") && b.files[rel[1]] != nil {
				b.sharedP = rel[1]
			}
		}
	}
	return nil
}

// readRichText returns openpyxl's Text.content of the <si> or <is>
// element just opened: the plain <t> and the <t> of each <r> run, in
// order, leaving out phonetic runs.
func readRichText(s *xscan) (string, error) {
	if s.selfClose {
		return "", nil
	}
	var out []byte
	depth := 1
	for s.next() {
		if s.end {
			depth--
			if depth == 0 {
				return string(out), nil
			}
			continue
		}
		if s.selfClose {
			continue
		}
		switch {
		case s.is("rPh") || s.is("phoneticPr"):
			if !s.skipElement() {
				break
			}
			continue
		case s.is("t"):
			var err error
			if out, err = s.text(out); err != nil {
				return "", err
			}
		}
		depth++
	}
	if err := s.Err(); err != nil {
		return "", err
	}
	return "", io.ErrUnexpectedEOF
}

func (b *xlsxBook) readShared(part string) error {
	rc, err := b.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	s := newXScan(rc)
	for s.next() {
		if s.end || !s.is("si") {
			continue
		}
		str, err := readRichText(s)
		if err != nil {
			return fmt.Errorf("%s: %s: string %d: %w", b.file, part, len(b.shared), err)
		}
		// openpyxl's read_string_table drops every "x005F_" (a
		// half-handled escape), so "_x005F_x000D_" reads "_x000D_".
		b.shared = append(b.shared, strings.ReplaceAll(str, "x005F_", ""))
	}
	if err := s.Err(); err != nil {
		return fmt.Errorf("%s: %s: %w", b.file, part, err)
	}
	return nil
}

// readStyles finds the cell formats (cellXfs) whose number format is a
// date or an elapsed time, as openpyxl's stylesheet does.
func (b *xlsxBook) readStyles(part string) error {
	b.dateXF = map[int]bool{}
	if b.files[part] == nil {
		return nil
	}
	rc, err := b.open(part)
	if err != nil {
		return err
	}
	defer rc.Close()
	d := xml.NewDecoder(bufio.NewReader(rc))
	custom := map[int]string{}
	var xfs []int
	inXfs := false
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %s: %w", b.file, part, err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			switch t.Name.Local {
			case "numFmt":
				var id int
				var code string
				for _, a := range t.Attr {
					switch a.Name.Local {
					case "numFmtId":
						id, _ = strconv.Atoi(a.Value)
					case "formatCode":
						code = a.Value
					}
				}
				custom[id] = code
			case "cellXfs":
				inXfs = true
			case "xf":
				if inXfs {
					id := 0
					for _, a := range t.Attr {
						if a.Name.Local == "numFmtId" {
							id, _ = strconv.Atoi(a.Value)
						}
					}
					xfs = append(xfs, id)
				}
			}
		case xml.EndElement:
			if t.Name.Local == "cellXfs" {
				inXfs = false
			}
		}
	}
	for i, id := range xfs {
		code, ok := custom[id]
		if !ok {
			code, ok = builtinFormats[id]
		}
		if !ok {
			continue
		}
		if isDateFormat(code) {
			b.dateXF[i] = true
		}
	}
	return nil
}
