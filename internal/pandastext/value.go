package pandastext

import (
	"math"
	"math/big"
	"strconv"
	"time"

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

// A Value is one cell as a Python reader hands it to pandas, or one
// element of an object column, as the Python object pandas holds there.
// The zero Value is None from a reader: an empty cell, which the parser
// reads as NaN. i holds the integer payload, or the bits of the float for
// kFloat and kBigInt (see flt), which keeps a cell at 32 bytes: big sheets
// hold millions of them.
type Value struct {
	k kind
	i int64
	s string
}

// flt is the float payload of a kFloat or kBigInt value.
func (v Value) flt() float64 { return math.Float64frombits(uint64(v.i)) }

// IsEmpty reports whether v is an empty cell: None or "".
func (v Value) IsEmpty() bool { return v.k == kEmpty || (v.k == kStr && v.s == "") }

// Int is a Python (or numpy) int.
func Int(i int64) Value { return Value{k: kInt, i: i} }

// Float is a Python (or numpy float64) float; NaN prints "NaN" in a column.
func Float(f float64) Value { return Value{k: kFloat, i: int64(math.Float64bits(f))} }

// Str is a Python str.
func Str(s string) Value { return Value{k: kStr, s: s} }

func nanVal() Value { return Float(math.NaN()) }

// Whole is int(f) for a whole float, as pandas' readers return it:
// an int64 when it fits, else a Python big int.
func Whole(f float64) Value {
	if math.Abs(f) < 9.2e18 {
		return Int(int64(f))
	}
	return Value{k: kBigInt, i: int64(math.Float64bits(f)), s: new(big.Float).SetFloat64(f).Text('f', 0)}
}

// Bool is a Python bool.
func Bool(b bool) Value {
	if b {
		return Value{k: kBool, i: 1}
	}
	return Value{k: kBool}
}

// None is Python's None (pyarrow's null in an object column); it prints
// "None".
func None() Value { return Value{k: kNone} }

// Date is a datetime.date.
func Date(y int, m time.Month, d int) Value {
	return Value{k: kDate, i: daysFromCivil(y, int(m), d) * usPerDay}
}

// DateTime is a datetime.datetime us microseconds after 0001-01-01 00:00.
func DateTime(us int64) Value { return Value{k: kDateTime, i: us} }

// Time is a datetime.time us microseconds after midnight.
func Time(us int64) Value { return Value{k: kTime, i: us} }

// Timedelta is a datetime.timedelta of us microseconds.
func Timedelta(us int64) Value { return Value{k: kDuration, i: us} }

// Text is a value whose str() is s, for objects this package does not
// model (a timestamp with a zone, an array already printed).
func Text(s string) Value { return Value{k: kText, s: s} }

// num is the value as a Python number (bool counts as 0/1), for equality
// tests the way Python compares 1 == 1.0 == True.
func (v Value) num() (float64, bool) {
	switch v.k {
	case kInt, kBool:
		return float64(v.i), true
	case kFloat, kBigInt:
		return v.flt(), true
	}
	return 0, false
}

// String is str(v) in Python; a float is repr(float).
func (v Value) String() string {
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
