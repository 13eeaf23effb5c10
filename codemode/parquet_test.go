package codemode

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/evalmd/evalmd/table"
)

// pqRow has the parquet types DataBench's tables use, each with a
// missing value where the type allows one.
type pqRow struct {
	ID     int64    `parquet:"id"`
	Name   string   `parquet:"name"`
	Score  *float64 `parquet:"score,optional"`
	Count  *int64   `parquet:"count,optional"`
	Passed bool     `parquet:"passed"`
	Maybe  *bool    `parquet:"maybe,optional"`
	Joined *int64   `parquet:"joined,optional,timestamp(microsecond:local)"`
	Seen   int64    `parquet:"seen,timestamp(nanosecond:utc)"`
	Day    *int32   `parquet:"day,optional,date"`
	Tags   []string `parquet:"tags,list"`
	Note   string   `parquet:"note"`
}

func ptr[T any](v T) *T { return &v }

// writeSampleParquet writes a parquet table built in Go, and its hand-over
// (evalmd_table.py and all.parquet.evalmd.json) beside it, as the code
// path hands a parquet table to the sandbox.
func writeSampleParquet(t *testing.T) string {
	t.Helper()
	day := time.Date(2021, 1, 5, 13, 30, 0, 0, time.UTC)
	rows := []pqRow{
		{1, "Ann", ptr(3.5), ptr[int64](4), true, ptr(true), ptr(day.UnixMicro()), day.UnixNano(), ptr[int32](18632), []string{"a", "b"}, "first line\nsecond"},
		{2, "Bob", nil, nil, false, nil, nil, day.Add(-48 * time.Hour).UnixNano(), nil, []string{}, "plain"},
		{3, "Cé, Lia", ptr(7.25), ptr[int64](-1), true, ptr(false), ptr(int64(0)), 0, ptr[int32](-1), []string{"c"}, ""},
		{4, "Dan", ptr(10.0), ptr[int64](9000000000), true, ptr(true), ptr(day.AddDate(1, 0, 0).UnixMicro()), day.AddDate(0, 6, 0).UnixNano(), ptr[int32](0), []string{"a", "c\nd"}, "multi\nline"},
	}
	dir := t.TempDir()
	path := filepath.Join(dir, "all.parquet")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w := parquet.NewGenericWriter[pqRow](f)
	if _, err := w.Write(rows); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	hs, err := table.WriteHandoverDir(context.Background(), dir, []string{path}, table.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if len(hs) != 1 || hs[0].File == "" {
		t.Fatalf("hand-over: %+v", hs)
	}
	return path
}

// TestParquetMatchesReference: on a parquet table built in Go, every
// conversion rule meets pyarrow's types (nullable ints as floats, zoned
// timestamps, dates as datetime.date, lists as arrays, nullable bools as
// objects), and the answers equal databench_eval's with pd.read_parquet.
func TestParquetMatchesReference(t *testing.T) {
	python(t)
	path := writeSampleParquet(t)
	prompt := Prompt("What is asked?", []string{"id", "name", "score", "count", "passed", "maybe", "joined", "seen", "day", "tags", "note"})
	completions := []string{
		" df.dtypes",
		" df.shape",
		" df['count']",
		" df['count'].sum()",
		" df['score'].mean()",
		" df['maybe']",
		" df['maybe'].iloc[1]",
		" df['joined'].max()",
		" df['joined']",
		" df['seen']",
		" df['seen'].max()",
		" df['seen'].dt.tz_convert('America/New_York').iloc[0]",
		" df['seen'].dt.year.tolist()",
		" df['day']",
		" df['day'].iloc[0]",
		" df['day'].iloc[0] > 3",
		" df['tags']",
		" df['tags'].iloc[0]",
		" df['tags'].iloc[3]",
		" df['tags'].apply(len).sum()",
		" df['note'].iloc[0]",
		" df['note']",
		" df[df['passed']][['name', 'id']]",
		" df.loc[df['score'].idxmax(), 'name']",
		" df['passed'].all()",
		" df['missing']",
	}
	var cases []refCase
	for _, c := range completions {
		cases = append(cases, refCase{prompt, c})
	}
	want := referenceAnswers(t, path, cases)
	got := outcomes(t, Baseline, path, cases)
	for i, c := range completions {
		if got[i].Answer != want[i] {
			t.Errorf("%q: answer %q, databench_eval %q", c, got[i].Answer, want[i])
		}
		t.Logf("%-56q %.110s", c, got[i].Answer)
	}
	// The table must have reached pandas with pyarrow's types.
	if !strings.Contains(got[0].Answer, "datetime64[ns, UTC]") || !strings.Contains(got[13].Answer, "datetime.date(2021, 1, 5)") {
		t.Errorf("dtypes %q, dates %q: not pyarrow's types", got[0].Answer, got[13].Answer)
	}
}
