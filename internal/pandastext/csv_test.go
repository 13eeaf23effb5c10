package pandastext

import (
	"bytes"
	"testing"
)

// Fields with a comma, a double quote or a newline are quoted (a carriage
// return is not, as Python's csv writer with "\n" line ends does), a row
// of one empty field is "", and missing values are empty.
func TestWriteCSVQuoting(t *testing.T) {
	for _, tc := range []struct {
		rows [][]Value
		want string
	}{
		{[][]Value{{Str("name"), Str("note")}, {Str("a,b"), Str(`say "hi"`)}, {Str("x\ny"), Float(1.5)}, {Str("c\rd"), {}}},
			"name,note\n\"a,b\",\"say \"\"hi\"\"\"\n\"x\ny\",1.5\nc\rd,\n"},
		{[][]Value{{Str("only")}, {Float(2)}, {}, {Float(0.1)}}, "only\n2.0\n\"\"\n0.1\n"},
	} {
		fr, ok := buildFrame(tc.rows)
		if !ok {
			t.Fatal("no frame")
		}
		var b bytes.Buffer
		writeCSV(&b, fr)
		if b.String() != tc.want {
			t.Errorf("got %q, want %q", b.String(), tc.want)
		}
	}
}
