package workbook

import (
	"math"
	"strconv"
	"strings"
)

// This file reproduces the few pieces of Python's number and date printing
// that pandas relies on: repr(float), format(x, ".6f"), format(x, ".6e"),
// str(int) and str() of datetime, time and timedelta. Go's strconv rounds
// correctly like CPython, so only the layout rules differ.

// pyRepr is Python's repr(float) (also str(float)): the shortest digits that
// round-trip, in fixed notation when the decimal exponent is in [-4, 16),
// otherwise in scientific notation with a two-digit minimum exponent.
func pyRepr(f float64) string {
	switch {
	case math.IsNaN(f):
		return "nan"
	case math.IsInf(f, 1):
		return "inf"
	case math.IsInf(f, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // like -1.2345e+06
	neg := false
	if e[0] == '-' {
		neg = true
		e = e[1:]
	}
	epos := strings.IndexByte(e, 'e')
	mant, expStr := e[:epos], e[epos+1:]
	exp, _ := strconv.Atoi(expStr)
	digits := strings.Replace(mant, ".", "", 1)
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	if exp >= -4 && exp < 16 {
		if exp < 0 {
			b.WriteString("0.")
			b.WriteString(strings.Repeat("0", -exp-1))
			b.WriteString(digits)
			return b.String()
		}
		if len(digits) <= exp+1 {
			b.WriteString(digits)
			b.WriteString(strings.Repeat("0", exp+1-len(digits)))
			b.WriteString(".0")
			return b.String()
		}
		b.WriteString(digits[:exp+1])
		b.WriteByte('.')
		b.WriteString(digits[exp+1:])
		return b.String()
	}
	b.WriteByte(digits[0])
	if len(digits) > 1 {
		b.WriteByte('.')
		b.WriteString(digits[1:])
	}
	b.WriteByte('e')
	if exp < 0 {
		b.WriteByte('-')
		exp = -exp
	} else {
		b.WriteByte('+')
	}
	if exp < 10 {
		b.WriteByte('0')
	}
	b.WriteString(strconv.Itoa(exp))
	return b.String()
}

// pyFixed is Python's format(f, ".{prec}f"), with a leading space for
// non-negative numbers when space is set (the " " format flag).
func pyFixed(f float64, prec int, space bool) string { return pyFloat(f, 'f', prec, space) }

// pyExp is Python's format(f, ".{prec}e"); Go's 'e' layout already has the
// two-digit minimum exponent Python uses.
func pyExp(f float64, prec int, space bool) string { return pyFloat(f, 'e', prec, space) }

// pyFloat formats f with Go's verb ('f' or 'e') as Python's format does,
// spelling non-finite values Python's way.
func pyFloat(f float64, verb byte, prec int, space bool) string {
	var s string
	switch {
	case math.IsNaN(f):
		s = "nan"
	case math.IsInf(f, 1):
		s = "inf"
	case math.IsInf(f, -1):
		s = "-inf"
	default:
		s = strconv.FormatFloat(f, verb, prec, 64)
	}
	if space && !strings.HasPrefix(s, "-") {
		return " " + s
	}
	return s
}

// microseconds per unit, for the civil date and time values below.
const (
	usPerSec = int64(1_000_000)
	usPerDay = 86400 * usPerSec
)

// civil splits microseconds since 0001-01-01 00:00 (proleptic Gregorian, the
// range of Python's datetime) into calendar fields.
func civil(us int64) (y, mo, d, h, mi, s, frac int) {
	days := floorDiv(us, usPerDay)
	rem := us - days*usPerDay
	y, mo, d = civilFromDays(days)
	h = int(rem / (3600 * usPerSec))
	rem %= 3600 * usPerSec
	mi = int(rem / (60 * usPerSec))
	rem %= 60 * usPerSec
	s = int(rem / usPerSec)
	frac = int(rem % usPerSec)
	return
}

// civilFromDays converts days since 0001-01-01 to a date (Howard Hinnant's
// algorithm, shifted to the year-1 epoch).
func civilFromDays(days int64) (y, m, d int) {
	// days from 0000-03-01 to 0001-01-01 is 306.
	z := days + 306
	era := floorDiv(z, 146097)
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	dd := doy - (153*mp+2)/5 + 1
	mm := mp + 3
	if mm > 12 {
		mm -= 12
		yy++
	}
	return int(yy), int(mm), int(dd)
}

// daysFromCivil is the inverse of civilFromDays.
func daysFromCivil(y, m, d int) int64 {
	yy := int64(y)
	if m <= 2 {
		yy--
	}
	era := floorDiv(yy, 400)
	yoe := yy - era*400
	mm := int64(m)
	if mm > 2 {
		mm -= 3
	} else {
		mm += 9
	}
	doy := (153*mm+2)/5 + int64(d) - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return era*146097 + doe - 306
}

func floorDiv(a, b int64) int64 {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func pad(n, width int) string {
	s := strconv.Itoa(n)
	for len(s) < width {
		s = "0" + s
	}
	return s
}

// pyDate is the "YYYY-MM-DD" part of a datetime.
func pyDate(us int64) string {
	y, mo, d, _, _, _, _ := civil(us)
	return pad(y, 4) + "-" + pad(mo, 2) + "-" + pad(d, 2)
}

// pyDateTime is str(datetime.datetime): "YYYY-MM-DD HH:MM:SS" plus
// ".ffffff" when there are microseconds.
func pyDateTime(us int64) string {
	y, mo, d, h, mi, s, frac := civil(us)
	out := pad(y, 4) + "-" + pad(mo, 2) + "-" + pad(d, 2) + " " + pad(h, 2) + ":" + pad(mi, 2) + ":" + pad(s, 2)
	if frac != 0 {
		out += "." + pad(frac, 6)
	}
	return out
}

// pyTime is str(datetime.time) for microseconds since midnight.
func pyTime(us int64) string {
	h := int(us / (3600 * usPerSec))
	us %= 3600 * usPerSec
	mi := int(us / (60 * usPerSec))
	us %= 60 * usPerSec
	s := int(us / usPerSec)
	frac := int(us % usPerSec)
	out := pad(h, 2) + ":" + pad(mi, 2) + ":" + pad(s, 2)
	if frac != 0 {
		out += "." + pad(frac, 6)
	}
	return out
}

// pyTimedelta is str(datetime.timedelta): "[D day[s], ]H:MM:SS[.ffffff]",
// days carrying the sign as Python normalises it.
func pyTimedelta(us int64) string {
	days := floorDiv(us, usPerDay)
	rem := us - days*usPerDay
	h := rem / (3600 * usPerSec)
	rem %= 3600 * usPerSec
	mi := rem / (60 * usPerSec)
	rem %= 60 * usPerSec
	s := rem / usPerSec
	frac := rem % usPerSec
	out := strconv.FormatInt(h, 10) + ":" + pad(int(mi), 2) + ":" + pad(int(s), 2)
	if frac != 0 {
		out += "." + pad(int(frac), 6)
	}
	if days != 0 {
		unit := " days, "
		if days == 1 || days == -1 {
			unit = " day, "
		}
		out = strconv.FormatInt(days, 10) + unit + out
	}
	return out
}
