package codemode

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/sandbox"
	"github.com/evalmd/evalmd/table"
)

// TestInSandbox runs programs as cells of one sandboxed interpreter per
// table, the files bound read-only under their base names, as the code
// path does: each answer equals databench_eval's, and the programs leave no
// names behind.
func TestInSandbox(t *testing.T) {
	if _, err := sandbox.Check(context.Background(), sandbox.Config{}); err != nil {
		shared.Missing(t, "no sandbox here: "+err.Error())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pool, err := sandbox.NewPool(ctx, sandbox.Config{Warm: 1, MaxInFlight: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer pool.Close()

	csv := writeSample(t)
	pq := writeSampleParquet(t)
	prompt := Prompt("What is asked?", sampleColumns)
	for _, tc := range []struct {
		files       []string
		name        string
		completions []string
	}{
		{[]string{csv}, "table.csv", []string{" df.shape[0]", " df['score']", " df[['name', 'score']]", " print('noise') or len(df)",
			" df['missing']", " df['score'].mean(", " np.arange(60)", " df['note'].iloc[0]"}},
		{[]string{pq, pq + table.HandoverSuffix}, "all.parquet", []string{" df.dtypes", " df['seen'].max()", " df['day']", " df['tags']", " df['count'].sum()"}},
	} {
		var cases []refCase
		for _, c := range tc.completions {
			cases = append(cases, refCase{prompt, c})
		}
		want := referenceAnswers(t, tc.files[0], cases)
		sess, err := pool.Open(ctx, tc.files)
		if err != nil {
			t.Fatal(err)
		}
		for i, c := range cases {
			code, err := Extract(Baseline, c.Prompt, c.Completion)
			if err != nil {
				t.Fatal(err)
			}
			r, err := sess.Exec(ctx, Program(code, TableLoader(tc.name)))
			if err != nil {
				t.Fatal(err)
			}
			o, err := ParseOutput(r.Output)
			if err != nil {
				t.Fatalf("%s %q: %v\noutput: %q", tc.name, c.Completion, err, r.Output)
			}
			if o.Answer != want[i] {
				t.Errorf("%s %q: sandbox answer %q, databench_eval %q", tc.name, c.Completion, o.Answer, want[i])
			}
		}
		r, err := sess.Exec(ctx, "print(sorted(n for n in globals() if 'evalmd' in n or n in ('df', 'ans', 'answer', 'load')))")
		if err != nil || strings.TrimSpace(r.Output) != "[]" {
			t.Errorf("%s: names left in the interpreter: %q, %v", tc.name, r.Output, err)
		}
		sess.Close() // MaxInFlight 1: the next table's session waits for it
	}
}
