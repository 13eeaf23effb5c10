package workbook

import (
	"math"
	"math/big"
	"strconv"

	"github.com/evalmd/evalmd/internal/py"
)

// kind is the Python type a reader hands to pandas for one cell.
type kind uint8

const (
	kEmpty    kind = iota // None, which pandas' readers turn into ""
	kInt                  // int
	kFloat                // float, NaN for error cells read by openpyxl
	kStr                  // str
	kBool                 // bool (i is 0 or 1)
	kDateTime             // datetime.datetime, i = microseconds since 0001-01-01
	kTime                 // datetime.time, i = microseconds since midnight
	kDuration             // datetime.timedelta, i = microseconds
	kBigInt               // int past int64: f is its value, s its digits
	kDate                 // datetime.date (t="d" cells without a time), i as kDateTime
	kNone                 // None in an object column (pyarrow's null): prints "None"
	kText                 // an object printed as s (a zoned timestamp, an array)
)

// value is one cell as the Python reader returns it. i holds the integer
// payload, or the bits of the float for kFloat and kBigInt (see flt), which
// keeps a cell at 32 bytes: big sheets hold millions of them.
type value struct {
	k kind
	i int64
	s string
}

// flt is the float payload of a kFloat or kBigInt value.
func (v value) flt() float64 { return math.Float64frombits(uint64(v.i)) }

func (v value) isEmpty() bool { return v.k == kEmpty || (v.k == kStr && v.s == "") }

func intVal(i int64) value     { return value{k: kInt, i: i} }
func floatVal(f float64) value { return value{k: kFloat, i: int64(math.Float64bits(f))} }
func strVal(s string) value    { return value{k: kStr, s: s} }
func nanVal() value            { return floatVal(math.NaN()) }

// wholeVal is int(f) for a whole float, as pandas' readers return it:
// an int64 when it fits, else a Python big int.
func wholeVal(f float64) value {
	if math.Abs(f) < 9.2e18 {
		return intVal(int64(f))
	}
	return value{k: kBigInt, i: int64(math.Float64bits(f)), s: new(big.Float).SetFloat64(f).Text('f', 0)}
}
func boolVal(b bool) value {
	if b {
		return value{k: kBool, i: 1}
	}
	return value{k: kBool}
}

// num is the value as a Python number (bool counts as 0/1), for equality
// tests the way Python compares 1 == 1.0 == True.
func (v value) num() (float64, bool) {
	switch v.k {
	case kInt, kBool:
		return float64(v.i), true
	case kFloat, kBigInt:
		return v.flt(), true
	}
	return 0, false
}

// pyStr is str(value) as Python prints it.
func (v value) pyStr() string {
	switch v.k {
	case kEmpty:
		return ""
	case kInt:
		return strconv.FormatInt(v.i, 10)
	case kFloat:
		return py.Repr(v.flt())
	case kStr, kBigInt, kText:
		return v.s
	case kNone:
		return "None"
	case kBool:
		if v.i != 0 {
			return "True"
		}
		return "False"
	case kDateTime:
		return pyDateTime(v.i)
	case kTime:
		return pyTime(v.i)
	case kDate:
		return pyDate(v.i)
	case kDuration:
		return pyTimedelta(v.i)
	}
	return ""
}
