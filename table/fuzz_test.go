package table

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/parquet-go/parquet-go"
)

// renderAll renders a table read without error in every format and as a
// hand-over: none may fail except on an unsupported type.
func renderAll(t *testing.T, tb *Table) {
	for _, f := range []Format{Pandas, CSV, Markdown} {
		if err := tb.Head(2).Render(io.Discard, f); err != nil && (!errors.Is(err, ErrUnsupported) || !strings.Contains(err.Error(), tb.Name)) {
			t.Fatalf("%s: %v", f, err)
		}
	}
	if !tb.Text {
		if err := WriteHandover(io.Discard, tb); err != nil && !errors.Is(err, ErrUnsupported) {
			t.Fatalf("hand-over: %v", err)
		}
	}
}

func FuzzReadParquet(f *testing.F) {
	f.Add(writeParquet(f, sampleRows(), parquet.KeyValueMetadata("pandas", pandasMetaJSON)))
	f.Add(writeParquet(f, sampleRows()[:1], parquet.Compression(&parquet.Snappy)))
	f.Add(claimingList(f, threeInts(f)))
	f.Add(claimingPage(f, threeInts(f)))
	f.Fuzz(func(t *testing.T, data []byte) {
		tb, err := readParquet(context.Background(), bytes.NewReader(data), int64(len(data)), "f.parquet", Options{MaxValues: 1e5})
		if err != nil {
			if !strings.Contains(err.Error(), "f.parquet") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		renderAll(t, tb)
	})
}

func FuzzReadCSV(f *testing.F) {
	for _, c := range csvCases {
		f.Add(c.text, false)
	}
	f.Add("a\tb\n1\t2\n", true)
	f.Fuzz(func(t *testing.T, text string, tsv bool) {
		sep := ','
		if tsv {
			sep = '\t'
		}
		tb, err := readCSV(context.Background(), strings.NewReader(text), "f.csv", sep, Options{MaxValues: 1e5})
		if err != nil {
			return
		}
		renderAll(t, tb)
	})
}

func FuzzReadJSONLines(f *testing.F) {
	f.Add("{\"a\": 1, \"b\": \"x\"}\n{\"a\": 2.5, \"c\": [1]}\n")
	f.Add("{\"t\": true}\n\n{\"t\": null}\n")
	f.Fuzz(func(t *testing.T, text string) {
		tb, err := readJSONLines(context.Background(), strings.NewReader(text), "f.jsonl", Options{MaxValues: 1e5})
		if err != nil {
			return
		}
		renderAll(t, tb)
	})
}
