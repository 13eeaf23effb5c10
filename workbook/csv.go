package workbook

import (
	"context"
	"fmt"

	"github.com/evalmd/evalmd/internal/pandastext"
	"github.com/evalmd/evalmd/internal/readfile"
)

// CSV calls fn with each sheet of the workbook at path, in the order
// pandas lists them, and the sheet as CSV: DataFrame.to_csv(index=False)
// of pandas 1.5.3 applied to the frame pd.read_excel builds (the frame
// whose to_string Render prints), so pd.read_csv of the text gives that
// frame back as closely as CSV can. It lets code read a workbook pandas
// cannot open itself (.xlsb without pyxlsb). fn gets one sheet at a time;
// its error stops the walk.
func CSV(ctx context.Context, path string, opts Options, fn func(sheet string, csv []byte) error) error {
	opts = opts.withDefaults()
	f, err := readfile.Open(path)
	if err != nil {
		return fmt.Errorf("workbook: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("workbook: %w", err)
	}
	src, err := openSource(path, f, st.Size(), opts)
	if err != nil {
		return err
	}
	defer src.close()
	for _, sheet := range src.sheetNames() {
		if err := ctx.Err(); err != nil {
			return err
		}
		rows, err := src.rows(ctx, sheet)
		if err != nil {
			return err
		}
		width := 0
		for _, r := range rows {
			width = max(width, len(r))
		}
		if int64(width)*int64(len(rows)) > opts.MaxCells {
			return fmt.Errorf("%s: sheet %q: %d rows x %d columns is more than %d cells: %w", path, sheet, len(rows), width, opts.MaxCells, ErrTooLarge)
		}
		fr := pandastext.FromRows(rows)
		csv, err := fr.CSV()
		if err != nil {
			return err
		}
		if err := fn(sheet, csv); err != nil {
			return err
		}
	}
	return nil
}
