package agg

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/evalmd/evalmd/internal/shared"
	"github.com/evalmd/evalmd/result"
)

// FuzzDecodeAgreesWithParse: agg's one-pass scanner and result.Parse (what
// report, grade and agg's own reports read) agree on what is an output
// file (JSON's syntax, a "sheet" object and a "questions" array) and on
// its question count, so agg never counts a file its reports then cannot
// read, nor skips one they show. Neither panics. Left out: a member whose
// value is of another type than result's field, which agg reads leniently.
func FuzzDecodeAgreesWithParse(f *testing.F) {
	paths, _ := filepath.Glob("testdata/bench/output-*-000[1-4].json")
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	for _, s := range shared.Seeds(f, 1<<14, "corpora", "lime", "results", "output-*.json") {
		f.Add(s)
	}
	f.Add([]byte(`{"sheet":{"name":"s"},"questions":[{"name":"q","grade":true,"completion":"a\tb"}]}`))
	f.Add([]byte(`{"sheet":{"name":"s"}}`))
	f.Add([]byte(`{"questions":[]}`))
	f.Add([]byte(`{"sheet":{"name":"s"},"questions":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		want, perr := result.Parse(data)
		got, aerr := decodeOutput(data, map[string]uint8{"benchmark": 0, "level": 1})
		var typeErr *json.UnmarshalTypeError
		if aerr == nil && errors.As(perr, &typeErr) {
			// A member of another type than result's field ("run_id": 12,
			// "error": {...}): agg reads such values on purpose
			// (TestDecodeValues), and never decodes the members it does
			// not use. One decoder for both is issue 24 item 4.
			return
		}
		switch {
		case perr == nil && aerr != nil:
			t.Fatalf("result.Parse reads it (%d questions), agg does not: %v", len(want.Questions), aerr)
		case perr != nil && aerr == nil:
			t.Fatalf("agg reads it (%d questions), result.Parse does not: %v", len(got.Questions), perr)
		case perr == nil && len(want.Questions) != len(got.Questions):
			t.Fatalf("result.Parse reads %d questions, agg %d", len(want.Questions), len(got.Questions))
		}
	})
}
