package pandastext

// Expected values in this file were produced by the reference stack itself
// (pandas 1.5.3 TextParser(..., header=0, skip_blank_lines=False) and
// DataFrame.to_string(index=False)), not by this package.

import "math"

type frameCase struct {
	name string
	rows [][]Value
	want string
}

// Cell constructors keep the tables short.
var (
	E = Value{}
	N = Float(math.NaN())
)

func I(i int64) Value   { return Int(i) }
func F(f float64) Value { return Float(f) }
func S(s string) Value  { return Str(s) }
func B(b bool) Value    { return Bool(b) }
func D(y, mo, d, h, mi, s, us int) Value {
	return Value{k: kDateTime, i: daysFromCivil(y, mo, d)*usPerDay + int64(h)*3600*usPerSec + int64(mi)*60*usPerSec + int64(s)*usPerSec + int64(us)}
}
func T(h, mi, s, us int) Value {
	return Value{k: kTime, i: int64(h)*3600*usPerSec + int64(mi)*60*usPerSec + int64(s)*usPerSec + int64(us)}
}

var frameCases = []frameCase{
	{"dup headers", [][]Value{{S("a"), S("a"), S("a.1"), S("a")}, {I(1), I(2), I(3), I(4)}}, " a  a.2  a.1  a.3\n 1    2    3    4"},
	{"numeric headers", [][]Value{{I(1), F(2.5), S("x"), B(true)}, {I(1), I(2), I(3), I(4)}}, " 1  2.5  x  True.1\n 1    2  3       4"},
	{"int headers pad", [][]Value{{I(1), I(100), I(7)}, {I(1), I(2), I(3)}}, " 1    100  7  \n   1    2    3"},
	{"negative int headers", [][]Value{{I(1000000000), I(-1)}, {I(1), I(2)}}, "  1000000000  -1         \n           1            2"},
	{"float headers with nan", [][]Value{{F(1.5), F(-2.5), N}, {I(1), I(2), I(3)}}, "  1.5  -2.5   NaN\n    1     2     3"},
	{"int and nan headers", [][]Value{{N, I(1)}, {I(1), I(2)}}, " NaN  1.0\n   1    2"},
	{"nan and str headers", [][]Value{{N, S("a")}, {I(1), I(2)}}, " NaN  a\n   1  2"},
	{"datetime and nan headers", [][]Value{{D(2020, 1, 1, 0, 0, 0, 0), N}, {I(1), I(2)}}, " 2020-01-01  NaT\n          1    2"},
	{"datetime headers", [][]Value{{D(2020, 1, 1, 0, 0, 0, 0), D(2020, 1, 2, 5, 0, 0, 0)}, {I(1), I(2)}}, " 2020-01-01 00:00:00  2020-01-02 05:00:00\n                   1                    2"},
	{"date-only datetime headers", [][]Value{{D(2020, 1, 1, 0, 0, 0, 0), D(2020, 1, 2, 0, 0, 0, 0)}, {I(1), I(2)}}, " 2020-01-01  2020-01-02\n          1           2"},
	{"time headers", [][]Value{{T(1, 2, 0, 0), T(3, 4, 0, 0)}, {I(1), I(2)}}, " 01:02:00  03:04:00\n        1         2"},
	{"dup nan headers", [][]Value{{N, N, S("x")}, {I(1), I(2), I(3)}}, " NaN  nan.1  x\n   1      2  3"},
	{"empty frame float cols", [][]Value{{F(1.5), I(2)}}, "Empty DataFrame\nColumns: [1.5, 2.0]\nIndex: []"},
	{"empty frame dt cols", [][]Value{{D(2020, 1, 1, 0, 0, 0, 0), D(2021, 1, 1, 3, 0, 0, 0)}}, "Empty DataFrame\nColumns: [2020-01-01 00:00:00, 2021-01-01 03:00:00]\nIndex: []"},
	{"float headers", [][]Value{{F(0.5), F(1e-07), I(2)}, {I(1), I(2), I(3)}}, " 5.000000e-01  1.000000e-07  2.000000e+00\n            1             2             3"},
	{"bool headers", [][]Value{{B(true), B(false)}, {I(1), I(2)}}, " True   False\n     1      2"},
	{"one-equal mangling", [][]Value{{I(1), F(1.0), B(true)}, {I(1), I(2), I(3)}}, " 1  1.0.1  True.2\n 1      2       3"},
	{"unnamed", [][]Value{{E, S("x"), E}, {I(1), I(2), I(3)}}, " Unnamed: 0  x  Unnamed: 2\n          1  2           3"},
	{"bool with blank", [][]Value{{S("b")}, {B(true)}, {E}, {B(false)}}, "  b\n1.0\nNaN\n0.0"},
	{"memo bool first", [][]Value{{S("m")}, {S("s")}, {B(false)}, {I(0)}, {I(1)}, {B(true)}}, "    m\n    s\nFalse\nFalse\n    1\n    1"},
	{"memo int first", [][]Value{{S("m")}, {S("s")}, {I(1)}, {F(1.0)}, {B(true)}}, "m\ns\n1\n1\n1"},
	{"na strings", [][]Value{{S("a"), S("b")}, {S("NA"), I(1)}, {S("null"), F(2.5)}, {S("n/a"), E}}, "  a   b\nNaN 1.0\nNaN 2.5\nNaN NaN"},
	{"true strings", [][]Value{{S("t")}, {S("TRUE")}, {S("false")}, {B(true)}}, "    t\n True\nFalse\n True"},
	{"numeric strings", [][]Value{{S("n")}, {S("1")}, {S(" 2 ")}, {S("3.5")}, {S("1e3")}}, "     n\n   1.0\n   2.0\n   3.5\n1000.0"},
	{"datetimes with blank", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {E}, {D(2020, 1, 2, 12, 30, 0, 0)}}, "                  d\n2020-01-01 00:00:00\n                NaT\n2020-01-02 12:30:00"},
	{"dates only", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {D(1999, 12, 31, 0, 0, 0, 0)}}, "         d\n2020-01-01\n1999-12-31"},
	{"millis", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 500000)}, {D(2020, 1, 1, 0, 0, 0, 0)}}, "                      d\n2020-01-01 00:00:00.500\n2020-01-01 00:00:00.000"},
	{"times", [][]Value{{S("t")}, {T(12, 30, 0, 0)}, {T(0, 0, 1, 250000)}}, "              t\n       12:30:00\n00:00:01.250000"},
	{"mixed object", [][]Value{{S("o")}, {S("x")}, {I(1)}, {F(2.5)}, {B(true)}, {D(2021, 5, 6, 0, 0, 0, 0)}, {E}}, "                  o\n                  x\n                  1\n                2.5\n                  1\n2021-05-06 00:00:00\n                NaN"},
	{"small floats", [][]Value{{S("f")}, {F(1e-07)}, {F(1.0)}, {F(2.5)}}, "           f\n1.000000e-07\n1.000000e+00\n2.500000e+00"},
	{"large floats", [][]Value{{S("f")}, {F(1500000000000.0)}, {F(0.25)}}, "           f\n1.500000e+12\n2.500000e-01"},
	{"trim zeros", [][]Value{{S("f")}, {F(0.5)}, {F(0.25)}, {F(100.0)}}, "     f\n  0.50\n  0.25\n100.00"},
	{"negative floats", [][]Value{{S("f")}, {F(-1.5)}, {F(2.25)}, {N}}, "    f\n-1.50\n 2.25\n  NaN"},
	{"escapes", [][]Value{{S("e\tx")}, {S("a\nb")}, {S("c\rd")}}, "e\\tx\na\\nb\nc\\rd"},
	{"blank rows kept", [][]Value{{S("a"), S("b")}, {E, E}, {I(1), I(2)}}, "  a   b\nNaN NaN\n1.0 2.0"},
	{"single column blank", [][]Value{{S("a")}, {E}, {I(1)}}, "  a\nNaN\n1.0"},
	{"unicode width", [][]Value{{S("名前"), S("x")}, {S("日本語"), I(1)}, {S("é"), I(22)}}, " 名前  x\n日本語  1\n  é 22"},
	{"header only", [][]Value{{S("a"), I(1), D(2020, 1, 1, 0, 0, 0, 0)}}, "Empty DataFrame\nColumns: [a, 1, 2020-01-01 00:00:00]\nIndex: []"},
	{"empty header row", [][]Value{{E, E}, {I(1), I(2)}}, " Unnamed: 0  Unnamed: 1\n          1           2"},
	{"big ints", [][]Value{{S("i")}, {I(4611686018427387904)}, {I(-5)}}, "                  i\n4611686018427387904\n                 -5"},
	{"iso strings with datetime", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {S("2020-01-05")}, {S("2020/1/6")}}, "         d\n2020-01-01\n2020-01-05\n2020-01-06"},
	{"three strings first", [][]Value{{S("d")}, {S("2020-01-05")}, {S("2020-01-06")}, {S("2020-01-07")}, {D(2020, 1, 1, 0, 0, 0, 0)}}, "                  d\n         2020-01-05\n         2020-01-06\n         2020-01-07\n2020-01-01 00:00:00"},
	{"datetime first then strings", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {S("2020-01-05")}, {S("2020-01-06")}, {S("2020-01-07")}, {S("20200108")}}, "         d\n2020-01-01\n2020-01-05\n2020-01-06\n2020-01-07\n2020-01-08"},
	{"iso with time", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {S("2020-01-05 10:00")}, {S("2020-01-05T10:00:00.5")}}, "                      d\n2020-01-01 00:00:00.000\n2020-01-05 10:00:00.000\n2020-01-05 10:00:00.500"},
	{"bad iso", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {S("2020-13-01")}}, "                  d\n2020-01-01 00:00:00\n         2020-13-01"},
	{"NaT string", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {S("NaT")}, {E}}, "         d\n2020-01-01\n       NaT\n       NaT"},
	{"year only", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {S("2021")}, {S("2021-03")}}, "         d\n2020-01-01\n2021-01-01\n2021-03-01"},
	{"out of range", [][]Value{{S("d")}, {D(2020, 1, 1, 0, 0, 0, 0)}, {D(2300, 1, 1, 0, 0, 0, 0)}}, "                  d\n2020-01-01 00:00:00\n2300-01-01 00:00:00"},
}
