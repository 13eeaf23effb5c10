package agg

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// FuzzLoadAgreesWithParse: agg reads a file through result.Parse, the one
// decoder of output files (what grade, report, xlsxout and the Inspect
// logs read), so Load counts a file exactly when result.Parse reads it
// (dry runs aside), with as many question rows, hands Each the same file,
// and names a refused one on one line with Parse's reason. Neither
// panics. (It was a test that agg's own scanner agreed with result.Parse;
// the fuzzer found a raw control character one counted and the other
// refused, and agg read "run_id": 12 where result refused it.)
func FuzzLoadAgreesWithParse(f *testing.F) {
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
	f.Add([]byte(`{"sheet":{"name":"s","run_id":12},"questions":[]}`))
	f.Add([]byte(`{"sheet":{"name":"s","created":5},"questions":[]}`))
	f.Add([]byte(`{"sheet":{"name":"s"}}`))
	f.Add([]byte(`{"questions":[]}`))
	f.Add([]byte(`{"sheet":{"name":"s"},"questions":null}`))
	dir := f.TempDir()
	path := filepath.Join(dir, "output-fuzz.json")
	f.Fuzz(func(t *testing.T, data []byte) {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		want, perr := result.Parse(data)
		var warn bytes.Buffer
		var seen *result.File
		d, err := Load(context.Background(), dir, &warn, LoadOptions{IncludeDryRuns: true,
			Each: func(_ string, f *result.File, _ bool) { seen = f }})
		if err != nil {
			t.Fatal(err)
		}
		switch {
		case perr == nil && d.Files != 1:
			t.Fatalf("result.Parse reads it (%d questions), agg does not: %s", len(want.Questions), warn.String())
		case perr != nil && d.Files != 0:
			t.Fatalf("agg reads it (%d questions), result.Parse does not: %v", d.Questions(), perr)
		case perr == nil && (d.Questions() != len(want.Questions) || seen == nil || len(seen.Questions) != len(want.Questions)):
			t.Fatalf("result.Parse reads %d questions, agg %d", len(want.Questions), d.Questions())
		case perr != nil && (warn.String() != "agg: skipping "+path+perr.Error()+"\n" || strings.Count(warn.String(), "\n") != 1):
			t.Fatalf("refused as %q, result.Parse says %v", warn.String(), perr)
		}
	})
}
