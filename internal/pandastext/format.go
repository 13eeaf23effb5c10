package pandastext

import (
	"bufio"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/evalmd/evalmd/internal/py"
)

// This file is DataFrame.to_string(index=False) of pandas 1.5.3
// (pandas/io/formats/format.py) for the frames read_excel builds, with the
// default display options: precision 6, column header justification
// "right", east_asian_width False (widths are len(), code points),
// max_colwidth lifted by to_string, max_seq_items 100 for the empty-frame
// column list.

const precision = 6

// textLen is Python's len() of a str.
func textLen(s string) int { return utf8.RuneCountInString(s) }

func ljust(s string, w int) string {
	if n := textLen(s); n < w {
		return s + strings.Repeat(" ", w-n)
	}
	return s
}

// escapeText is pprint_thing with escape_chars ("\t", "\r", "\n").
func escapeText(s string) string {
	if !strings.ContainsAny(s, "\t\r\n") {
		return s
	}
	r := strings.NewReplacer("\t", `\t`, "\r", `\r`, "\n", `\n`)
	return r.Replace(s)
}

// writeFrame writes to_string(index=False) of fr.
func writeFrame(b *bufio.Writer, fr frame) {
	if fr.nrows == 0 || len(fr.cols) == 0 {
		b.WriteString("Empty DataFrame\nColumns: ")
		b.WriteString(emptyColumns(fr.labels))
		b.WriteString("\nIndex: []")
		return
	}
	labels := formatLabels(fr.labels)
	// need_leadsp is a dict keyed by the formatted label, so with repeated
	// labels the last column's dtype decides for all of them (a pandas
	// quirk kept on purpose).
	leadsp := make(map[string]bool, len(labels))
	for j, l := range labels {
		leadsp[l] = isNumeric(fr.cols[j].dt)
	}
	heads := make([]string, len(fr.cols))
	cols := make([][]string, len(fr.cols))
	widths := make([]int, len(fr.cols))
	for j, c := range fr.cols {
		h := labels[j]
		if leadsp[h] {
			h = " " + h
		}
		vals := formatColumn(c)
		w := textLen(h)
		for _, v := range vals {
			if n := textLen(v); n > w {
				w = n
			}
		}
		heads[j] = h
		cols[j] = vals
		widths[j] = w
		fr.cols[j] = column{} // the values are no longer needed
	}
	// Right-justify while writing rather than building padded copies.
	for j, h := range heads {
		if j > 0 {
			b.WriteByte(' ')
		}
		writePadded(b, h, widths[j])
	}
	for i := 0; i < fr.nrows; i++ {
		b.WriteByte('\n')
		for j, col := range cols {
			if j > 0 {
				b.WriteByte(' ')
			}
			writePadded(b, col[i], widths[j])
		}
	}
}

const spaces = "                                                                "

// writePadded writes s right-justified to width w (in code points).
func writePadded(b *bufio.Writer, s string, w int) {
	for n := w - textLen(s); n > 0; {
		k := min(n, len(spaces))
		b.WriteString(spaces[:k])
		n -= k
	}
	b.WriteString(s)
}

func isNumeric(dt dtype) bool { return dt == dtInt64 || dt == dtFloat64 || dt == dtBool }

// indexKind is the Index type pandas infers from a list of labels.
type indexKind uint8

const (
	ixObject indexKind = iota
	ixInt
	ixFloat
	ixDatetime
	ixBool
)

func labelIndexKind(labels []Value) indexKind {
	allInt, allNum, allDT, allBool := true, true, true, true
	for _, l := range labels {
		if l.k != kBool {
			allBool = false
		}
		switch l.k {
		case kInt:
			allDT = false
		case kFloat:
			allInt = false
			if !math.IsNaN(l.flt()) {
				allDT = false
			}
		case kDateTime:
			allInt, allNum = false, false
			if l.i < nsMin || l.i > nsMax {
				allDT = false // out of datetime64[ns] range: object Index
			}
		default:
			allInt, allNum, allDT = false, false, false
		}
	}
	switch {
	case len(labels) == 0:
		return ixObject
	case allBool:
		return ixBool
	case allInt:
		return ixInt
	case allNum:
		return ixFloat
	case allDT:
		hasDT := false
		for _, l := range labels {
			if l.k == kDateTime {
				hasDT = true
			}
		}
		if hasDT {
			return ixDatetime
		}
	}
	return ixObject
}

// formatLabels is Index.format() for the column labels.
func formatLabels(labels []Value) []string {
	out := make([]string, len(labels))
	switch labelIndexKind(labels) {
	case ixInt, ixBool:
		// format_array(..., justify="left"), then trim_front: ints as
		// f"{x: d}" (a space, or the minus sign), bools with a space;
		// left-aligned, padded to a common width.
		for i, l := range labels {
			out[i] = l.String()
			if l.k == kBool || l.i >= 0 {
				out[i] = " " + out[i]
			}
		}
		return trimFront(fixedWidthLeft(out))
	case ixFloat:
		fs := make([]float64, len(labels))
		for i, l := range labels {
			fs[i], _ = l.num()
		}
		return trimFront(fixedWidthLeft(formatFloats(fs, true, " NaN")))
	case ixDatetime:
		us := make([]int64, len(labels))
		nat := make([]bool, len(labels))
		for i, l := range labels {
			if l.k == kDateTime {
				us[i] = l.i
			} else {
				nat[i] = true
			}
		}
		return formatDatetimes(us, nat)
	}
	for i, l := range labels {
		if l.k == kFloat && math.IsNaN(l.flt()) {
			out[i] = "NaN"
			continue
		}
		out[i] = escapeText(l.String())
	}
	return out
}

// emptyColumns is pprint_thing(df.columns) for an empty frame.
func emptyColumns(labels []Value) string {
	kind := labelIndexKind(labels)
	n := len(labels)
	if n > 100 {
		n = 100
	}
	parts := make([]string, n)
	for i := 0; i < n; i++ {
		l := labels[i]
		switch {
		case kind == ixFloat:
			f, _ := l.num()
			parts[i] = py.Repr(f)
		case kind == ixDatetime && l.k != kDateTime:
			parts[i] = "NaT"
		default:
			parts[i] = l.String()
		}
	}
	s := "[" + strings.Join(parts, ", ")
	if len(labels) > 100 {
		s += ", ..."
	}
	return s + "]"
}

func fixedWidthLeft(ss []string) []string {
	w := 0
	for _, s := range ss {
		if n := textLen(s); n > w {
			w = n
		}
	}
	for i, s := range ss {
		ss[i] = ljust(s, w)
	}
	return ss
}

// trimFront strips leading spaces common to every string.
func trimFront(ss []string) []string {
	for len(ss) > 0 {
		for _, s := range ss {
			if !strings.HasPrefix(s, " ") {
				return ss
			}
		}
		for i := range ss {
			ss[i] = ss[i][1:]
		}
	}
	return ss
}

// formatColumn is format_array(values, leading_space=False) before the
// final fixed-width pass, which writeFrame does with the header.
func formatColumn(c column) []string {
	switch c.dt {
	case dtInt64:
		out := make([]string, len(c.ints))
		for i, v := range c.ints {
			out[i] = strconv.FormatInt(v, 10)
		}
		return out
	case dtBool:
		out := make([]string, len(c.ints))
		for i, v := range c.ints {
			if v != 0 {
				out[i] = "True"
			} else {
				out[i] = "False"
			}
		}
		return out
	case dtFloat64:
		return formatFloats(c.floats, false, "NaN")
	case dtDatetime:
		return formatDatetimes(c.ints, c.nat)
	case dtTimedelta:
		return formatTimedeltas(c.ints, c.nat)
	}
	out := make([]string, len(c.objs))
	for i, v := range c.objs {
		switch {
		case v.k == kFloat && math.IsNaN(v.flt()):
			out[i] = "NaN"
		case v.k == kFloat:
			out[i] = trimZerosSingle(py.Fixed(v.flt(), precision, true))
		default:
			out[i] = escapeText(v.String())
		}
	}
	return out
}

// trimZerosSingle is _trim_zeros_single_float.
func trimZerosSingle(s string) string {
	s = strings.TrimRight(s, "0")
	if strings.HasSuffix(s, ".") {
		s += "0"
	}
	return s
}

// formatFloats is FloatArrayFormatter.get_result_as_array: fixed notation
// with precision 6 and equal trimming of trailing zeros, switching to
// scientific notation when a value is too small to show (0 < |x| < 1e-6)
// or when the longest value exceeds 12 characters and one is above 1e6.
func formatFloats(fs []float64, space bool, naRep string) []string {
	format := func(f func(float64) string) []string {
		out := make([]string, len(fs))
		for i, v := range fs {
			if math.IsNaN(v) {
				out[i] = naRep
			} else {
				out[i] = f(v)
			}
		}
		return trimZerosFloat(out)
	}
	out := format(func(v float64) string { return py.Fixed(v, precision, space) })
	maxLen := 0
	for _, s := range out {
		if n := len(s); n > maxLen {
			maxLen = n
		}
	}
	tooLong := maxLen > precision+6
	large, small := false, false
	for _, v := range fs {
		a := math.Abs(v)
		if a > 1e6 {
			large = true
		}
		if a > 0 && a < 1e-6 {
			small = true
		}
	}
	if small || (tooLong && large) {
		out = format(func(v float64) string { return py.Exp(v, precision, space) })
	}
	return out
}

// isDecimalNumber matches ^\s*[\+-]?[0-9]+\.[0-9]*$.
func isDecimalNumber(s string) bool {
	i := 0
	for i < len(s) && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r' || s[i] == '\f' || s[i] == '\v') {
		i++
	}
	if i < len(s) && (s[i] == '+' || s[i] == '-') {
		i++
	}
	d := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
		d++
	}
	if d == 0 || i >= len(s) || s[i] != '.' {
		return false
	}
	i++
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i == len(s)
}

// trimZerosFloat is _trim_zeros_float: drop trailing zeros equally from
// every decimal number while all of them end in zero, then put one zero
// back after a bare decimal point.
func trimZerosFloat(ss []string) []string {
	trim := -1
	for _, s := range ss {
		if !isDecimalNumber(s) {
			continue
		}
		z := len(s) - len(strings.TrimRight(s, "0"))
		if trim < 0 || z < trim {
			trim = z
		}
	}
	if trim <= 0 {
		return ss
	}
	for i, s := range ss {
		if isDecimalNumber(s) {
			s = s[:len(s)-trim]
			if strings.HasSuffix(s, ".") {
				s += "0"
			}
			ss[i] = s
		}
	}
	return ss
}

// formatDatetimes is Datetime64Formatter: dates only when every value is
// at midnight, otherwise "YYYY-MM-DD HH:MM:SS" with the fraction digits of
// the finest resolution present (milliseconds or microseconds).
func formatDatetimes(us []int64, nat []bool) []string {
	datesOnly := true
	fracDigits := 0
	for i, v := range us {
		if nat[i] {
			continue
		}
		tod := v - py.FloorDiv(v, usPerDay)*usPerDay
		if tod != 0 {
			datesOnly = false
		}
		if f := tod % usPerSec; f != 0 {
			if f%1000 != 0 {
				fracDigits = 6
			} else if fracDigits < 3 {
				fracDigits = 3
			}
		}
	}
	out := make([]string, len(us))
	for i, v := range us {
		if nat[i] {
			out[i] = "NaT"
			continue
		}
		if datesOnly {
			out[i] = pyDate(v)
			continue
		}
		y, mo, d, h, mi, s, frac := civil(v)
		str := pad(y, 4) + "-" + pad(mo, 2) + "-" + pad(d, 2) + " " + pad(h, 2) + ":" + pad(mi, 2) + ":" + pad(s, 2)
		switch fracDigits {
		case 3:
			str += "." + pad(frac/1000, 3)
		case 6:
			str += "." + pad(frac, 6)
		}
		out[i] = str
	}
	return out
}

// formatTimedeltas is Timedelta64Formatter: "N days" when every value is a
// whole number of days, otherwise "N days HH:MM:SS[.ffffff]".
func formatTimedeltas(us []int64, nat []bool) []string {
	evenDays := true
	for i, v := range us {
		if !nat[i] && v%usPerDay != 0 {
			evenDays = false
		}
	}
	out := make([]string, len(us))
	for i, v := range us {
		if nat[i] {
			out[i] = "NaT"
			continue
		}
		days := py.FloorDiv(v, usPerDay)
		rem := v - days*usPerDay
		if evenDays {
			out[i] = strconv.FormatInt(days, 10) + " days"
			continue
		}
		h := rem / (3600 * usPerSec)
		m := rem / (60 * usPerSec) % 60
		s := rem / usPerSec % 60
		frac := rem % usPerSec
		str := strconv.FormatInt(days, 10) + " days " + pad(int(h), 2) + ":" + pad(int(m), 2) + ":" + pad(int(s), 2)
		if frac != 0 {
			str += "." + pad(int(frac), 6)
		}
		out[i] = str
	}
	return out
}
