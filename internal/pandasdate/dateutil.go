package pandasdate

import (
	"errors"
	"math"
	"strconv"
	"strings"
	"unicode"

	"github.com/evalmd/evalmd/internal/py"
)

// This file is the part of dateutil.parser.parse (dateutil 2.8/2.9, the
// default parserinfo, no fuzzy mode, no tzinfos) that pandas calls from
// pd.to_datetime for strings outside ISO 8601. It decides only what the
// DataBench check needs: whether a string parses, and to which wall-clock
// date and time. The structure follows dateutil's: a lexer (_timelex), a
// token loop (_parse, _parse_numeric_token), year/month/day resolution
// (_ymd.resolve_ymd) and building on a default datetime (_build_naive).

// dateutilHuge stands for a Python int too large for a C int: datetime
// fields built from it raise OverflowError instead of ValueError.
const dateutilHuge = 1 << 40

const dateutilUnset = math.MinInt

// dateutilLex is _timelex.split: runs of letters, runs of digits (with '.'
// or ',' inside numbers), single other characters, and one ' ' per white
// space character; a dotted token with letters, two dots or a trailing
// separator is split at its dots and commas.
// Its length is the original's: it follows dateutil's _timelex.get_token
// branch for branch, in the same order, so that the two can be read side
// by side when a reference case disagrees; it is not split on purpose.
func dateutilLex(s string) []string {
	rs := []rune(s)
	var toks []string
	i := 0
	var stack []string
	next := func() (string, bool) {
		if len(stack) > 0 {
			t := stack[0]
			stack = stack[1:]
			return t, true
		}
		for i < len(rs) && rs[i] == 0 {
			i++
		}
		if i >= len(rs) {
			return "", false
		}
		var tok []rune
		state := byte(0)
		seenLetters := false
		for i < len(rs) {
			c := rs[i]
			if c == 0 {
				i++
				continue
			}
			if state == 0 {
				tok = []rune{c}
				i++
				switch {
				case unicode.IsLetter(c):
					state = 'a'
					continue
				case py.IsDigit(c):
					state = '0'
					continue
				case py.IsSpace(c):
					tok = []rune{' '}
				}
				break
			}
			if state == 'a' {
				seenLetters = true
				if unicode.IsLetter(c) {
					tok = append(tok, c)
				} else if c == '.' {
					tok = append(tok, c)
					state = 'A' // "a."
				} else {
					break
				}
				i++
				continue
			}
			if state == '0' {
				if py.IsDigit(c) {
					tok = append(tok, c)
				} else if c == '.' || (c == ',' && len(tok) >= 2) {
					tok = append(tok, c)
					state = 'N' // "0."
				} else {
					break
				}
				i++
				continue
			}
			if state == 'A' {
				seenLetters = true
				if c == '.' || unicode.IsLetter(c) {
					tok = append(tok, c)
				} else if py.IsDigit(c) && tok[len(tok)-1] == '.' {
					tok = append(tok, c)
					state = 'N'
				} else {
					break
				}
				i++
				continue
			}
			// state 'N' ("0.")
			if c == '.' || py.IsDigit(c) {
				tok = append(tok, c)
			} else if unicode.IsLetter(c) && tok[len(tok)-1] == '.' {
				tok = append(tok, c)
				state = 'A'
			} else {
				break
			}
			i++
		}
		t := string(tok)
		if (state == 'A' || state == 'N') && (seenLetters || strings.Count(t, ".") > 1 || t[len(t)-1] == '.' || t[len(t)-1] == ',') {
			parts := dateutilSplitDecimal(t)
			t = parts[0]
			for _, p := range parts[1:] {
				if p != "" {
					stack = append(stack, p)
				}
			}
		}
		if state == 'N' && !strings.Contains(t, ".") {
			t = strings.ReplaceAll(t, ",", ".")
		}
		return t, true
	}
	for {
		t, ok := next()
		if !ok {
			break
		}
		toks = append(toks, t)
	}
	return toks
}

// dateutilSplitDecimal is re.split("([.,])", s): pieces and separators.
func dateutilSplitDecimal(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '.' || s[i] == ',' {
			out = append(out, s[start:i], s[i:i+1])
			start = i + 1
		}
	}
	return append(out, s[start:])
}

var (
	dateutilJump = map[string]bool{" ": true, ".": true, ",": true, ";": true, "-": true, "/": true, "'": true,
		"at": true, "on": true, "and": true, "ad": true, "m": true, "t": true, "of": true,
		"st": true, "nd": true, "rd": true, "th": true}
	dateutilWeekdays = map[string]int{"mon": 0, "monday": 0, "tue": 1, "tuesday": 1, "wed": 2, "wednesday": 2,
		"thu": 3, "thursday": 3, "fri": 4, "friday": 4, "sat": 5, "saturday": 5, "sun": 6, "sunday": 6}
	dateutilMonths = map[string]int{"jan": 1, "january": 1, "feb": 2, "february": 2, "mar": 3, "march": 3,
		"apr": 4, "april": 4, "may": 5, "jun": 6, "june": 6, "jul": 7, "july": 7, "aug": 8, "august": 8,
		"sep": 9, "sept": 9, "september": 9, "oct": 10, "october": 10, "nov": 11, "november": 11,
		"dec": 12, "december": 12}
	dateutilHMS  = map[string]int{"h": 0, "hour": 0, "hours": 0, "m": 1, "minute": 1, "minutes": 1, "s": 2, "second": 2, "seconds": 2}
	dateutilAMPM = map[string]int{"am": 0, "a": 0, "pm": 1, "p": 1}
)

func dateutilLookup(m map[string]int, s string) (int, bool) {
	v, ok := m[strings.ToLower(s)]
	return v, ok
}

func dateutilIsJump(s string) bool { return dateutilJump[strings.ToLower(s)] }

func dateutilUTCZone(s string) bool {
	switch strings.ToLower(s) {
	case "utc", "gmt", "z":
		return true
	}
	return false
}

// dateutilIsDigits is str.isdigit on a token whose decimal digits are
// already ASCII.
func dateutilIsDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !py.IsDigit(r) {
			return false
		}
	}
	return true
}

// dateutilInt is int(token) for tokens of digits; huge values clamp to
// dateutilHuge.
func dateutilInt(s string) (int, bool) {
	if s == "" {
		return 0, false
	}
	for i := 0; i < len(s); i++ {
		if !cIsDigit(s[i]) {
			return 0, false
		}
	}
	n, err := strconv.Atoi(s)
	if err != nil || n > dateutilHuge {
		return dateutilHuge, true
	}
	return n, true
}

// dateutilNumber is float(token) for the numeric tokens the lexer makes;
// nan and inf spellings are numbers to float() but not to Decimal, which
// makes _parse_numeric_token fail.
func dateutilNumber(s string) (v float64, isNum, finite bool) {
	switch strings.ToLower(s) {
	case "nan", "inf", "infinity":
		return 0, true, false
	}
	f, err := py.ParseFloat(s)
	if err != nil {
		return 0, false, false
	}
	return f, true, !math.IsInf(f, 0) && !math.IsNaN(f)
}

func dateutilTrunc(f float64) int {
	if f >= dateutilHuge {
		return dateutilHuge
	}
	return int(f)
}

// dateutilYMD is dateutil's _ymd list.
type dateutilYMD struct {
	vals             []int
	centurySpecified bool
	ystr, mstr, dstr int // indexes, -1 when unset
}

var errDateutil = errors.New("dateutil: unknown string format")

func (y *dateutilYMD) label(label byte) error {
	idx := len(y.vals) - 1
	switch label {
	case 'M':
		if y.mstr >= 0 {
			return errDateutil
		}
		y.mstr = idx
	case 'Y':
		if y.ystr >= 0 {
			return errDateutil
		}
		y.ystr = idx
	}
	return nil
}

// appendStr is _ymd.append for a token string: more than two digits marks
// a year.
func (y *dateutilYMD) appendStr(s string, label byte) error {
	if dateutilIsDigits(s) && len([]rune(s)) > 2 {
		y.centurySpecified = true
		if label != 0 && label != 'Y' {
			return errDateutil
		}
		label = 'Y'
	}
	n, ok := dateutilInt(s)
	if !ok {
		return errDateutil
	}
	y.vals = append(y.vals, n)
	return y.label(label)
}

// appendNum is _ymd.append for a number: above 100 marks a year.
func (y *dateutilYMD) appendNum(v float64, label byte) error {
	if v > 100 {
		y.centurySpecified = true
		if label != 0 && label != 'Y' {
			return errDateutil
		}
		label = 'Y'
	}
	y.vals = append(y.vals, dateutilTrunc(v))
	return y.label(label)
}

func (y *dateutilYMD) couldBeDay(v float64) (bool, error) {
	if y.dstr >= 0 {
		return false, nil
	}
	if y.mstr < 0 {
		return 1 <= v && v <= 31, nil
	}
	month := y.vals[y.mstr]
	if month < 1 || month > 12 {
		return false, errDateutil // calendar.IllegalMonthError
	}
	year := 2000 // permissive leap year
	if y.ystr >= 0 {
		year = y.vals[y.ystr]
	}
	return 1 <= v && v <= float64(daysIn(year, month)), nil
}

// resolve is _ymd.resolve_ymd with dayfirst and yearfirst False.
// Its length is the original's: it follows dateutil's resolve_ymd branch
// for branch, in the same order, so that the two can be read side by side
// when a reference case disagrees; it is not split on purpose.
func (y *dateutilYMD) resolve() (year, month, day int, err error) {
	year, month, day = dateutilUnset, dateutilUnset, dateutilUnset
	n := len(y.vals)
	strids := map[byte]int{}
	if y.ystr >= 0 {
		strids['y'] = y.ystr
	}
	if y.mstr >= 0 {
		strids['m'] = y.mstr
	}
	if y.dstr >= 0 {
		strids['d'] = y.dstr
	}
	if (n == len(strids) && n > 0) || (n == 3 && len(strids) == 2) {
		if n == 3 && len(strids) == 2 {
			used := map[int]bool{}
			for _, v := range strids {
				used[v] = true
			}
			for _, k := range []byte{'y', 'm', 'd'} {
				if _, ok := strids[k]; !ok {
					for x := 0; x < 3; x++ {
						if !used[x] {
							strids[k] = x
						}
					}
				}
			}
		}
		if i, ok := strids['y']; ok {
			year = y.vals[i]
		}
		if i, ok := strids['m']; ok {
			month = y.vals[i]
		}
		if i, ok := strids['d']; ok {
			day = y.vals[i]
		}
		return year, month, day, nil
	}
	v := y.vals
	switch {
	case n > 3:
		return 0, 0, 0, errDateutil
	case n == 1 || (y.mstr >= 0 && n == 2):
		var other int
		if y.mstr >= 0 {
			month = v[y.mstr]
			other = v[(y.mstr-1+n)%n] // self[mstridx - 1]
		} else {
			other = v[0]
		}
		if n > 1 || y.mstr < 0 {
			if other > 31 {
				year = other
			} else {
				day = other
			}
		}
	case n == 2:
		switch {
		case v[0] > 31:
			year, month = v[0], v[1]
		case v[1] > 31:
			month, year = v[0], v[1]
		default:
			month, day = v[0], v[1]
		}
	case n == 3:
		switch y.mstr {
		case 0:
			if v[1] > 31 {
				month, year, day = v[0], v[1], v[2]
			} else {
				month, day, year = v[0], v[1], v[2]
			}
		case 1:
			if v[0] > 31 {
				year, month, day = v[0], v[1], v[2]
			} else {
				day, month, year = v[0], v[1], v[2]
			}
		case 2:
			if v[1] > 31 {
				day, year, month = v[0], v[1], v[2]
			} else {
				year, day, month = v[0], v[1], v[2]
			}
		default:
			switch {
			case v[0] > 31 || y.ystr == 0:
				year, month, day = v[0], v[1], v[2]
			case v[0] > 12:
				day, month, year = v[0], v[1], v[2]
			default:
				month, day, year = v[0], v[1], v[2]
			}
		}
	}
	return year, month, day, nil
}

// dateutilResult is dateutil's _result.
type dateutilResult struct {
	year, month, day, weekday, hour, minute, second, micro int
	tzname                                                 string
	hasTZName                                              bool
	tzoffset, ampm                                         int
}

// dateutilParse is dateutil.parser.parse(s, default=def): the wall-clock
// datetime, errDateutil (a ValueError) or a *OverflowError.
// thisYear pivots two-digit years (parserinfo.convertyear).
func dateutilParse(s string, def dateTime, thisYear int) (dateTime, error) {
	res, err := dateutilTokens(dateutilLex(py.ASCIIDigits(s)), thisYear)
	if err != nil {
		return dateTime{}, err
	}
	return dateutilBuild(res, def, s)
}

// dateutilTokens is parser._parse with its default parserinfo: each token
// read as a number, a weekday, a month, an am/pm marker, a time zone name
// or offset, or a skippable word, then the year, month and day resolved.
// Its length is the original's: it follows dateutil's _parse branch for
// branch, in the same order, so that the two can be read side by side when
// a reference case disagrees; it is not split on purpose.
func dateutilTokens(l []string, thisYear int) (dateutilResult, error) {
	res := dateutilResult{year: dateutilUnset, month: dateutilUnset, day: dateutilUnset, weekday: dateutilUnset,
		hour: dateutilUnset, minute: dateutilUnset, second: dateutilUnset, micro: dateutilUnset,
		tzoffset: dateutilUnset, ampm: dateutilUnset}
	ymd := &dateutilYMD{ystr: -1, mstr: -1, dstr: -1}
	n := len(l)
	get := func(i int) (string, error) { // IndexError ends the parse
		if i < 0 || i >= n {
			return "", errDateutil
		}
		return l[i], nil
	}
	for i := 0; i < n; i++ {
		tok := l[i]
		if v, isNum, finite := dateutilNumber(tok); isNum {
			if !finite {
				return res, errDateutil
			}
			ni, err := dateutilNumeric(l, i, v, ymd, &res)
			if err != nil {
				return res, err
			}
			i = ni
			continue
		}
		if wd, ok := dateutilLookup(dateutilWeekdays, tok); ok {
			res.weekday = wd
			continue
		}
		if mo, ok := dateutilLookup(dateutilMonths, tok); ok {
			ymd.vals = append(ymd.vals, mo)
			if err := ymd.label('M'); err != nil {
				return res, err
			}
			if i+1 < n {
				if l[i+1] == "-" || l[i+1] == "/" {
					sep := l[i+1]
					t2, err := get(i + 2)
					if err != nil {
						return res, err
					}
					if err := ymd.appendStr(t2, 0); err != nil {
						return res, err
					}
					if i+3 < n && l[i+3] == sep {
						t4, err := get(i + 4)
						if err != nil {
							return res, err
						}
						if err := ymd.appendStr(t4, 0); err != nil {
							return res, err
						}
						i += 2
					}
					i += 2
				} else if i+4 < n && l[i+1] == " " && l[i+3] == " " && strings.ToLower(l[i+2]) == "of" {
					if dateutilIsDigits(l[i+4]) {
						v, ok := dateutilInt(l[i+4])
						if !ok {
							return res, errDateutil
						}
						if err := ymd.appendStr(strconv.Itoa(dateutilConvertYear(v, false, thisYear)), 'Y'); err != nil {
							return res, err
						}
					}
					i += 4
				}
			}
			continue
		}
		if ap, ok := dateutilLookup(dateutilAMPM, tok); ok {
			if res.hour == dateutilUnset || res.hour < 0 || res.hour > 12 {
				return res, errDateutil
			}
			res.hour = dateutilAdjustAMPM(res.hour, ap)
			res.ampm = ap
			continue
		}
		if dateutilCouldBeTZName(res.hour, res.hasTZName, res.tzoffset != dateutilUnset, tok) {
			res.tzname, res.hasTZName = tok, true
			res.tzoffset = dateutilUnset
			if tok == "UTC" || tok == "GMT" || tok == "Z" || tok == "z" {
				res.tzoffset = 0
			}
			if i+1 < n && (l[i+1] == "+" || l[i+1] == "-") {
				if l[i+1] == "+" {
					l[i+1] = "-"
				} else {
					l[i+1] = "+"
				}
				res.tzoffset = dateutilUnset
				if dateutilUTCZone(tok) {
					res.tzname, res.hasTZName = "", false
				}
			}
			continue
		}
		if res.hour != dateutilUnset && (tok == "+" || tok == "-") {
			sign := -1
			if tok == "+" {
				sign = 1
			}
			t1, err := get(i + 1)
			if err != nil {
				return res, err
			}
			r1 := []rune(t1)
			var ho, mo int
			var ok1, ok2 bool
			switch {
			case len(r1) == 4:
				ho, ok1 = dateutilInt(string(r1[:2]))
				mo, ok2 = dateutilInt(string(r1[2:]))
			case i+2 < n && l[i+2] == ":":
				ho, ok1 = dateutilInt(t1)
				t3, err := get(i + 3)
				if err != nil {
					return res, err
				}
				mo, ok2 = dateutilInt(t3)
				i += 2
			case len(r1) <= 2:
				ho, ok1 = dateutilInt(t1)
				ok2 = true
			default:
				return res, errDateutil
			}
			if !ok1 || !ok2 {
				return res, errDateutil
			}
			res.tzoffset = sign * (ho*3600 + mo*60)
			if i+5 < n && dateutilIsJump(l[i+2]) && l[i+3] == "(" && l[i+5] == ")" &&
				len([]rune(l[i+4])) >= 3 && dateutilCouldBeTZName(res.hour, res.hasTZName, false, l[i+4]) {
				res.tzname, res.hasTZName = l[i+4], true
				i += 4
			}
			i++
			continue
		}
		if !dateutilIsJump(tok) {
			return res, errDateutil
		}
	}
	year, month, day, err := ymd.resolve()
	if err != nil {
		return res, err
	}
	res.year, res.month, res.day = year, month, day
	if res.year != dateutilUnset {
		res.year = dateutilConvertYear(res.year, ymd.centurySpecified, thisYear)
	}
	return res, nil
}

// dateutilNumeric is _parse_numeric_token; it returns the index of the last
// token it used.
// Its length is the original's: it follows dateutil's _parse_numeric_token
// branch for branch, in the same order, so that the two can be read side
// by side when a reference case disagrees; it is not split on purpose.
func dateutilNumeric(l []string, idx int, value float64, ymd *dateutilYMD, res *dateutilResult) (int, error) {
	repr := l[idx]
	rr := []rune(repr)
	lenLi := len(rr)
	n := len(l)
	hmsAt := func(i int) (int, bool) {
		if i < 0 || i >= n {
			return 0, false
		}
		return dateutilLookup(dateutilHMS, l[i])
	}
	_, nextHMS := hmsAt(idx + 1)
	switch {
	case len(ymd.vals) == 3 && (lenLi == 2 || lenLi == 4) && res.hour == dateutilUnset &&
		(idx+1 >= n || (l[idx+1] != ":" && !nextHMS)):
		// 19990101T23[59]
		h, ok := dateutilInt(string(rr[:2]))
		if !ok {
			return idx, errDateutil
		}
		res.hour = h
		if lenLi == 4 {
			m, ok := dateutilInt(string(rr[2:]))
			if !ok {
				return idx, errDateutil
			}
			res.minute = m
		}
	case lenLi == 6 || (lenLi > 6 && strings.IndexRune(repr, '.') == 6):
		// YYMMDD or HHMMSS[.ss]
		if len(ymd.vals) == 0 && !strings.Contains(repr, ".") {
			for _, p := range []string{string(rr[:2]), string(rr[2:4]), string(rr[4:])} {
				if err := ymd.appendStr(p, 0); err != nil {
					return idx, err
				}
			}
		} else {
			h, ok1 := dateutilInt(string(rr[:2]))
			m, ok2 := dateutilInt(string(rr[2:4]))
			if !ok1 || !ok2 {
				return idx, errDateutil
			}
			res.hour, res.minute = h, m
			sec, us, err := dateutilParseMS(string(rr[4:]))
			if err != nil {
				return idx, err
			}
			res.second, res.micro = sec, us
		}
	case lenLi == 8 || lenLi == 12 || lenLi == 14:
		// YYYYMMDD[HHMM[SS]]
		if err := ymd.appendStr(string(rr[:4]), 'Y'); err != nil {
			return idx, err
		}
		if err := ymd.appendStr(string(rr[4:6]), 0); err != nil {
			return idx, err
		}
		if err := ymd.appendStr(string(rr[6:8]), 0); err != nil {
			return idx, err
		}
		if lenLi > 8 {
			h, ok1 := dateutilInt(string(rr[8:10]))
			m, ok2 := dateutilInt(string(rr[10:12]))
			if !ok1 || !ok2 {
				return idx, errDateutil
			}
			res.hour, res.minute = h, m
			if lenLi > 12 {
				s, ok := dateutilInt(string(rr[12:]))
				if !ok {
					return idx, errDateutil
				}
				res.second = s
			}
		}
	default:
		if hmsIdx, ok := dateutilFindHMS(idx, l); ok {
			var hms int
			if hmsIdx > idx {
				hms, _ = hmsAt(hmsIdx)
				idx = hmsIdx
			} else {
				hms, _ = hmsAt(hmsIdx)
				hms++
			}
			switch hms {
			case 0:
				res.hour = dateutilTrunc(value)
				if frac := math.Mod(value, 1); frac != 0 {
					res.minute = dateutilTrunc(60 * frac)
				}
			case 1:
				res.minute, res.second = dateutilMinSec(value)
			case 2:
				sec, us, err := dateutilParseMS(repr)
				if err != nil {
					return idx, err
				}
				res.second, res.micro = sec, us
			}
			return idx, nil
		}
		if idx+2 < n && l[idx+1] == ":" {
			// HH:MM[:SS[.ss]]
			res.hour = dateutilTrunc(value)
			v2, isNum, finite := dateutilNumber(l[idx+2])
			if !isNum || !finite {
				return idx, errDateutil
			}
			res.minute, res.second = dateutilMinSec(v2)
			if idx+4 < n && l[idx+3] == ":" {
				sec, us, err := dateutilParseMS(l[idx+4])
				if err != nil {
					return idx, err
				}
				res.second, res.micro = sec, us
				idx += 2
			}
			return idx + 2, nil
		}
		if idx+1 < n && (l[idx+1] == "-" || l[idx+1] == "/" || l[idx+1] == ".") {
			sep := l[idx+1]
			if err := ymd.appendStr(repr, 0); err != nil {
				return idx, err
			}
			if idx+2 < n && !dateutilIsJump(l[idx+2]) {
				if dateutilIsDigits(l[idx+2]) {
					if err := ymd.appendStr(l[idx+2], 0); err != nil {
						return idx, err
					}
				} else if mo, ok := dateutilLookup(dateutilMonths, l[idx+2]); ok {
					ymd.vals = append(ymd.vals, mo)
					if err := ymd.label('M'); err != nil {
						return idx, err
					}
				} else {
					return idx, errDateutil
				}
				if idx+3 < n && l[idx+3] == sep {
					if idx+4 >= n {
						return idx, errDateutil
					}
					if mo, ok := dateutilLookup(dateutilMonths, l[idx+4]); ok {
						ymd.vals = append(ymd.vals, mo)
						if err := ymd.label('M'); err != nil {
							return idx, err
						}
					} else if err := ymd.appendStr(l[idx+4], 0); err != nil {
						return idx, err
					}
					idx += 2
				}
				idx++
			}
			return idx + 1, nil
		}
		if idx+1 >= n || dateutilIsJump(l[idx+1]) {
			if idx+2 < n {
				if ap, ok := dateutilLookup(dateutilAMPM, l[idx+2]); ok {
					// "12 am": the hour, no 12-hour check here.
					res.hour = dateutilAdjustAMPM(dateutilTrunc(value), ap)
					return idx + 2, nil
				}
			}
			if err := ymd.appendNum(value, 0); err != nil {
				return idx, err
			}
			return idx + 1, nil
		}
		if ap, ok := dateutilLookup(dateutilAMPM, l[idx+1]); ok && value >= 0 && value < 24 {
			res.hour = dateutilAdjustAMPM(dateutilTrunc(value), ap)
			return idx + 1, nil
		}
		ok, err := ymd.couldBeDay(value)
		if err != nil {
			return idx, err
		}
		if ok {
			if err := ymd.appendNum(value, 0); err != nil {
				return idx, err
			}
			return idx, nil
		}
		return idx, errDateutil
	}
	return idx, nil
}

// dateutilFindHMS is _find_hms_idx with allow_jump.
func dateutilFindHMS(idx int, l []string) (int, bool) {
	n := len(l)
	is := func(i int) bool {
		if i < 0 || i >= n {
			return false
		}
		_, ok := dateutilLookup(dateutilHMS, l[i])
		return ok
	}
	switch {
	case idx+1 < n && is(idx+1):
		return idx + 1, true
	case idx+2 < n && l[idx+1] == " " && is(idx+2):
		return idx + 2, true
	case idx > 0 && is(idx-1):
		return idx - 1, true
	case 1 < idx && idx == n-1 && l[idx-1] == " " && is(idx-2):
		return idx - 2, true
	}
	return 0, false
}

// dateutilMinSec is _parse_min_sec.
func dateutilMinSec(v float64) (int, int) {
	minute := dateutilTrunc(v)
	second := dateutilUnset
	if frac := math.Mod(v, 1); frac != 0 {
		second = dateutilTrunc(60 * frac)
	}
	return minute, second
}

// dateutilParseMS is _parsems: "S" or "S.ffffff".
func dateutilParseMS(s string) (int, int, error) {
	if !strings.Contains(s, ".") {
		v, ok := dateutilInt(s)
		if !ok {
			return 0, 0, errDateutil
		}
		return v, 0, nil
	}
	parts := strings.Split(s, ".")
	if len(parts) != 2 {
		return 0, 0, errDateutil
	}
	sec, ok1 := dateutilInt(parts[0])
	f := parts[1]
	for len([]rune(f)) < 6 {
		f += "0"
	}
	us, ok2 := dateutilInt(string([]rune(f)[:6]))
	if !ok1 || !ok2 {
		return 0, 0, errDateutil
	}
	return sec, us, nil
}

func dateutilAdjustAMPM(hour, ampm int) int {
	if hour < 12 && ampm == 1 {
		return hour + 12
	}
	if hour == 12 && ampm == 0 {
		return 0
	}
	return hour
}

// dateutilCouldBeTZName is _could_be_tzname.
func dateutilCouldBeTZName(hour int, hasName, hasOffset bool, tok string) bool {
	if hour == dateutilUnset || hasName || hasOffset || len([]rune(tok)) > 5 {
		return false
	}
	switch tok {
	case "UTC", "GMT", "Z", "z":
		return true
	}
	for _, r := range tok {
		if r < 'A' || r > 'Z' {
			return false
		}
	}
	return true
}

// dateutilConvertYear is parserinfo.convertyear: a two-digit year lands
// within 50 years of the current one.
func dateutilConvertYear(year int, centurySpecified bool, thisYear int) int {
	if year < 100 && !centurySpecified {
		year += thisYear / 100 * 100
		if year >= thisYear+50 {
			year -= 100
		} else if year < thisYear-50 {
			year += 100
		}
	}
	return year
}

// dateutilBuild is parse()'s tail: refuse an empty result, replace the
// default's fields (datetime.replace validation), add the weekday, and
// check the UTC offset pandas will ask for.
func dateutilBuild(res dateutilResult, def dateTime, s string) (dateTime, error) {
	count := 0
	for _, v := range []int{res.year, res.month, res.day, res.weekday, res.hour, res.minute, res.second, res.micro, res.tzoffset, res.ampm} {
		if v != dateutilUnset {
			count++
		}
	}
	if res.hasTZName {
		count++
	}
	if count == 0 {
		return dateTime{}, errDateutil // "String does not contain a date"
	}
	dt := def
	set := func(dst *int, v int) {
		if v != dateutilUnset {
			*dst = v
		}
	}
	set(&dt.year, res.year)
	set(&dt.month, res.month)
	set(&dt.day, res.day)
	set(&dt.hour, res.hour)
	set(&dt.minute, res.minute)
	set(&dt.second, res.second)
	set(&dt.micro, res.micro)
	if res.day == dateutilUnset && (dt.month < 1 || dt.month > 12) {
		return dateTime{}, errDateutil // monthrange: IllegalMonthError
	}
	for _, v := range []int{dt.year, dt.month, dt.day, dt.hour, dt.minute, dt.second, dt.micro} {
		if v > math.MaxInt32 {
			return dateTime{}, &OverflowError{Text: s}
		}
	}
	if dt.year < 1 || dt.year > 9999 || dt.month < 1 || dt.month > 12 {
		return dateTime{}, errDateutil
	}
	if res.day == dateutilUnset && dt.day > daysIn(dt.year, dt.month) {
		// The default's day past the month's end falls back to its last day.
		dt.day = daysIn(dt.year, dt.month)
	}
	if dt.day < 1 || dt.day > daysIn(dt.year, dt.month) || dt.hour < 0 || dt.hour > 23 ||
		dt.minute < 0 || dt.minute > 59 || dt.second < 0 || dt.second > 59 || dt.micro < 0 || dt.micro > 999999 {
		return dateTime{}, errDateutil
	}
	if res.weekday != dateutilUnset && (res.day == dateutilUnset || res.day == 0) {
		// relativedelta(weekday=...): the next such weekday on or after.
		cur := dateutilWeekday(dt.year, dt.month, dt.day)
		dt = dateutilAddDays(dt, (res.weekday-cur+7)%7)
	}
	if res.tzoffset != dateutilUnset && res.tzoffset != 0 {
		if res.tzoffset <= -86400 || res.tzoffset >= 86400 {
			return dateTime{}, errDateutil // utcoffset() must be under a day
		}
		dt.offset = res.tzoffset
	}
	return dt, nil
}

// dateutilWeekday is datetime.weekday(): Monday 0.
func dateutilWeekday(y, m, d int) int {
	// Days since 0001-01-01 (a Monday) in the proleptic Gregorian calendar.
	return dateutilOrdinal(y, m, d) % 7
}

func dateutilOrdinal(y, m, d int) int {
	yy := y - 1
	days := yy*365 + yy/4 - yy/100 + yy/400
	for k := 1; k < m; k++ {
		days += daysIn(y, k)
	}
	return days + d - 1
}

func dateutilAddDays(dt dateTime, n int) dateTime {
	for ; n > 0; n-- {
		dt.day++
		if dt.day > daysIn(dt.year, dt.month) {
			dt.day = 1
			dt.month++
			if dt.month > 12 {
				dt.month = 1
				dt.year++
			}
		}
	}
	return dt
}
