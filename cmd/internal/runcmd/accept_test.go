package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
)

const acceptRunSheet = `# Accept
## Q1
#### question
How many guesses?
#### answer
B) 6

## Q2
#### question
Capital of France?
#### answer
Paris
`

// Accepting an answer in the sheet (sheet.AddAccepted) changes no request:
// the rerun asks nothing, reuses the answer and grades it right by the
// accepted answer, which the output records. A rerun after that only
// repeats it: nothing asked, nothing written.
func TestRerunAfterAccepting(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 4, Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{Text: "six guesses"}
	}})
	dir := t.TempDir()
	path := filepath.Join(dir, "input-accept.md")
	out := filepath.Join(dir, "results")
	if err := os.WriteFile(path, []byte(acceptRunSheet), 0o644); err != nil {
		t.Fatal(err)
	}
	args := []string{"-f", path, "-m", "openai-api/x/m", "--base-url", srv.URL, "-o", out}
	runOnce := func() string {
		t.Helper()
		var log bytes.Buffer
		if err := run(context.Background(), &log, &log, args); err != nil {
			t.Fatalf("run: %v\n%s", err, log.String())
		}
		return log.String()
	}
	runOnce()
	if srv.Count() != 2 {
		t.Fatalf("the first run sent %d requests, want 2", srv.Count())
	}
	if err := sheet.AddAccepted(path, "Q1", 1, "six guesses"); err != nil {
		t.Fatal(err)
	}
	if log := runOnce(); srv.Count() != 2 || !strings.Contains(log, "1/2 correct, 0 asked, 2 reused") {
		t.Errorf("the rerun sent %d requests in all, want 2 (none):\n%s", srv.Count(), log)
	}
	outs, _ := filepath.Glob(filepath.Join(out, "output-accept-*.json"))
	if len(outs) != 1 {
		t.Fatalf("outputs %v, want the rerun's alone", outs)
	}
	f, err := result.Read(outs[0])
	if err != nil {
		t.Fatal(err)
	}
	q := f.Questions[0]
	if q.ReusedFrom == "" || q.Grade == nil || !*q.Grade || !reflect.DeepEqual(q.Accepted, []string{"six guesses"}) ||
		!strings.HasPrefix(q.GradeDetail, `accepted answer 1 "six guesses": `) || *q.GroundTruth != "B) 6\n\n" {
		t.Errorf("Q1: reused from %q, grade %v (%s), accepted %q, truth %q", q.ReusedFrom, q.Grade, q.GradeDetail, q.Accepted, *q.GroundTruth)
	}
	if f.Questions[1].Accepted != nil {
		t.Errorf("Q2: accepted %q", f.Questions[1].Accepted)
	}

	// An accepted answer that changes no grade still makes a new output:
	// the old one lacks it, and a regrade would miss it.
	if err := sheet.AddAccepted(path, "Q2", 1, "Paris, France"); err != nil {
		t.Fatal(err)
	}
	runOnce()
	outs, _ = filepath.Glob(filepath.Join(out, "output-accept-*.json"))
	if len(outs) != 1 {
		t.Fatalf("outputs %v, want one", outs)
	}
	if f, err = result.Read(outs[0]); err != nil || !reflect.DeepEqual(f.Questions[1].Accepted, []string{"Paris, France"}) {
		t.Fatalf("the output does not record Q2's accepted answer (%v)", err)
	}

	before, _ := os.ReadFile(outs[0])
	runOnce()
	again, _ := filepath.Glob(filepath.Join(out, "output-accept-*.json"))
	if after, _ := os.ReadFile(outs[0]); srv.Count() != 2 || len(again) != 1 || !bytes.Equal(before, after) {
		t.Errorf("a rerun of the accepting sheet sent %d requests, left outputs %v", srv.Count(), again)
	}
}
