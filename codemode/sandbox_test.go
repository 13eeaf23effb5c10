package codemode

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/shared"
	"github.com/evalmd/evalmd/sandbox"
)

// TestInSandbox runs programs as cells of one sandboxed interpreter, the
// table bound read-only under its base name, as the code path does: each
// answer equals databench_eval's, and the programs leave no names behind.
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
	table := writeSample(t)
	sess, err := pool.Open(ctx, []string{table})
	if err != nil {
		t.Fatal(err)
	}
	defer sess.Close()

	prompt := Prompt("What is asked?", sampleColumns)
	var cases []refCase
	for _, c := range baselineCases {
		switch c.name {
		case "int", "series with NaN", "dataframe first column", "prints ignored", "KeyError", "SyntaxError", "ndarray printed on lines", "string first line":
			cases = append(cases, refCase{prompt, c.completion})
		}
	}
	want := referenceAnswers(t, table, cases)
	for i, c := range cases {
		code, err := Extract(Baseline, c.Prompt, c.Completion)
		if err != nil {
			t.Fatal(err)
		}
		r, err := sess.Exec(ctx, Program(code, CSVLoader("table.csv")))
		if err != nil {
			t.Fatal(err)
		}
		o, err := ParseOutput(r.Output)
		if err != nil {
			t.Fatalf("%q: %v\noutput: %q", c.Completion, err, r.Output)
		}
		if o.Answer != want[i] {
			t.Errorf("%q: sandbox answer %q, databench_eval %q", c.Completion, o.Answer, want[i])
		}
	}
	r, err := sess.Exec(ctx, "print(sorted(n for n in globals() if 'evalmd' in n or n in ('df', 'ans', 'answer')))")
	if err != nil || strings.TrimSpace(r.Output) != "[]" {
		t.Errorf("names left in the interpreter: %q, %v", r.Output, err)
	}
}
