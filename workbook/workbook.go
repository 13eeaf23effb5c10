// Package workbook reads .xlsx, .xlsm and .xlsb workbooks as pandas 1.5.3
// reads them, for the text DSBench gives a model.
//
// Render prints, for every sheet pandas lists, "Sheet name: {name}\n"
// followed by DataFrame.to_string(index=False) of
// pd.ExcelFile(path).parse(name) and a blank line, byte for byte what
// pandas 1.5.3 with openpyxl 3.0.9 (.xlsx, .xlsm) or pyxlsb (.xlsb)
// prints. This package reads each sheet into the cells that engine hands
// pandas; package pandastext builds the frame from them and prints it.
//
// The readers' quirks are part of the output on purpose, because a
// model's score is only comparable with the paper when it saw the same
// text: error cells are NaN from openpyxl but hex code strings ("0x7") from
// pyxlsb; pyxlsb gives dates as serial numbers; openpyxl skips chartsheets
// while pyxlsb lists them; a Strict-OOXML workbook has no sheets.
//
// Render and RenderTo read a file; RenderReader reads bytes already in
// memory. CSV gives each sheet as pandas' to_csv of the same frame, for code
// that cannot open the workbook itself. Options bound the work on untrusted input: a zip bomb or an
// oversized sheet ends in an error wrapping ErrTooLarge, a legacy .xls, an
// encrypted workbook or a non-workbook in one wrapping ErrUnsupported.
//
// The .xlsx reader is this package's own, not excelize's, because reading
// as openpyxl reads is the whole job. An excelize-based reader was measured:
// to match all 48 reference workbooks it needed three
// workarounds reaching into excelize's unexported internals, it cost 9x
// the CPU, 6x the memory and 11x the allocations of this reader, and 13
// known differences from openpyxl's reading would have had to be undone
// on top of it.
package workbook

import (
	"archive/zip"
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evalmd/evalmd/internal/pandastext"
	"github.com/evalmd/evalmd/internal/readfile"
)

// Options bound the work Render does on untrusted files. The zero value
// gives defaults far above any real benchmark workbook.
type Options struct {
	// MaxUncompressed is the most bytes read from inside the zip archive
	// in total; a zip bomb stops with ErrTooLarge instead of filling
	// memory. Zero means 512 MiB.
	MaxUncompressed int64
	// MaxCells bounds the cells of one sheet's grid (rows x columns as
	// pandas pads it). Zero means 10 million.
	MaxCells int64
}

func (o Options) withDefaults() Options {
	if o.MaxUncompressed <= 0 {
		o.MaxUncompressed = 512 << 20
	}
	if o.MaxCells <= 0 {
		o.MaxCells = 10_000_000
	}
	return o
}

// ErrTooLarge is wrapped by errors for input past a size limit.
var ErrTooLarge = errors.New("workbook too large")

// ErrUnsupported is wrapped by errors for files that are not a workbook
// this package reads: legacy .xls, encrypted workbooks, other formats.
var ErrUnsupported = errors.New("unsupported workbook format")

// Render returns the DSBench text of the workbook at path.
func Render(ctx context.Context, path string) (string, error) {
	var b strings.Builder
	if err := RenderTo(ctx, &b, path, Options{}); err != nil {
		return "", err
	}
	return b.String(), nil
}

// RenderTo writes the DSBench text of the workbook at path to w, one sheet
// at a time, so memory holds one sheet's text rather than the whole
// workbook's.
func RenderTo(ctx context.Context, w io.Writer, path string, opts Options) error {
	f, err := readfile.Open(path)
	if err != nil {
		return fmt.Errorf("workbook: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("workbook: %w", err)
	}
	return RenderReader(ctx, w, path, f, st.Size(), opts)
}

// RenderReader is RenderTo for a workbook held in r (size bytes); name
// only labels errors.
func RenderReader(ctx context.Context, w io.Writer, name string, r io.ReaderAt, size int64, opts Options) error {
	opts = opts.withDefaults()
	src, err := openSource(name, r, size, opts)
	if err != nil {
		return err
	}
	defer src.close()
	b := bufio.NewWriterSize(w, 64<<10)
	for _, sheet := range src.sheetNames() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err := src.rows(ctx, sheet)
		if err != nil {
			return err
		}
		b.WriteString("Sheet name: ")
		b.WriteString(sheet)
		b.WriteByte('\n')
		if err := renderSheet(b, rows, opts); err != nil {
			return fmt.Errorf("%s: sheet %q: %w", name, sheet, err)
		}
		b.WriteString("\n\n")
	}
	if err := b.Flush(); err != nil {
		return fmt.Errorf("%s: writing: %w", name, err)
	}
	return nil
}

// renderSheet writes to_string(index=False) of the frame pandas builds
// from rows.
func renderSheet(b *bufio.Writer, rows [][]pandastext.Value, opts Options) error {
	width := 0
	for _, r := range rows {
		if len(r) > width {
			width = len(r)
		}
	}
	if int64(width)*int64(len(rows)) > opts.MaxCells {
		return fmt.Errorf("%d rows x %d columns is more than %d cells: %w", len(rows), width, opts.MaxCells, ErrTooLarge)
	}
	fr := pandastext.FromRows(rows)
	return fr.Print(b)
}

// source is one open workbook: its sheet names in pandas' order and each
// sheet's rows as the pandas engine's get_sheet_data returns them.
type source interface {
	sheetNames() []string
	rows(ctx context.Context, name string) ([][]pandastext.Value, error)
	close() error
}

var (
	magicZip = []byte("PK\x03\x04")
	magicCFB = []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}
)

// openSource sniffs the file as pandas' inspect_excel_format does and opens
// it with the matching reader.
func openSource(name string, r io.ReaderAt, size int64, opts Options) (source, error) {
	head := make([]byte, 8)
	n, _ := r.ReadAt(head, 0)
	head = head[:n]
	switch {
	case bytes.HasPrefix(head, magicCFB):
		return nil, fmt.Errorf("%s: a CFB container (legacy .xls or an encrypted workbook): %w", name, ErrUnsupported)
	case !bytes.HasPrefix(head, magicZip) && !bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return nil, fmt.Errorf("%s: not a zip-based workbook (.xlsx, .xlsm, .xlsb): %w", name, ErrUnsupported)
	}
	zr, err := zip.NewReader(r, size)
	if err != nil {
		return nil, fmt.Errorf("%s: corrupt workbook: %w", name, err)
	}
	kind := ""
	for _, zf := range zr.File {
		switch strings.ToLower(strings.ReplaceAll(zf.Name, `\`, "/")) {
		case "xl/workbook.xml":
			kind = "xlsx"
		case "xl/workbook.bin":
			if kind == "" {
				kind = "xlsb"
			}
		}
	}
	switch kind {
	case "xlsx":
		return openXLSX(name, zr, opts)
	case "xlsb":
		return openXLSB(name, r, size, opts)
	}
	return nil, fmt.Errorf("%s: zip archive without xl/workbook.xml or xl/workbook.bin: %w", name, ErrUnsupported)
}

func (b *xlsxBook) sheetNames() []string {
	names := make([]string, len(b.sheets))
	for i, s := range b.sheets {
		names[i] = s.name
	}
	return names
}

func (b *xlsxBook) rows(ctx context.Context, name string) ([][]pandastext.Value, error) {
	for _, s := range b.sheets {
		if s.name == name {
			return b.readSheet(ctx, s)
		}
	}
	return nil, fmt.Errorf("%s: no sheet %q", b.file, name)
}

func (b *xlsxBook) close() error { return nil }
