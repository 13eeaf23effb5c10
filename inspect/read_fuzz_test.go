package inspect

import (
	"bytes"
	"os"
	"strings"
	"testing"
	"time"
)

// FuzzReadLog: an Inspect log, JSON or .eval, never panics the reader; a
// refusal is one line; a log accepted, written back as JSON or as .eval,
// reads again and writes the same bytes.
func FuzzReadLog(f *testing.F) {
	js, err := os.ReadFile("testdata/rules-qa-1-gpt-4.log.json")
	if err != nil {
		f.Fatal(err)
	}
	f.Add(js)
	lg, err := parseLog(js)
	if err != nil {
		f.Fatal(err)
	}
	var eval bytes.Buffer
	if err := writeEval(&eval, lg, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)); err != nil {
		f.Fatal(err)
	}
	f.Add(eval.Bytes())
	f.Add([]byte(`{"version": 2, "eval": {"task": "t", "created": "2024-05-01T12:00:00+00:00"}, "samples": [{"id": 1, "epoch": 1, "input": "q", "target": "a"}]}`))
	f.Add([]byte(`{"version": 99, "eval": {"task": "t"}}`))
	f.Add([]byte(`{"eval": {}}`))
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		lg, err := parseLog(data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("refusal is not one line: %q", err)
			}
			return
		}
		first, err := marshalIndent(lg)
		if err != nil {
			t.Fatalf("a log read cannot be written: %v", err)
		}
		again, err := parseLog(first)
		if err != nil {
			t.Fatalf("written back as JSON, it does not read: %v\n%s", err, first)
		}
		second, err := marshalIndent(again)
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("written twice as JSON, it differs: %v\n%s\n%s", err, first, second)
		}
		var eval bytes.Buffer
		if err := writeEval(&eval, again, time.Date(2024, 5, 1, 12, 0, 0, 0, time.UTC)); err != nil {
			t.Fatalf("a log read cannot be written as .eval: %v", err)
		}
		fromEval, err := parseLog(eval.Bytes())
		if err != nil {
			t.Fatalf("written back as .eval, it does not read: %v", err)
		}
		if third, err := marshalIndent(fromEval); err != nil || !bytes.Equal(first, third) {
			t.Fatalf("written as .eval, it reads differently: %v\n%s\n%s", err, first, third)
		}
	})
}
