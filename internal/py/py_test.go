package py

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// reference is testdata/python.json, written by testdata/gen.py with
// Debian 12's Python.
type reference struct {
	Python     string    `json:"python"`
	Unicode    string    `json:"unicode"`
	Unassigned [][2]rune `json:"unassigned"`
	Space      [][2]rune `json:"space"`
	Digit      [][2]rune `json:"digit"`
	Lower      []struct {
		C rune   `json:"c"`
		L string `json:"l"`
	} `json:"lower"`
	LowerStrings [][2]string `json:"lower_strings"`
	Strip        [][2]string `json:"strip"`
	Repr         []floatCase `json:"repr"`
	G            []floatCase `json:"g"`
	FixedExp     []struct {
		Bits  uint64 `json:"b"`
		Prec  int    `json:"p"`
		Space bool   `json:"s"`
		F, E  string
	} `json:"fixed_exp"`
	Float [][2]*string `json:"float"`
}

type floatCase struct {
	Bits uint64
	Want string
}

func (c *floatCase) UnmarshalJSON(b []byte) error {
	var a [2]json.RawMessage
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	if err := json.Unmarshal(a[0], &c.Bits); err != nil {
		return err
	}
	return json.Unmarshal(a[1], &c.Want)
}

func load(t *testing.T) reference {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "python.json"))
	if err != nil {
		t.Fatal(err)
	}
	var r reference
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	return r
}

func in(rs [][2]rune, r rune) bool {
	for _, x := range rs {
		if r >= x[0] && r <= x[1] {
			return true
		}
	}
	return false
}

func TestCharactersAgainstPython(t *testing.T) {
	ref := load(t)
	lower := map[rune]string{}
	for _, l := range ref.Lower {
		lower[l.C] = l.L
	}
	for r := rune(0); r <= utf8.MaxRune; r++ {
		if r >= 0xd800 && r <= 0xdfff || in(ref.Unassigned, r) {
			continue // not a character in Go / not in Python's Unicode version
		}
		if got, want := IsSpace(r), in(ref.Space, r); got != want {
			t.Errorf("IsSpace(U+%04X) = %v, Python %s says %v", r, got, ref.Python, want)
		}
		if got, want := IsDigit(r), in(ref.Digit, r); got != want {
			t.Errorf("IsDigit(U+%04X) = %v, Python says %v", r, got, want)
		}
		want, ok := lower[r]
		if !ok {
			want = string(r)
		}
		if got := Lower(string(r)); got != want {
			t.Errorf("Lower(U+%04X) = %q, Python %q", r, got, want)
		}
	}
}

func TestStringsAgainstPython(t *testing.T) {
	ref := load(t)
	for _, c := range ref.LowerStrings {
		if got := Lower(c[0]); got != c[1] {
			t.Errorf("Lower(%q) = %q, Python %q", c[0], got, c[1])
		}
	}
	for _, c := range ref.Strip {
		if got := Strip(c[0]); got != c[1] {
			t.Errorf("Strip(%q) = %q, Python %q", c[0], got, c[1])
		}
	}
	for _, c := range ref.Float {
		f, err := ParseFloat(*c[0])
		switch {
		case c[1] == nil && err == nil:
			t.Errorf("ParseFloat(%q) = %v, Python raises ValueError", *c[0], f)
		case c[1] != nil && err != nil:
			t.Errorf("ParseFloat(%q): %v, Python gives %s", *c[0], err, *c[1])
		case c[1] != nil && Repr(f) != *c[1]:
			t.Errorf("ParseFloat(%q) = %s, Python %s", *c[0], Repr(f), *c[1])
		}
	}
}

func TestFloatsAgainstPython(t *testing.T) {
	ref := load(t)
	for _, c := range ref.Repr {
		if got := Repr(math.Float64frombits(c.Bits)); got != c.Want {
			t.Errorf("Repr(%v) = %q, Python %q", math.Float64frombits(c.Bits), got, c.Want)
		}
	}
	for _, c := range ref.G {
		if got := G(math.Float64frombits(c.Bits)); got != c.Want {
			t.Errorf("G(%v) = %q, Python %q", math.Float64frombits(c.Bits), got, c.Want)
		}
	}
	for _, c := range ref.FixedExp {
		f := math.Float64frombits(c.Bits)
		if got := Fixed(f, c.Prec, c.Space); got != c.F {
			t.Errorf("Fixed(%v, %d, %v) = %q, Python %q", f, c.Prec, c.Space, got, c.F)
		}
		if got := Exp(f, c.Prec, c.Space); got != c.E {
			t.Errorf("Exp(%v, %d, %v) = %q, Python %q", f, c.Prec, c.Space, got, c.E)
		}
	}
}

func TestASCIIDigits(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"٢٠٢٠", "2020"}, {"१२", "12"}, {"abc", "abc"}, {"x𝟗y", "x9y"}, {"²", "²"},
	} {
		if got := ASCIIDigits(c.in); got != c.want {
			t.Errorf("ASCIIDigits(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	if !strings.Contains(Lower("ΑΣ"), "ς") {
		t.Error("final sigma")
	}
}
