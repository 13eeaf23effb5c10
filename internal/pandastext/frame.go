package pandastext

import (
	"errors"
	"math"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/internal/pandasdate"
)

// This file turns a sheet's rows into the DataFrame pandas 1.5.3's
// read_excel builds with its defaults (header=0, the Python parser): header
// naming, duplicate mangling, blank-line skipping and column dtype inference.

// dtype is a pandas column dtype.
type dtype uint8

const (
	dtInt64 dtype = iota
	dtFloat64
	dtBool
	dtObject
	dtDatetime  // datetime64[ns]; ints hold microseconds since 0001-01-01
	dtTimedelta // timedelta64[ns]; ints hold microseconds
)

// column is one DataFrame column.
type column struct {
	dt     dtype
	ints   []int64   // int64, bool (0/1), datetime, timedelta
	floats []float64 // float64
	objs   []Value   // object; NaN is a kFloat NaN
	nat    []bool    // datetime/timedelta: NaT mask
}

// frame is a parsed sheet: column labels and columns of equal length.
type frame struct {
	labels []Value
	cols   []column
	nrows  int
}

// defaultNA is pandas 1.5.3's STR_NA_VALUES: strings read as NaN.
var defaultNA = map[string]bool{
	"": true, "#N/A": true, "#N/A N/A": true, "#NA": true, "-1.#IND": true,
	"-1.#QNAN": true, "-NaN": true, "-nan": true, "1.#IND": true, "1.#QNAN": true,
	"<NA>": true, "N/A": true, "NA": true, "NULL": true, "NaN": true, "n/a": true,
	"nan": true, "null": true,
}

var (
	trueStrings  = map[string]bool{"True": true, "TRUE": true, "true": true}
	falseStrings = map[string]bool{"False": true, "FALSE": true, "false": true}
)

// buildFrame applies read_excel's parsing to rows as the engine's
// get_sheet_data returns them (each row trimmed of trailing empty cells,
// trailing empty rows dropped). ok is false when pandas returns a bare
// DataFrame() because there was no data at all.
func buildFrame(rows [][]Value) (fr frame, ok bool) {
	if len(rows) == 0 {
		return frame{}, false
	}
	width := 0
	for _, r := range rows {
		if len(r) > width {
			width = len(r)
		}
	}
	cell := func(r []Value, j int) Value {
		if j < len(r) {
			return r[j]
		}
		return Value{}
	}
	// read_excel passes skip_blank_lines=False to its parser, so no row
	// is ever dropped here: blank rows become rows of NaN.
	header := rows[0]
	labels := make([]Value, width)
	var unnamed []int
	for j := 0; j < width; j++ {
		v := cell(header, j)
		if v.IsEmpty() {
			labels[j] = Str("Unnamed: " + strconv.Itoa(j))
			unnamed = append(unnamed, j)
		} else {
			labels[j] = v
		}
	}
	mangle(labels, unnamed)
	data := rows[1:]
	fr = frame{labels: labels, nrows: len(data), cols: make([]column, width)}
	vals := make([]Value, len(data))
	for j := 0; j < width; j++ {
		for i, r := range data {
			vals[i] = cell(r, j)
		}
		fr.cols[j] = inferColumn(vals)
	}
	return fr, true
}

// mangle renames duplicate labels "x", "x.1", "x.2" the way pandas 1.5.3's
// PythonParser._infer_columns does: named columns first, then the Unnamed
// ones; equality is Python's (see keyOf), so 1, 1.0 and True collide.
func mangle(labels []Value, unnamed []int) {
	isUnnamed := make(map[int]bool, len(unnamed))
	for _, i := range unnamed {
		isUnnamed[i] = true
	}
	order := make([]int, 0, len(labels))
	for i := range labels {
		if !isUnnamed[i] {
			order = append(order, i)
		}
	}
	order = append(order, unnamed...)
	counts := make(map[valueKey]int, len(labels))
	present := make(map[valueKey]bool, len(labels))
	for _, l := range labels {
		present[keyOf(l)] = true
	}
	for _, i := range order {
		col := labels[i]
		old := col
		cur := counts[keyOf(col)]
		if cur > 0 {
			for cur > 0 {
				counts[keyOf(old)] = cur + 1
				col = Str(old.String() + "." + strconv.Itoa(cur))
				if present[keyOf(col)] {
					cur++
				} else {
					cur = counts[keyOf(col)]
				}
			}
		}
		labels[i] = col
		counts[keyOf(col)] = cur + 1
	}
}

// valueKey groups values the way Python's == and hash do for dict keys:
// numbers (bool, int, float) by numeric value, other types by their own
// value. Every NaN is the one np.nan object the readers use, so NaNs share
// a key, as identity makes them equal in a dict.
type valueKey struct {
	k kind
	i int64
	s string
}

func keyOf(v Value) valueKey {
	switch v.k {
	case kInt, kBool:
		return valueKey{k: kFloat, i: int64(math.Float64bits(float64(v.i)))}
	case kFloat, kBigInt:
		if math.IsNaN(v.flt()) {
			return valueKey{k: kFloat, s: "nan"}
		}
		return valueKey{k: kFloat, i: int64(math.Float64bits(v.flt() + 0))}
	case kStr:
		return valueKey{k: kStr, s: v.s}
	case kEmpty:
		return valueKey{k: kStr}
	}
	return valueKey{k: v.k, i: v.i}
}

// inferColumn is the Python parser's _infer_types (maybe_convert_numeric,
// then NA sanitising and maybe_convert_bool) followed by the DataFrame
// constructor's datetime inference for object columns.
func inferColumn(vals []Value) column {
	n := len(vals)
	if c, ok := convertNumeric(vals); ok {
		return c
	}
	// sanitize_objects: NA strings become NaN, and a memo dict keyed by
	// Python equality replaces each value by the first equal one seen, so
	// after a False an int 0 prints as False, after 1 a 1.0 prints as 1.
	objs := make([]Value, n)
	hasNaN := false
	memo := make(map[valueKey]Value)
	for i, v := range vals {
		if v.k == kEmpty || (v.k == kStr && defaultNA[v.s]) {
			objs[i] = nanVal()
			hasNaN = true
			continue
		}
		k := keyOf(v)
		if first, ok := memo[k]; ok {
			objs[i] = first
			continue
		}
		memo[k] = v
		objs[i] = v
	}
	// maybe_convert_bool: bools, true/false strings and NaN only.
	isBool := true
	for _, v := range objs {
		switch {
		case v.k == kBool:
		case v.k == kStr && (trueStrings[v.s] || falseStrings[v.s]):
		case v.k == kFloat && math.IsNaN(v.flt()):
			hasNaN = true
		default:
			isBool = false
		}
		if !isBool {
			break
		}
	}
	if isBool {
		if !hasNaN {
			c := column{dt: dtBool, ints: make([]int64, n)}
			for i, v := range objs {
				if v.k == kBool {
					c.ints[i] = v.i
				} else if trueStrings[v.s] {
					c.ints[i] = 1
				}
			}
			return c
		}
		for i, v := range objs {
			if v.k == kStr {
				objs[i] = Bool(trueStrings[v.s])
			}
		}
		return column{dt: dtObject, objs: objs}
	}
	return inferDatetimelike(objs)
}

// convertNumeric is lib.maybe_convert_numeric with the default NA strings:
// ok is false where pandas raises and keeps the object column.
func convertNumeric(vals []Value) (column, bool) {
	var sawNull, sawFloat, sawInt, sawBool bool
	n := len(vals)
	floats := make([]float64, n)
	ints := make([]int64, n)
	for i, v := range vals {
		switch v.k {
		case kEmpty:
			sawNull = true
			floats[i] = math.NaN()
		case kStr:
			if defaultNA[v.s] {
				sawNull = true
				floats[i] = math.NaN()
				continue
			}
			f, isInt, iv, ok := parseNumber(v.s)
			if !ok {
				return column{}, false
			}
			floats[i] = f
			if isInt {
				ints[i] = iv
				sawInt = true
			} else {
				sawFloat = true
			}
		case kFloat, kBigInt:
			floats[i] = v.flt()
			sawFloat = true
		case kInt:
			floats[i] = float64(v.i)
			ints[i] = v.i
			sawInt = true
		case kBool:
			floats[i] = float64(v.i)
			ints[i] = v.i
			sawBool = true
		default:
			return column{}, false
		}
	}
	switch {
	case sawNull || sawFloat:
		return column{dt: dtFloat64, floats: floats}, true
	case sawInt:
		return column{dt: dtInt64, ints: ints}, true
	case sawBool:
		return column{dt: dtBool, ints: ints}, true
	}
	return column{dt: dtInt64, ints: ints}, true
}

// parseNumber is pandas' floatify: optional surrounding whitespace, a
// decimal number with optional exponent, or inf/infinity. isInt is its
// maybe_int (no '.' and no exponent); integers outside int64 are refused,
// which keeps the column as objects (pandas raises "Integer out of range"
// past uint64 and we do not model uint64 columns).
func parseNumber(s string) (f float64, isInt bool, iv int64, ok bool) {
	t := strings.TrimLeft(s, " \t\n\r\f\v")
	t = strings.TrimRight(t, " \t\n\r\f\v")
	if t == "" {
		return 0, false, 0, false
	}
	body := t
	if body[0] == '+' || body[0] == '-' {
		body = body[1:]
	}
	switch strings.ToLower(body) {
	case "inf", "infinity":
		if t[0] == '-' {
			return math.Inf(-1), false, 0, true
		}
		return math.Inf(1), false, 0, true
	}
	p := 0
	if t[p] == '+' || t[p] == '-' {
		p++
	}
	digits := 0
	for p < len(t) && t[p] >= '0' && t[p] <= '9' {
		p++
		digits++
	}
	isInt = true
	if p < len(t) && t[p] == '.' {
		isInt = false
		p++
		for p < len(t) && t[p] >= '0' && t[p] <= '9' {
			p++
			digits++
		}
	}
	if digits == 0 {
		return 0, false, 0, false
	}
	if p < len(t) && (t[p] == 'e' || t[p] == 'E') {
		isInt = false
		p++
		if p < len(t) && (t[p] == '+' || t[p] == '-') {
			p++
		}
		ed := 0
		for p < len(t) && t[p] >= '0' && t[p] <= '9' {
			p++
			ed++
		}
		if ed == 0 {
			return 0, false, 0, false
		}
	}
	if p != len(t) {
		return 0, false, 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil && (!errors.Is(err, strconv.ErrRange) || math.IsInf(f, 0)) {
		// pandas' xstrtod refuses overflow but lets underflow go to 0.
		return 0, false, 0, false
	}
	if isInt {
		iv, err = strconv.ParseInt(strings.TrimPrefix(t, "+"), 10, 64)
		if err != nil {
			return 0, false, 0, false
		}
	}
	return f, isInt, iv, true
}

// nsMin and nsMax bound datetime64[ns], in microseconds since 0001-01-01:
// 1677-09-21 00:12:43.145225 and 2262-04-11 23:47:16.854775.
var (
	nsMin = daysFromCivil(1677, 9, 21)*usPerDay + (12*60+43)*usPerSec + 145225
	nsMax = daysFromCivil(2262, 4, 11)*usPerDay + ((23*60+47)*60+16)*usPerSec + 854775
)

// inferDatetimelike is maybe_infer_to_datetimelike as the DataFrame
// constructor applies it to an object column. infer_datetimelike_array
// scans the values, giving up ("mixed") at any number, bool or time, and
// stopping after the third string; a column in which it saw a datetime
// (and no timedelta) is then converted whole, strings parsed as ISO 8601,
// and stays object if any string does not parse or a date falls outside
// datetime64[ns]. A column of strings alone, or of dates alone, stays
// object; timedeltas alone become timedelta64.
func inferDatetimelike(objs []Value) column {
	var seenDT, seenTD, seenDate bool
	strs := 0
scan:
	for _, v := range objs {
		switch {
		case v.k == kFloat && math.IsNaN(v.flt()):
		case v.k == kStr:
			strs++
			if strs == 3 {
				break scan
			}
		case v.k == kDate:
			seenDate = true
		case v.k == kDateTime:
			seenDT = true
		case v.k == kDuration:
			seenTD = true
		default:
			return column{dt: dtObject, objs: objs}
		}
	}
	switch {
	case seenDT && !seenTD:
	case seenTD && !seenDT && !seenDate && strs == 0:
	default:
		return column{dt: dtObject, objs: objs}
	}
	c := column{ints: make([]int64, len(objs)), nat: make([]bool, len(objs))}
	if seenDT {
		c.dt = dtDatetime
	} else {
		c.dt = dtTimedelta
	}
	for i, v := range objs {
		us := v.i
		switch v.k {
		case kFloat:
			c.nat[i] = true
			continue
		case kStr:
			if strings.TrimSpace(v.s) == "NaT" {
				c.nat[i] = true
				continue
			}
			var ok bool
			if us, ok = parseISODatetime(v.s); !ok {
				return column{dt: dtObject, objs: objs}
			}
		case kDuration:
			if seenDT {
				return column{dt: dtObject, objs: objs}
			}
		case kTime, kInt, kBool, kBigInt, kEmpty:
			return column{dt: dtObject, objs: objs}
		}
		if c.dt == dtDatetime && (us < nsMin || us > nsMax) {
			return column{dt: dtObject, objs: objs}
		}
		c.ints[i] = us
	}
	return c
}

// parseISODatetime reads a string of a datetime column the way the
// DataFrame constructor does (require_iso8601): pandas' ISO 8601 parser,
// as microseconds since 0001-01-01. A string that names a zone is refused:
// pandas then makes a tz-aware or object column, which is not modelled.
func parseISODatetime(s string) (int64, bool) {
	dt, ok, err := pandasdate.ParseISO(s)
	if !ok || err != nil || dt.Local {
		return 0, false
	}
	return daysFromCivil(dt.Year, dt.Month, dt.Day)*usPerDay + int64(dt.Hour)*3600*usPerSec +
		int64(dt.Minute)*60*usPerSec + int64(dt.Second)*usPerSec + int64(dt.Micro), true
}
