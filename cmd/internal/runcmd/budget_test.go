package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// budgetSheet writes a sheet of n questions, each asking for its number
// plus one.
func budgetSheet(t *testing.T, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Budget\n\n#### meta\n- grader: exact\n\n")
	for i := range n {
		fmt.Fprintf(&b, "## Q%03d\n#### answer\n%d<EVAL-ENDCHAR>\n#### question\nWhat is %d plus one?<EVAL-ENDCHAR>\n\n", i, i+1, i)
	}
	path := filepath.Join(t.TempDir(), "input-budget.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// bill is what a fake server's replies cost at $10 per million tokens in
// and out: the usage it reported, summed.
type bill struct {
	mu     sync.Mutex
	tokens int
}

func (b *bill) dollars() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return float64(b.tokens) * 10 / 1e6
}

// TestMaxCost: 80 questions at -c 16 under --max-cost $0.03 (a worst case
// of about $0.0011 a request, replies of 1 to 100 tokens): the server's
// bill never passes the cap, the run exits with status 5 and says what it
// spent and left unasked, its output holds every answer and notes the
// questions not asked; the same command then asks only those, resuming
// the journal or, with the journal gone, reusing the output's answers.
func TestMaxCost(t *testing.T) {
	for _, tc := range []struct {
		name        string
		dropJournal bool
	}{{"resumed", false}, {"reused", true}} {
		t.Run(tc.name, func(t *testing.T) { testMaxCost(t, tc.dropJournal) })
	}
}

func testMaxCost(t *testing.T, dropJournal bool) {
	const n, cap = 80, 0.03
	var b bill
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2 * n, Reply: func(c fakeserver.Call) fakeserver.Reply {
		q := strings.TrimSuffix(strings.TrimPrefix(c.LastUserText(), "What is "), " plus one?")
		k, _ := strconv.Atoi(q)
		out := 1 + (k*37)%100 // within max_tokens 100
		b.mu.Lock()
		b.tokens += 5 + out
		b.mu.Unlock()
		return fakeserver.Reply{Text: strconv.Itoa(k + 1), InputTokens: 5, OutputTokens: out}
	}})
	sheet, out := budgetSheet(t, n), t.TempDir()
	args := []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out, "-c", "16",
		"--price", "10,10", "--max-tokens", "100", "--max-cost", strconv.FormatFloat(cap, 'f', -1, 64)}
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), &stdout, &stderr, args)
	if code := cli.ExitCode(err); code != 5 {
		t.Fatalf("exit status %d (%v), want 5\n%s", code, err, stderr.String())
	}
	first := len(srv.Calls())
	if spent := b.dollars(); spent > cap {
		t.Errorf("the server billed $%.4f, past the cap of $%.2f", spent, cap)
	}
	if !strings.Contains(err.Error(), "spent") || !strings.Contains(err.Error(), fmt.Sprintf("%d questions left unasked", n-first)) {
		t.Errorf("error %q does not say what was spent and left unasked", err)
	}
	f := readOne(t, out)
	answered, noted, costs := 0, 0, 0.0
	for _, q := range f.Questions {
		switch {
		case q.Completion != nil:
			answered++
			costs += *q.Cost
		case strings.HasPrefix(q.Note, "not asked: the run's --max-cost was reached") && q.Grade == nil && q.Error == nil:
			noted++
		default:
			t.Errorf("%s: neither answered nor noted as not asked: %+v", q.Name, q)
		}
	}
	if answered != first || noted != n-first || costs > cap {
		t.Errorf("output: %d answered, %d not asked, $%.4f recorded; the server had %d calls", answered, noted, costs, first)
	}
	t.Logf("first run: %d of %d asked, $%.4f billed of $%.2f", first, n, b.dollars(), cap)

	stderr.Reset()
	if dropJournal {
		js, _ := filepath.Glob(filepath.Join(out, ".evalmd-run-*"))
		for _, j := range js {
			os.Remove(j)
		}
	}
	if err := run(context.Background(), &stdout, &stderr, args); err != nil {
		t.Fatalf("rerun: %v\n%s", err, stderr.String())
	}
	if want := fmt.Sprintf("%d reused", first); dropJournal && !strings.Contains(stderr.String(), want) {
		t.Errorf("the rerun without the journal does not say %q:\n%s", want, stderr.String())
	}
	if again := len(srv.Calls()) - first; again != n-first {
		t.Errorf("the rerun asked %d questions, want the %d left", again, n-first)
	}
	f = readOne(t, out)
	for _, q := range f.Questions {
		if q.Completion == nil || q.Grade == nil || !*q.Grade {
			t.Errorf("after the rerun, %s: completion %v grade %v note %q", q.Name, q.Completion, q.Grade, q.Note)
		}
	}
}

// readOne reads the one output file in dir.
func readOne(t *testing.T, dir string) *result.File {
	t.Helper()
	paths, _ := filepath.Glob(filepath.Join(dir, "output-*.json"))
	if len(paths) != 1 {
		t.Fatalf("outputs %v, want one", paths)
	}
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestMaxCostRefusals: a cap on a model with no price, on a question
// with no max_tokens, or below zero is refused before anything is asked,
// in one line.
func TestMaxCostRefusals(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 1})
	sheet := budgetSheet(t, 3)
	base := []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", t.TempDir()}
	for _, tc := range []struct {
		name string
		args []string
		want string
		code int
	}{
		{"no price", []string{"--max-cost", "1", "--max-tokens", "10"}, "openai-api/local/tiny has no price", 1},
		{"no max_tokens", []string{"--max-cost", "1", "--price", "1,1"}, "input-budget.md:6: question \"Q000\" sends no max_tokens", 1},
		{"negative", []string{"--max-cost", "-1"}, "--max-cost -1: give a number", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			err := run(context.Background(), &stdout, &stderr, append(base, tc.args...))
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || cli.ExitCode(err) != tc.code {
				t.Errorf("err = %v (status %d), want one line with %q, status %d", err, cli.ExitCode(err), tc.want, tc.code)
			}
		})
	}
	if len(srv.Calls()) != 0 {
		t.Errorf("%d calls made", len(srv.Calls()))
	}
}

// TestMaxCostBatch: a batch is submitted only when its worst case at
// batch prices fits the cap (a submitted batch cannot be stopped
// halfway); one that does not fit is refused before any upload.
func TestMaxCostBatch(t *testing.T) {
	for _, tc := range []struct {
		cap     string
		batches int
		want    string
	}{
		{"0.0005", 0, "the batch's 3 requests could cost up to $0.00"},
		{"1", 1, ""},
	} {
		srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Polls: 1, InputTokens: 100, OutputTokens: 10,
			Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "7.50"} }})
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), &stdout, &stderr, batchArgs("openai/gpt-4o", srv.URL, t.TempDir(), "--max-tokens", "100", "--max-cost", tc.cap))
		switch {
		case tc.want == "" && err != nil, tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("--max-cost %s: %v, want %q", tc.cap, err, tc.want)
		case srv.Batches() != tc.batches:
			t.Errorf("--max-cost %s: %d batches, want %d", tc.cap, srv.Batches(), tc.batches)
		}
	}
}
