package grade

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// This file reproduces what default_compare gets from
// pd.to_datetime(s).date() for one string s under pandas 1.5.3 (with
// dateutil 2.8/2.9): the calendar date, NaT, or the exception. The steps
// are pandas' own (tslib.array_to_datetime):
//
//  1. "" and the NaT spellings give NaT;
//  2. the ISO 8601 parser (np_datetime_strings.c) with its extensions
//     (YYYYMMDD, separators - . / \ and space, one-digit months and days);
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

// databenchDate is a parsed date; nat marks NaT, which is one value in a set
// (pd.NaT is a singleton) but unequal to itself under ==.
type databenchDate struct {
	nat     bool
	y, m, d int
}

// errDataBenchNoDate is a parse failure (a ValueError or TypeError in pandas).
var errDataBenchNoDate = errors.New("not a date")

// databenchNaTStrings is pandas' nat_strings.
var databenchNaTStrings = map[string]bool{
	"NaT": true, "nat": true, "NAT": true, "nan": true, "NaN": true,
	"none": true, "None": true, "NONE": true,
}

// databenchToDate is pd.to_datetime(s).date(). now stands for the clock.
func databenchToDate(s string, now time.Time) (databenchDate, error) {
	if s == "" || databenchNaTStrings[s] {
		return databenchDate{nat: true}, nil
	}
	if dt, ok, err := databenchISO(s); err != nil {
		return databenchDate{}, err
	} else if ok {
		return dt.date()
	}
	switch s {
	case "now":
		u := now.UTC()
		return databenchDate{y: u.Year(), m: int(u.Month()), d: u.Day()}, nil
	case "today":
		return databenchDate{y: now.Year(), m: int(now.Month()), d: now.Day()}, nil
	}
	dt, err := databenchParseDatetimeString(s, now)
	if err != nil {
		return databenchDate{}, err
	}
	return dt.date()
}

// databenchDT is a naive wall-clock datetime with an optional UTC offset in
// seconds.
type databenchDT struct {
	year, month, day, hour, minute, second, micro int
	offset                                        int
}

var (
	databenchMinNS = time.Date(1677, 9, 21, 0, 12, 43, 145224192, time.UTC)
	databenchMaxNS = time.Date(2262, 4, 11, 23, 47, 16, 854775807, time.UTC)
)

// date checks the datetime64[ns] bounds (OutOfBoundsDatetime is a
// ValueError) and returns the wall-clock date.
func (dt databenchDT) date() (databenchDate, error) {
	t := time.Date(dt.year, time.Month(dt.month), dt.day, dt.hour, dt.minute, dt.second, dt.micro*1000, time.UTC)
	t = t.Add(-time.Duration(dt.offset) * time.Second)
	if t.Before(databenchMinNS) || t.After(databenchMaxNS) {
		return databenchDate{}, errDataBenchNoDate
	}
	return databenchDate{y: dt.year, m: dt.month, d: dt.day}, nil
}

func cIsSpace(b byte) bool { return b == ' ' || b >= '\t' && b <= '\r' }
func cIsDigit(b byte) bool { return b >= '0' && b <= '9' }

// databenchISO is pandas 1.5.3's parse_iso_8601_datetime. ok is false when
// the string is not in its format (pandas then tries dateutil); an
// in-format string outside the ns bounds is an error, with no fallback.
func databenchISO(str string) (databenchDT, bool, error) {
	out := databenchDT{month: 1, day: 1}
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
	finish := func() (databenchDT, bool, error) {
		if out.year < 1 || out.year > 9999 {
			// numpy's struct holds it; the ns bounds refuse it.
			return out, false, errDataBenchNoDate
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
	if out.day < 1 || out.day > databenchDaysIn(out.year, out.month) {
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
		return databenchISOZone(s, p, out, finish)
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
		return databenchISOZone(s, p, out, finish)
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
	return databenchISOZone(s, p, out, finish)
}

// databenchISOZone is parse_timezone of the ISO parser: spaces, then Z or
// ±HH[[:]MM], then spaces, then the end.
func databenchISOZone(s []byte, p int, out databenchDT, finish func() (databenchDT, bool, error)) (databenchDT, bool, error) {
	for p < len(s) && cIsSpace(s[p]) {
		p++
	}
	if p >= len(s) {
		return finish()
	}
	switch s[p] {
	case 'Z':
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
				return out, false, nil
			}
		case len(s)-p >= 1 && cIsDigit(s[p]):
			h = int(s[p] - '0')
			p++
		default:
			return out, false, nil
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
					return out, false, nil
				}
			case len(s)-p >= 1 && cIsDigit(s[p]):
				m = int(s[p] - '0')
				p++
			default:
				return out, false, nil
			}
		}
		out.offset = (h*60 + m) * 60
		if neg {
			out.offset = -out.offset
		}
	}
	for p < len(s) && cIsSpace(s[p]) {
		p++
	}
	if p != len(s) {
		return out, false, nil
	}
	return finish()
}

func databenchLeap(y int) bool { return y%4 == 0 && (y%100 != 0 || y%400 == 0) }

func databenchDaysIn(y, m int) int {
	switch m {
	case 2:
		if databenchLeap(y) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

// databenchLooksLikeDatetime is pandas' does_string_look_like_datetime: a
// leading '0' says date; otherwise a string that is wholly a number (C
// xstrtod: spaces, sign, digits, '.', exponent) below 1000 is not one; nor
// are the single letters a, m, p, t.
func databenchLooksLikeDatetime(s string) bool {
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
	if f, ok := databenchXstrtod(s); ok {
		return f >= 1000
	}
	return true
}

// databenchXstrtod reads s the way pandas' xstrtod does with skip_trailing:
// ok only when the whole string is consumed and there was a digit.
var databenchXstrtodSyntax = regexp.MustCompile(`^[ \t\n\v\f\r]*[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?[ \t\n\v\f\r]*$`)

func databenchXstrtod(s string) (float64, bool) {
	if !databenchXstrtodSyntax.MatchString(s) {
		return 0, false
	}
	f, err := strconv.ParseFloat(strings.Trim(s, " \t\n\v\f\r"), 64)
	if err != nil && f == 0 {
		return 0, false
	}
	return f, true
}

// databenchLooksLikeTime is does_string_look_like_time: H:MM or HH:MM at the
// start (bytes), with a valid hour and minute.
func databenchLooksLikeTime(s string) bool {
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

// databenchParseDatetimeString is pandas' parse_datetime_string.
func databenchParseDatetimeString(s string, now time.Time) (databenchDT, error) {
	if !databenchLooksLikeDatetime(s) {
		return databenchDT{}, errDataBenchNoDate
	}
	if databenchLooksLikeTime(s) {
		today := databenchDT{year: now.Year(), month: int(now.Month()), day: now.Day()}
		return dateutilParse(s, today, now.Year())
	}
	if dt, err := databenchDateAbbr(pyDigitsToASCII(s)); err == nil {
		return dt, nil
	} else if errors.Is(err, errDataBenchQuarter) {
		return databenchDT{}, err
	}
	return dateutilParse(s, databenchDT{year: 1, month: 1, day: 1}, now.Year())
}

// pyDigitsToASCII maps Unicode decimal digits to ASCII: Python's int(),
// float(), Decimal() and str.isdigit() treat them alike, so dateutil and
// pandas' Python-level steps read "٢٠٢٠" as 2020.
func pyDigitsToASCII(s string) string {
	if isASCII(s) {
		return s
	}
	return strings.Map(func(r rune) rune {
		if r > unicode.MaxASCII && unicode.Is(unicode.Nd, r) {
			return '0' + rune(pyDigitValue(r))
		}
		return r
	}, s)
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// errDataBenchQuarter is pandas' DateParseError for a quarter outside 1..4;
// it ends the parse without trying dateutil.
var errDataBenchQuarter = errors.New("quarter must be between 1 and 4")

// pyInt is Python's int(str): optional spaces, sign, digits with single
// underscores between them.
var pyIntSyntax = regexp.MustCompile(`^\s*[+-]?[0-9](?:_?[0-9])*\s*$`)

func pyInt(s string) (int, bool) {
	s = pyDigitsToASCII(s)
	if !pyIntSyntax.MatchString(s) {
		return 0, false
	}
	s = strings.ReplaceAll(strings.TrimFunc(s, pyIsSpace), "_", "")
	n, err := strconv.Atoi(s)
	if err != nil {
		return 0, false
	}
	return n, true
}

var (
	databenchMonthAbbr = []string{"JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"}
	// strptime's patterns %Y-%m, %b %Y, %b-%Y (case-insensitive; a space in
	// the format matches any run of white space).
	databenchYm  = regexp.MustCompile(`^(\d\d\d\d)-(1[0-2]|0[1-9]|[1-9])$`)
	databenchbY  = regexp.MustCompile(`^(?i)(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)[\s\v\x1c-\x1f\x{85}\x{a0}\x{1680}\x{2000}-\x{200a}\x{2028}\x{2029}\x{202f}\x{205f}\x{3000}]+(\d\d\d\d)$`)
	databenchbY2 = regexp.MustCompile(`^(?i)(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|OCT|NOV|DEC)-(\d\d\d\d)$`)
)

// databenchDateAbbr is pandas' _parse_dateabbr_string with freq None: a
// four-character year, quarters (2Q2005, 2Q05, 2005Q1, 05Q1, with optional
// '-'), then %Y-%m, %b %Y and %b-%Y, all on the upper-cased string.
func databenchDateAbbr(s string) (databenchDT, error) {
	s = strings.ToUpper(s)
	r := []rune(s)
	n := len(r)
	def := databenchDT{year: 1, month: 1, day: 1}
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
		if dt, ok, err := databenchQuarter(r, i); err != nil {
			return databenchDT{}, err
		} else if ok {
			return dt, nil
		}
	}
	if m := databenchYm.FindStringSubmatch(s); m != nil {
		y, _ := strconv.Atoi(m[1])
		mo, _ := strconv.Atoi(m[2])
		return databenchDT{year: y, month: mo, day: 1}, databenchYearOK(y)
	}
	for _, re := range []*regexp.Regexp{databenchbY, databenchbY2} {
		if m := re.FindStringSubmatch(s); m != nil {
			y, _ := strconv.Atoi(m[2])
			mo := 1
			for k, a := range databenchMonthAbbr {
				if strings.EqualFold(a, m[1]) {
					mo = k + 1
				}
			}
			return databenchDT{year: y, month: mo, day: 1}, databenchYearOK(y)
		}
	}
	return databenchDT{}, errDataBenchNoDate
}

// databenchYearOK: strptime refuses year 0.
func databenchYearOK(y int) error {
	if y < 1 {
		return errDataBenchNoDate
	}
	return nil
}

// databenchQuarter is the quarter branch of _parse_dateabbr_string. ok is
// false when the branch raised ValueError (pandas moves on).
func databenchQuarter(r []rune, i int) (databenchDT, bool, error) {
	n := len(r)
	str := func(a, b int) string { return string(r[a:b]) }
	var quarter, year int
	var ok1, ok2 bool
	switch {
	case i == 1:
		quarter, ok1 = pyInt(str(0, 1))
		if !ok1 {
			return databenchDT{}, false, nil
		}
		switch {
		case n == 4 || n == 5 && r[2] == '-':
			year, ok2 = pyInt(str(n-2, n))
			year += 2000
		case n == 6 || n == 7 && r[2] == '-':
			year, ok2 = pyInt(str(n-4, n))
		default:
			return databenchDT{}, false, nil
		}
	case i == 2 || i == 3:
		if !(n == 4 || n == 5 && r[i-1] == '-') {
			return databenchDT{}, false, nil
		}
		quarter, ok1 = pyInt(str(n-1, n))
		year, ok2 = pyInt(str(0, 2))
		year += 2000
	case i == 4 || i == 5:
		if !(n == 6 || n == 7 && r[i-1] == '-') {
			return databenchDT{}, false, nil
		}
		quarter, ok1 = pyInt(str(n-1, n))
		year, ok2 = pyInt(str(0, 4))
	default:
		return databenchDT{}, false, nil // 'Q' not found: ValueError
	}
	if !ok1 || !ok2 {
		return databenchDT{}, false, nil
	}
	if quarter < 1 || quarter > 4 {
		return databenchDT{}, false, errDataBenchQuarter
	}
	if year < 1 || year > 9999 { // datetime.replace raises ValueError
		return databenchDT{}, false, nil
	}
	return databenchDT{year: year, month: (quarter-1)*3 + 1, day: 1}, true, nil
}
