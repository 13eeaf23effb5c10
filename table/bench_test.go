package table

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"testing"
)

// benchRow is a DataBench-like row: ids, measures, a category, a flag, a
// time, a nullable number and a short list.
type benchRow struct {
	ID    int64    `parquet:"id"`
	Score float64  `parquet:"score"`
	Name  string   `parquet:"name"`
	Flag  bool     `parquet:"flag"`
	When  int64    `parquet:"when,timestamp(microsecond:utc)"`
	Opt   *int64   `parquet:"opt,optional"`
	Tags  []string `parquet:"tags,list"`
}

func benchFile(b *testing.B, rows int) []byte {
	rs := make([]benchRow, rows)
	for i := range rs {
		rs[i] = benchRow{ID: int64(i), Score: float64(i) * 0.37, Name: "name " + strconv.Itoa(i%500),
			Flag: i%3 == 0, When: 1.6e15 + int64(i)*1e6, Tags: []string{"a", strconv.Itoa(i % 7)}}
		if i%5 != 0 {
			v := int64(i * 2)
			rs[i].Opt = &v
		}
	}
	return writeParquet(b, rs)
}

// BenchmarkReadParquet reads tables of growing size (7 columns, one a
// list); MB/s is of the parquet file.
func BenchmarkReadParquet(b *testing.B) {
	for _, rows := range []int{1_000, 10_000, 100_000, 1_000_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			data := benchFile(b, rows)
			b.SetBytes(int64(len(data)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readParquet(b.Context(), bytes.NewReader(data), int64(len(data)), "b.parquet", Options{}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}

// BenchmarkHandover writes the hand-over of a read table.
func BenchmarkHandover(b *testing.B) {
	for _, rows := range []int{10_000, 100_000} {
		b.Run(fmt.Sprintf("rows=%d", rows), func(b *testing.B) {
			data := benchFile(b, rows)
			t, err := readParquet(b.Context(), bytes.NewReader(data), int64(len(data)), "b.parquet", Options{})
			if err != nil {
				b.Fatal(err)
			}
			for b.Loop() {
				if err := WriteHandover(io.Discard, t); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(rows)*float64(b.N)/b.Elapsed().Seconds(), "rows/s")
		})
	}
}
