package xlsb

import "fmt"

// builtinFormat returns the number format Excel implies for an id below
// 164 without storing it ([ECMA-376] Part 1, 18.8.30), spelled as openpyxl
// spells it so .xlsx and .xlsb cells compare alike. Ids 23-36 and 50-81
// are locale-dependent and have no fixed code. A switch rather than a map
// keeps the table immutable.
func builtinFormat(id uint16) (string, bool) {
	switch id {
	case 0:
		return "General", true
	case 1:
		return "0", true
	case 2:
		return "0.00", true
	case 3:
		return "#,##0", true
	case 4:
		return "#,##0.00", true
	case 5:
		return `"$"#,##0_);("$"#,##0)`, true
	case 6:
		return `"$"#,##0_);[Red]("$"#,##0)`, true
	case 7:
		return `"$"#,##0.00_);("$"#,##0.00)`, true
	case 8:
		return `"$"#,##0.00_);[Red]("$"#,##0.00)`, true
	case 9:
		return "0%", true
	case 10:
		return "0.00%", true
	case 11:
		return "0.00E+00", true
	case 12:
		return "# ?/?", true
	case 13:
		return "# ??/??", true
	case 14:
		return "mm-dd-yy", true
	case 15:
		return "d-mmm-yy", true
	case 16:
		return "d-mmm", true
	case 17:
		return "mmm-yy", true
	case 18:
		return "h:mm AM/PM", true
	case 19:
		return "h:mm:ss AM/PM", true
	case 20:
		return "h:mm", true
	case 21:
		return "h:mm:ss", true
	case 22:
		return "m/d/yy h:mm", true
	case 37:
		return "#,##0 ;(#,##0)", true
	case 38:
		return "#,##0 ;[Red](#,##0)", true
	case 39:
		return "#,##0.00;(#,##0.00)", true
	case 40:
		return "#,##0.00;[Red](#,##0.00)", true
	case 41:
		return `_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`, true
	case 42:
		return `_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)`, true
	case 43:
		return `_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)`, true
	case 44:
		return `_("$"* #,##0.00_)_("$"* \(#,##0.00\)_("$"* "-"??_)_(@_)`, true
	case 45:
		return "mm:ss", true
	case 46:
		return "[h]:mm:ss", true
	case 47:
		return "mmss.0", true
	case 48:
		return "##0.0E+0", true
	case 49:
		return "@", true
	}
	return "", false
}

// general is the format of a cell whose style has no known format.
const general = "General"

// parseStyles reads xl/styles.bin and returns, for each cell format (the
// BrtXF records inside BrtBeginCellXFs, which a cell's iStyleRef indexes),
// its number format code. Custom formats (BrtFmt) override built-in ids;
// an id with neither reads as "General", as openpyxl does.
func parseStyles(data []byte) ([]string, error) {
	custom := map[uint16]string{}
	var ifmts []uint16
	inCellXfs := false
	rr := recordReader{buf: data}
	for {
		rec, ok, err := rr.next()
		if err != nil {
			return nil, err
		}
		if !ok {
			break
		}
		switch rec.typ {
		case brtBeginCellXFs:
			inCellXfs = true
		case brtEndCellXFs:
			inCellXfs = false
		case brtFmt:
			p := payload{b: rec.data}
			id := p.u16("BrtFmt ifmt")
			code := p.wideString("BrtFmt stFmtCode")
			if p.err != nil {
				return nil, fmt.Errorf("record %d at offset %d: %w", rec.typ, rec.off, p.err)
			}
			custom[id] = code
		case brtXF:
			// BrtXF records also fill the cell style collection; only
			// those in the cell collection are indexed by cells.
			if !inCellXfs {
				continue
			}
			p := payload{b: rec.data}
			p.u16("BrtXF ixfeParent")
			id := p.u16("BrtXF iFmt")
			if p.err != nil {
				return nil, fmt.Errorf("record %d at offset %d: %w", rec.typ, rec.off, p.err)
			}
			ifmts = append(ifmts, id)
		}
	}
	codes := make([]string, len(ifmts))
	for i, id := range ifmts {
		if c, ok := custom[id]; ok {
			codes[i] = c
		} else if c, ok := builtinFormat(id); ok {
			codes[i] = c
		} else {
			codes[i] = general
		}
	}
	return codes, nil
}
