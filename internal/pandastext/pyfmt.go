package pandastext

import (
	"strconv"

	"github.com/evalmd/evalmd/internal/py"
)

// This file reproduces Python's str() of datetime, time and timedelta as
// pandas prints them; numbers are printed by internal/py.

// microseconds per unit, for the civil date and time values below.
const (
	usPerSec = int64(1_000_000)
	usPerDay = 86400 * usPerSec
)

// MicrosPerSecond and MicrosPerDay are the units of DateTime, Time and
// Timedelta.
const (
	MicrosPerSecond = usPerSec
	MicrosPerDay    = usPerDay
)

// Days is the number of days from 0001-01-01 to y-m-d in the proleptic
// Gregorian calendar (Python's datetime), for DateTime.
func Days(y, m, d int) int64 { return daysFromCivil(y, m, d) }

// civil splits microseconds since 0001-01-01 00:00 (proleptic Gregorian, the
// range of Python's datetime) into calendar fields.
func civil(us int64) (y, mo, d, h, mi, s, frac int) {
	days := py.FloorDiv(us, usPerDay)
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
	era := py.FloorDiv(z, 146097)
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
	era := py.FloorDiv(yy, 400)
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
	days := py.FloorDiv(us, usPerDay)
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
