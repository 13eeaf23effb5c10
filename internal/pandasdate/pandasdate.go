// Package pandasdate reads date strings the way pandas 1.5.3 does (with
// dateutil 2.8/2.9 behind it): ToDate is pd.to_datetime(s).date() for one
// string, and ParseISO is pandas' own ISO 8601 parser
// (np_datetime_strings.c's parse_iso_8601_datetime), which the DataFrame
// constructor also uses when it converts an object column of datetimes and
// strings. The steps of ToDate are pandas' own (tslib.array_to_datetime):
//
//  1. "" and the NaT spellings give NaT;
//  2. the ISO 8601 parser with its extensions (YYYYMMDD, separators
//     - . / \ and space, one-digit months and days);
//  3. "now" and "today";
//  4. parse_datetime_string: strings that look like numbers below 1000 are
//     refused; strings that start like H:MM or HH:MM go to dateutil with
//     today as the default (the "time-only categories parse to today"
//     quirk); quarters (2Q2005) and %Y-%m, %b %Y, %b-%Y; then dateutil with
//     the default 0001-01-01;
//  5. the result must fit in datetime64[ns] (1677-09-21 .. 2262-04-11), so a
//     month or weekday name alone ("Jan", "Monday") lands in year 1 and
//     fails, while "Dec 2020" or "Jan 1, 2020" parse.
//
// A tz-aware result keeps its wall-clock date, as Timestamp.date() does.
package pandasdate

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/internal/py"
)

// Date is a parsed date; NaT marks pandas' NaT, which is one value in a set
// (pd.NaT is a singleton) but unequal to itself under ==.
type Date struct {
	NaT              bool
	Year, Month, Day int
}

// ErrNotDate is a parse failure (a ValueError or TypeError in pandas).
var ErrNotDate = errors.New("not a date")

// OverflowError is the OverflowError pandas lets out of pd.to_datetime when
// dateutil builds a date field past a C int ("Jan 1 99999999999"); callers
// that catch only ValueError and TypeError let it escape.
type OverflowError struct{ Text string }

// Error names the string whose date overflowed.
func (e *OverflowError) Error() string {
	return "signed integer is greater than maximum: " + e.Text
}

// natStrings is pandas' nat_strings.
var natStrings = map[string]bool{
	"NaT": true, "nat": true, "NAT": true, "nan": true, "NaN": true,
	"none": true, "None": true, "NONE": true,
}

// ToDate is pd.to_datetime(s).date(); now stands for the clock. The error
// is ErrNotDate, an *OverflowError, or another parse failure.
func ToDate(s string, now time.Time) (Date, error) {
	if s == "" || natStrings[s] {
		return Date{NaT: true}, nil
	}
	if dt, ok, err := parseISO(s); err != nil {
		return Date{}, err
	} else if ok {
		return dt.date()
	}
	switch s {
	case "now":
		u := now.UTC()
		return Date{Year: u.Year(), Month: int(u.Month()), Day: u.Day()}, nil
	case "today":
		return Date{Year: now.Year(), Month: int(now.Month()), Day: now.Day()}, nil
	}
	dt, err := parseDatetimeString(s, now)
	if err != nil {
		return Date{}, err
	}
	return dt.date()
}

// DateTime is a wall-clock date and time as the ISO parser reads it; Local
// says the string named a zone (Z or an offset), Offset is that zone's
// offset from UTC in seconds.
type DateTime struct {
	Year, Month, Day, Hour, Minute, Second, Micro int
	Offset                                        int
	Local                                         bool
}

// parseISO is pandas 1.5.3's parse_iso_8601_datetime. ok is false when s
// is not in its format (pandas then tries other parsers or gives up); a
// string in the format but outside datetime64[ns] is ErrNotDate.
func ParseISO(s string) (DateTime, bool, error) {
	dt, ok, err := parseISO(s)
	return DateTime{dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.micro, dt.zone, dt.local}, ok, err
}

// dateTime is a wall-clock datetime. offset (seconds east of UTC, from
// dateutil) moves it to UTC before the datetime64[ns] bounds are checked;
// local and zone are the ISO parser's zone, which pandas' check_dts_bounds
// ignores (it checks the wall-clock fields).
type dateTime struct {
	year, month, day, hour, minute, second, micro int
	offset                                        int
	local                                         bool
	zone                                          int
}

var (
	minNS = time.Date(1677, 9, 21, 0, 12, 43, 145224192, time.UTC)
	maxNS = time.Date(2262, 4, 11, 23, 47, 16, 854775807, time.UTC)
)

// date checks the datetime64[ns] bounds (OutOfBoundsDatetime is a
// ValueError) and returns the wall-clock date.
func (dt dateTime) date() (Date, error) {
	t := time.Date(dt.year, time.Month(dt.month), dt.day, dt.hour, dt.minute, dt.second, dt.micro*1000, time.UTC)
	t = t.Add(-time.Duration(dt.offset) * time.Second)
	if t.Before(minNS) || t.After(maxNS) {
		return Date{}, ErrNotDate
	}
	return Date{Year: dt.year, Month: dt.month, Day: dt.day}, nil
}

func cIsSpace(b byte) bool { return b == ' ' || b >= '\t' && b <= '\r' }
func cIsDigit(b byte) bool { return b >= '0' && b <= '9' }

// parseISO is pandas 1.5.3's parse_iso_8601_datetime. ok is false when
// the string is not in its format (pandas then tries dateutil); an
// in-format string outside the ns bounds is an error, with no fallback.
// Its length is the original's: it follows the C function branch for
// branch, in the same order, so that the two can be read side by side when
// a reference case disagrees; it is not split on purpose.
func parseISO(str string) (dateTime, bool, error) {
	out := dateTime{month: 1, day: 1}
	s := []byte(str)
	at := func(i int) byte { // C strings end in NUL
		if i < len(s) {
			return s[i]
		}
		return 0
	}
	p := 0
	for p < len(s) && cIsSpace(s[p]) {
		p++
	}
	neg := false
	if at(p) == '-' {
		neg = true
		p++
	}
	if p >= len(s) {
		return out, false, nil
	}
	if len(s)-p >= 4 && cIsDigit(s[p]) && cIsDigit(s[p+1]) && cIsDigit(s[p+2]) && cIsDigit(s[p+3]) {
		out.year = int(s[p]-'0')*1000 + int(s[p+1]-'0')*100 + int(s[p+2]-'0')*10 + int(s[p+3]-'0')
		p += 4
	}
	// Quirk kept: pandas negates when str[0] (not the first non-space) is '-'.
	if neg && len(s) > 0 && s[0] == '-' {
		out.year = -out.year
	}
	finish := func() (dateTime, bool, error) {
		if out.year < 1 || out.year > 9999 {
			// numpy's struct holds it; the ns bounds refuse it.
			return out, false, ErrNotDate
		}
		if _, err := out.date(); err != nil {
			return out, false, err
		}
		return out, true, nil
	}
	if p >= len(s) {
		return finish()
	}
	hasSep := false
	var sep byte
	if !cIsDigit(s[p]) {
		if !strings.ContainsRune("-./\\ ", rune(s[p])) {
			return out, false, nil
		}
		hasSep, sep = true, s[p]
		p++
		if p >= len(s) || !cIsDigit(s[p]) {
			return out, false, nil
		}
	}
	out.month = int(s[p] - '0')
	p++
	if cIsDigit(at(p)) {
		out.month = out.month*10 + int(s[p]-'0')
		p++
	} else if !hasSep {
		return out, false, nil
	}
	if out.month < 1 || out.month > 12 {
		return out, false, nil
	}
	if p >= len(s) {
		if !hasSep { // YYYYMM is refused
			return out, false, nil
		}
		return finish()
	}
	if hasSep {
		if s[p] != sep || len(s)-p == 1 {
			return out, false, nil
		}
		p++
	}
	if !cIsDigit(at(p)) {
		return out, false, nil
	}
	out.day = int(s[p] - '0')
	p++
	if cIsDigit(at(p)) {
		out.day = out.day*10 + int(s[p]-'0')
		p++
	} else if !hasSep {
		return out, false, nil
	}
	if out.day < 1 || out.day > daysIn(out.year, out.month) {
		return out, false, nil
	}
	if p >= len(s) {
		return finish()
	}
	if (s[p] != 'T' && s[p] != ' ') || len(s)-p == 1 {
		return out, false, nil
	}
	p++
	if !cIsDigit(at(p)) {
		return out, false, nil
	}
	out.hour = int(s[p] - '0')
	p++
	hour2 := false
	if cIsDigit(at(p)) {
		hour2 = true
		out.hour = out.hour*10 + int(s[p]-'0')
		p++
		if out.hour >= 24 {
			return out, false, nil
		}
	}
	if p >= len(s) {
		if !hour2 {
			return out, false, nil
		}
		return finish()
	}
	hasHMSSep := false
	if s[p] == ':' {
		hasHMSSep = true
		p++
		if p >= len(s) || !cIsDigit(s[p]) {
			return out, false, nil
		}
	} else if !cIsDigit(s[p]) {
		if !hour2 {
			return out, false, nil
		}
		return isoZone(s, p, &out, finish)
	}
	out.minute = int(s[p] - '0')
	p++
	if cIsDigit(at(p)) {
		out.minute = out.minute*10 + int(s[p]-'0')
		p++
		if out.minute >= 60 {
			return out, false, nil
		}
	} else if !hasHMSSep {
		return out, false, nil
	}
	if p >= len(s) {
		return finish()
	}
	if hasHMSSep && s[p] == ':' {
		p++
		if p >= len(s) || !cIsDigit(s[p]) {
			return out, false, nil
		}
	} else if !hasHMSSep && cIsDigit(s[p]) {
	} else {
		return isoZone(s, p, &out, finish)
	}
	out.second = int(s[p] - '0')
	p++
	if cIsDigit(at(p)) {
		out.second = out.second*10 + int(s[p]-'0')
		p++
		if out.second >= 60 {
			return out, false, nil
		}
	} else if !hasHMSSep {
		return out, false, nil
	}
	if p < len(s) && s[p] == '.' {
		p++
		// Microseconds: up to six digits, padded; then up to two more
		// groups of six (picoseconds, attoseconds) that only the bounds
		// would see.
		for n := 0; n < 6; n++ {
			out.micro *= 10
			if p < len(s) && cIsDigit(s[p]) {
				out.micro += int(s[p] - '0')
				p++
			}
		}
		for g := 0; g < 2 && p < len(s) && cIsDigit(s[p]); g++ {
			for n := 0; n < 6 && p < len(s) && cIsDigit(s[p]); n++ {
				p++
			}
		}
	}
	return isoZone(s, p, &out, finish)
}

// isoZone is parse_timezone of the ISO parser: spaces, then Z or
// ±HH[[:]MM], then spaces, then the end.
func isoZone(s []byte, p int, out *dateTime, finish func() (dateTime, bool, error)) (dateTime, bool, error) {
	for p < len(s) && cIsSpace(s[p]) {
		p++
	}
	if p >= len(s) {
		return finish()
	}
	switch s[p] {
	case 'Z':
		out.local = true
		if len(s)-p == 1 {
			return finish()
		}
		p++
	case '-', '+':
		neg := s[p] == '-'
		p++
		var h, m int
		switch {
		case len(s)-p >= 2 && cIsDigit(s[p]) && cIsDigit(s[p+1]):
			h = int(s[p]-'0')*10 + int(s[p+1]-'0')
			p += 2
			if h >= 24 {
				return *out, false, nil
			}
		case len(s)-p >= 1 && cIsDigit(s[p]):
			h = int(s[p] - '0')
			p++
		default:
			return *out, false, nil
		}
		if p < len(s) {
			if s[p] == ':' {
				p++
			}
			switch {
			case len(s)-p >= 2 && cIsDigit(s[p]) && cIsDigit(s[p+1]):
				m = int(s[p]-'0')*10 + int(s[p+1]-'0')
				p += 2
				if m >= 60 {
					return *out, false, nil
				}
			case len(s)-p >= 1 && cIsDigit(s[p]):
				m = int(s[p] - '0')
				p++
			default:
				return *out, false, nil
			}
		}
		out.local = true
		out.zone = (h*60 + m) * 60
		if neg {
			out.zone = -out.zone
		}
	}
	for p < len(s) && cIsSpace(s[p]) {
		p++
	}
	if p != len(s) {
		return *out, false, nil
	}
	return finish()
}

func leap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func daysIn(y, m int) int {
	switch m {
	case 2:
		if leap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// looksLikeDatetime is pandas' does_string_look_like_datetime: a
// leading '0' says date; otherwise a string that is wholly a number (C
// xstrtod: spaces, sign, digits, '.', exponent) below 1000 is not one; nor
// are the single letters a, m, p, t.
func looksLikeDatetime(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == '0' {
		return true
	}
	switch s {
	case "a", "A", "m", "M", "p", "P", "t", "T":
		return false
	}
	if f, ok := xstrtod(s); ok {
		return f >= 1000
	}
	return true
}

// xstrtod reads s the way pandas' xstrtod does with skip_trailing:
// ok only when the whole string is consumed and there was a digit.
var xstrtodSyntax = regexp.MustCompile(`^[ \t\n\v\f\r]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\v\f\r]*$`)

func xstrtod(s string) (float64, bool) {
	if !xstrtodSyntax.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.Trim(s, " \t\n\v\f\r"), 64)
	if err != nil && f == 0 {
		return 0, false
	}
	return f, true
}

// looksLikeTime is does_string_look_like_time: H:MM or HH:MM at the
// start (bytes), with a valid hour and minute.
func looksLikeTime(s string) bool {
	if len(s) < 4 {
		return false
	}
	d := func(b byte, bad int) int {
		if cIsDigit(b) {
			return int(b - '0')
		}
		return bad
	}
	hour, minute := -1, -1
	if s[1] == ':' {
		hour = d(s[0], -1)
		minute = d(s[2], -10)*10 + d(s[3], -100)
	} else if s[2] == ':' {
		hour = d(s[0], -10)*10 + d(s[1], -100)
		minute = d(s[3], -10)*10 + d(at(s, 4), -100)
	}
	return hour >= 0 && hour <= 23 && minute >= 0 && minute <= 59
}

func at(s string, i int) byte {
	if i < len(s) {
		return s[i]
	}
	return 0
}

// parseDatetimeString is pandas' parse_datetime_string.
func parseDatetimeString(s string, now time.Time) (dateTime, error) {
	if !looksLikeDatetime(s) {
		return dateTime{}, ErrNotDate
	}
	if looksLikeTime(s) {
		today := dateTime{year: now.Year(), month: int(now.Month()), day: now.Day()}
		return dateutilParse(s, today, now.Year())
	}
	if dt, err := dateAbbr(py.ASCIIDigits(s)); err == nil {
		return dt, nil
	} else if errors.Is(err, errQuarter) {
		return dateTime{}, err
	}
	return dateutilParse(s, dateTime{year: 1, month: 1, day: 1}, now.Year())
}

// errQuarter is pandas' DateParseError for a quarter outside 1..4;
// it ends the parse without trying dateutil.
var errQuarter = errors.New("quarter must be between 1 and 4")

// pyInt is Python's int(str): optional spaces, sign, digits with single
// underscores between them.
var pyIntSyntax = regexp.MustCompile(`^\s*[+-]?[0-9](?:_?[0-9])*\s*$`)

func pyInt(s string) (int, bool) {
	s = py.ASCIIDigits(s)
	if !pyIntSyntax.MatchString(s) {
		return 0, false
	}
	s = strings.ReplaceAll(strings.TrimFunc(s, py.IsSpace), "_", "")
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n, true
}

var (
	monthAbbr = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	// strptime's patterns %Y-%m, %b %Y, %b-%Y (case-insensitive; a space in
	// the format matches any run of white space).
	patYm  = regexp.MustCompile(`^(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])$`)
	patbY  = regexp.MustCompile(`^(?i)(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)[\s\v\x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+(\d\d\d\d)$`)
	patbY2 = regexp.MustCompile(`^(?i)(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)-(\d\d\d\d)$`)
)

// dateAbbr is pandas' _parse_dateabbr_string with freq None: a
// four-character year, quarters (2Q2005, 2Q05, 2005Q1, 05Q1, with optional
// '-'), then %Y-%m, %b %Y and %b-%Y, all on the upper-cased string.
func dateAbbr(s string) (dateTime, error) {
	s = strings.ToUpper(s)
	r := []rune(s)
	n := len(r)
	def := dateTime{year: 1, month: 1, day: 1}
	if n == 4 {
		if y, ok := pyInt(s); ok && y >= 1 && y <= 9999 {
			def.year = y
			return def, nil
		}
	}
	if n >= 4 && n <= 7 {
		i := -1
		for k := 1; k < 6 && k < n; k++ {
			if r[k] == 'Q' {
				i = k
				break
			}
		}
		if dt, ok, err := quarter(r, i); err != nil {
			return dateTime{}, err
		} else if ok {
			return dt, nil
		}
	}
	if m := patYm.FindStringSubmatch(s); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		return dateTime{year: y, month: mo, day: 1}, yearOK(y)
	}
	for _, re := range []*regexp.Regexp{patbY, patbY2} {
		if m := re.FindStringSubmatch(s); m != nil {
			y, _ := strconv.Atoi(m[2])
			mo := 1
			for k, a := range monthAbbr {
				if strings.EqualFold(a, m[1]) {
					mo = k + 1
				}
			}
			return dateTime{year: y, month: mo, day: 1}, yearOK(y)
		}
	}
	return dateTime{}, ErrNotDate
}

// yearOK: strptime refuses year 0.
func yearOK(y int) error {
	if y < 1 {
		return ErrNotDate
	}
	return nil
}

// quarter is the quarter branch of _parse_dateabbr_string. ok is
// false when the branch raised ValueError (pandas moves on).
func quarter(r []rune, i int) (dateTime, bool, error) {
	n := len(r)
	str := func(a, b int) string { return string(r[a:b]) }
	var quarter, year int
	var ok1, ok2 bool
	switch {
	case i == 1:
		quarter, ok1 = pyInt(str(0, 1))
		if !ok1 {
			return dateTime{}, false, nil
		}
		switch {
		case n == 4 || n == 5 && r[2] == '-':
			year, ok2 = pyInt(str(n-2, n))
			year += 2000
		case n == 6 || n == 7 && r[2] == '-':
			year, ok2 = pyInt(str(n-4, n))
		default:
			return dateTime{}, false, nil
		}
	case i == 2 || i == 3:
		if !(n == 4 || n == 5 && r[i-1] == '-') {
			return dateTime{}, false, nil
		}
		quarter, ok1 = pyInt(str(n-1, n))
		year, ok2 = pyInt(str(0, 2))
		year += 2000
	case i == 4 || i == 5:
		if !(n == 6 || n == 7 && r[i-1] == '-') {
			return dateTime{}, false, nil
		}
		quarter, ok1 = pyInt(str(n-1, n))
		year, ok2 = pyInt(str(0, 4))
	default:
		return dateTime{}, false, nil // 'Q' not found: ValueError
	}
	if !ok1 || !ok2 {
		return dateTime{}, false, nil
	}
	if quarter < 1 || quarter > 4 {
		return dateTime{}, false, errQuarter
	}
	if year < 1 || year > 9999 { // datetime.replace raises ValueError
		return dateTime{}, false, nil
	}
	return dateTime{year: year, month: (quarter-1)*3 + 1, day: 1}, true, nil
}
