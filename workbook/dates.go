package workbook

import (
	"math"

	"github.com/evalmd/evalmd/internal/pandastext"
	"github.com/evalmd/evalmd/internal/py"
)

// microseconds per unit, the unit of pandastext's dates and times.
const (
	usPerSec = pandastext.MicrosPerSecond
	usPerDay = pandastext.MicrosPerDay
)

// Excel epochs as days since 0001-01-01.
var (
	windowsEpoch = pandastext.Days(1899, 12, 30)
	macEpoch     = pandastext.Days(1904, 1, 1)
	maxDays      = pandastext.Days(9999, 12, 31)
)

// fromExcel is openpyxl 3.0.9's utils.datetime.from_excel: a serial number
// becomes a datetime (milliseconds rounded half to even), a time when it is
// in [0, 1), or a timedelta for elapsed-time formats. ok is false where
// Python raises OverflowError/ValueError, which openpyxl turns into an
// error cell (NaN for pandas).
func fromExcel(serial float64, mac, timedelta bool) (pandastext.Value, bool) {
	if math.IsNaN(serial) || math.IsInf(serial, 0) || math.Abs(serial) > 1e9 {
		return pandastext.Value{}, false
	}
	if timedelta {
		// timedelta(days=x) rounds to microseconds; a fraction is then
		// rounded to milliseconds.
		us := int64(math.RoundToEven(serial * float64(usPerDay)))
		if us%1000 != 0 {
			sec := py.FloorDiv(us, usPerSec)
			micro := us - sec*usPerSec
			ms := int64(math.RoundToEven(float64(micro)/1000)) * 1000
			us = sec*usPerSec + ms
		}
		return pandastext.Timedelta(us), true
	}
	day, fraction := pyDivmod1(serial)
	diffMS := int64(math.RoundToEven(fraction * 86400 * 1000))
	diffUS := diffMS * 1000
	if serial >= 0 && serial < 1 && diffUS < usPerDay {
		return pandastext.Time(diffUS), true
	}
	epoch := windowsEpoch
	if mac {
		epoch = macEpoch
	} else if serial > 0 && serial < 60 {
		// Excel's phantom 1900-02-29: serials before it are one day off.
		day++
	}
	days := epoch + int64(day)
	if days < 0 || days > maxDays {
		return pandastext.Value{}, false
	}
	us := days*usPerDay + diffUS
	if us < 0 || us >= (maxDays+1)*usPerDay {
		return pandastext.Value{}, false
	}
	return pandastext.DateTime(us), true
}

// pyDivmod1 is Python's divmod(x, 1) for floats, computed as CPython does
// (fmod, then a correction that rounds), which can differ in the last bit
// from x - floor(x) and so move a rounded millisecond.
func pyDivmod1(x float64) (div, mod float64) {
	mod = math.Mod(x, 1)
	div = x - mod
	if mod != 0 && mod < 0 {
		mod++
		div--
	}
	if div != 0 {
		fl := math.Floor(div)
		if div-fl > 0.5 {
			fl++
		}
		div = fl
	}
	return div, mod
}
