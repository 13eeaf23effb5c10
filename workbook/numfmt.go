package workbook

import (
	"regexp"
	"strings"
)

// builtinFormats are openpyxl 3.0.9's BUILTIN_FORMATS. Ids it does not
// list (the locale-dependent 23-36, 50+) have no format, so openpyxl never
// reads such cells as dates; that is kept.
var builtinFormats = map[int]string{
	0: "General", 1: "0", 2: "0.00", 3: "#,##0", 4: "#,##0.00",
	5: `"$"#,##0_);("$"#,##0)`, 6: `"$"#,##0_);[Red]("$"#,##0)`,
	7: `"$"#,##0.00_);("$"#,##0.00)`, 8: `"$"#,##0.00_);[Red]("$"#,##0.00)`,
	9: "0%", 10: "0.00%", 11: "0.00E+00", 12: "# ?/?", 13: "# ??/??",
	14: "mm-dd-yy", 15: "d-mmm-yy", 16: "d-mmm", 17: "mmm-yy",
	18: "h:mm AM/PM", 19: "h:mm:ss AM/PM", 20: "h:mm", 21: "h:mm:ss",
	22: "m/d/yy h:mm",
	37: "#,##0_);(#,##0)", 38: "#,##0_);[Red](#,##0)",
	39: "#,##0.00_);(#,##0.00)", 40: "#,##0.00_);[Red](#,##0.00)",
	41: `_(* #,##0_);_(* \(#,##0\);_(* "-"_);_(@_)`,
	42: `_("$"* #,##0_);_("$"* \(#,##0\);_("$"* "-"_);_(@_)`,
	43: `_(* #,##0.00_);_(* \(#,##0.00\);_(* "-"??_);_(@_)`,
	44: `_("$"* #,##0.00_)_("$"* \(#,##0.00\)_("$"* "-"??_)_(@_)`,
	45: "mm:ss", 46: "[h]:mm:ss", 47: "mmss.0", 48: "##0.0E+0", 49: "@",
}

// The patterns of openpyxl 3.0.9's styles/numbers.py. Go's regexp has no
// look-ahead, so the "[...] except [h] [mm] [ss]" group is matched
// generally and filtered in stripFormat.
var (
	bracketOrQuote = regexp.MustCompile(`".*?"|\[[^\]]*\]`)
	elapsedBracket = regexp.MustCompile(`^\[(hh?|mm?|ss?)\]$`)
	dateChar       = regexp.MustCompile(`[^\\][dmhysDMHYS]`)
)

// stripFormat removes quoted literals and bracketed locale/colour codes,
// keeping [h], [mm], [ss] elapsed-time brackets.
func stripFormat(f string) string {
	return bracketOrQuote.ReplaceAllStringFunc(f, func(m string) string {
		if elapsedBracket.MatchString(m) {
			return m
		}
		return ""
	})
}

// isDateFormat is openpyxl's is_date_format: the first section, stripped,
// holds a date or time letter not escaped by a backslash. Like openpyxl's
// pattern it needs a character before the letter, so "d" alone is not a
// date format. Elapsed-time formats ([h]:mm) count as dates: openpyxl
// 3.0.9's read-only reader returns datetimes for them, not timedeltas.
func isDateFormat(f string) bool {
	if i := strings.IndexByte(f, ';'); i >= 0 {
		f = f[:i]
	}
	return dateChar.MatchString(stripFormat(f))
}
