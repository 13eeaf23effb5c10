package workbook

// Expected values in this file were produced by the reference stack itself
// (openpyxl 3.0.9 from_excel and is_date_format), not by this package.

import "github.com/evalmd/evalmd/internal/pandastext"

type fromExcelCase struct {
	serial float64
	mac    bool
	want   pandastext.Value
}

type dateFormatCase struct {
	format string
	want   bool
}

// Cell constructors keep the tables short.
var E = pandastext.Value{}

func D(y, mo, d, h, mi, s, us int) pandastext.Value {
	return pandastext.DateTime(pandastext.Days(y, mo, d)*usPerDay + int64(h)*3600*usPerSec + int64(mi)*60*usPerSec + int64(s)*usPerSec + int64(us))
}
func T(h, mi, s, us int) pandastext.Value {
	return pandastext.Time(int64(h)*3600*usPerSec + int64(mi)*60*usPerSec + int64(s)*usPerSec + int64(us))
}

var fromExcelCases = []fromExcelCase{
	{0, false, T(0, 0, 0, 0)},
	{0, true, T(0, 0, 0, 0)},
	{0.5, false, T(12, 0, 0, 0)},
	{0.5, true, T(12, 0, 0, 0)},
	{0.999999, false, T(23, 59, 59, 914000)},
	{0.999999, true, T(23, 59, 59, 914000)},
	{1, false, D(1900, 1, 1, 0, 0, 0, 0)},
	{1, true, D(1904, 1, 2, 0, 0, 0, 0)},
	{59, false, D(1900, 2, 28, 0, 0, 0, 0)},
	{59, true, D(1904, 2, 29, 0, 0, 0, 0)},
	{60, false, D(1900, 2, 28, 0, 0, 0, 0)},
	{60, true, D(1904, 3, 1, 0, 0, 0, 0)},
	{61, false, D(1900, 3, 1, 0, 0, 0, 0)},
	{61, true, D(1904, 3, 2, 0, 0, 0, 0)},
	{1.5, false, D(1900, 1, 1, 12, 0, 0, 0)},
	{1.5, true, D(1904, 1, 2, 12, 0, 0, 0)},
	{43831.75, false, D(2020, 1, 1, 18, 0, 0, 0)},
	{43831.75, true, D(2024, 1, 2, 18, 0, 0, 0)},
	{-1234.5678, false, D(1896, 8, 12, 10, 22, 22, 80000)},
	{-1234.5678, true, D(1900, 8, 14, 10, 22, 22, 80000)},
	{2958465.99999, false, D(9999, 12, 31, 23, 59, 59, 136000)},
	{2958465.99999, true, E},
	{12345.6789, false, D(1933, 10, 18, 16, 17, 36, 960000)},
	{12345.6789, true, D(1937, 10, 19, 16, 17, 36, 960000)},
	{1e-07, false, T(0, 0, 0, 9000)},
	{1e-07, true, T(0, 0, 0, 9000)},
	{44000.123456, false, D(2020, 6, 18, 2, 57, 46, 598000)},
	{44000.123456, true, D(2024, 6, 19, 2, 57, 46, 598000)},
}

var dateFormatCases = []dateFormatCase{
	{"General", false},
	{"0.00", false},
	{"yyyy-mm-dd", true},
	{"d", false},
	{"dd", true},
	{"h:mm", true},
	{"[h]:mm:ss", true},
	{"\"d\"0", false},
	{"[Red]0.0", false},
	{"[$-409]0", false},
	{"#,##0_);(#,##0)", false},
	{"mmss.0", true},
	{"0;[Red]dd", false},
	{"\\d0", false},
	{"0.00E+00", false},
	{"@", false},
	{"m/d/yy h:mm", true},
	{"[hh]", true},
	{"yy", true},
	{"_(* #,##0_)", false},
}
