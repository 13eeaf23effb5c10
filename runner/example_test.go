package runner_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/builtin"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/runner"
)

// A run with a journal: the caller builds one Job per question, records
// outcomes as they arrive, and deletes the journal once its output file is
// written. Rerunning after a crash with the same journal asks only the
// questions not yet answered.
func ExampleRun() {
	m, err := providers.New("mock", model.Options{Provider: []any{builtin.Options{MockReply: "42"}}})
	if err != nil {
		fmt.Println(err)
		return
	}
	var jobs []runner.Job
	for i, q := range []string{"What is 6*7?", "And 40+2?"} {
		name := fmt.Sprintf("Q%d", i+1)
		jobs = append(jobs, runner.Job{
			Key: fmt.Sprintf("sheet.md#%d:%s", i, name),
			Task: model.Task{
				Request:  model.Request{Messages: []model.Message{{Role: "user", Content: q}}},
				Question: model.QuestionRef{Sheet: "sheet.md", Name: name},
			},
		})
	}
	dir, err := os.MkdirTemp("", "example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	journal := filepath.Join(dir, ".output-sheet-mock.json.journal")

	answers := map[string]string{}
	st, err := runner.Run(context.Background(), m, jobs, runner.Options{Concurrency: 4, Journal: journal},
		func(o runner.Outcome) {
			if o.Err != nil {
				answers[o.Key] = "error: " + o.Err.Error()
				return
			}
			answers[o.Key] = o.Response.Text
		})
	if err != nil {
		fmt.Println(err)
		return
	}
	keys := make([]string, 0, len(answers))
	for k := range answers {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Printf("%s: %s\n", k, answers[k])
	}
	fmt.Printf("answered %d of %d with %d calls\n", st.Answered, st.Jobs, st.Calls)

	// The same run again: everything comes from the journal.
	st, _ = runner.Run(context.Background(), m, jobs, runner.Options{Journal: journal}, nil)
	fmt.Printf("resumed: %d from the journal, %d calls\n", st.FromJournal, st.Calls)
	// Output:
	// sheet.md#0:Q1: 42
	// sheet.md#1:Q2: 42
	// answered 2 of 2 with 2 calls
	// resumed: 2 from the journal, 0 calls
}
