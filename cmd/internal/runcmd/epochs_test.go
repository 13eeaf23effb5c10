package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// epochSheet writes a sheet of n questions Q1..Qn (question "ask Qi",
// answer "Ai"), its meta lines first, and returns its path.
func epochSheet(t *testing.T, dir string, n int, meta ...string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# Epochs\n#### meta\n- grader: exact\n")
	for _, m := range meta {
		b.WriteString("- " + m + "\n")
	}
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "## Q%d\n#### question\nask Q%d\n#### answer\nA%d\n", i, i, i)
	}
	path := filepath.Join(dir, "input-epochs.md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// splitmix is splitmix64's finalizer: the fake server's coin, a function
// of the seed sent and the question, so the answers do not depend on the
// order requests arrive in.
func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// TestEpochsEndToEnd: a sheet whose meta says epochs: 20 and seed: 100,
// against a fake server that answers question q right with probability
// p[q], a coin drawn from the seed it is sent. Each question reaches the
// server 20 times, with the seeds 100..119 (seed + epoch - 1); the run
// writes 20 output files under one run id, epoch k marked "epoch": k of
// 20; each question's mean over its epochs is within the binomial bounds
// of p[q]; agg reads the run as 10 questions of 200 answers, its score
// the mean of the questions' means; and the run's summary says 20 epochs.
func TestEpochsEndToEnd(t *testing.T) {
	const epochs = 20
	p := []float64{0.02, 0.1, 0.2, 0.3, 0.45, 0.55, 0.7, 0.8, 0.9, 0.98}
	dir := t.TempDir()
	sheet := epochSheet(t, dir, len(p), fmt.Sprintf("epochs: %d", epochs), "seed: 100")
	var mu sync.Mutex
	seeds := map[string]map[int64]int{} // question -> seed -> times asked
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2 * epochs * len(p),
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			q := strings.TrimPrefix(strings.TrimSpace(c.LastUserText()), "ask Q")
			i, err := strconv.Atoi(q)
			if err != nil || i < 1 || i > len(p) || c.Settings.Seed == nil {
				return fakeserver.Reply{Status: 400, Message: fmt.Sprintf("question %q, seed %v", q, c.Settings.Seed)}
			}
			seed := *c.Settings.Seed
			mu.Lock()
			if seeds[q] == nil {
				seeds[q] = map[int64]int{}
			}
			seeds[q][seed]++
			mu.Unlock()
			coin := float64(splitmix(uint64(seed)<<8|uint64(i))>>11) / (1 << 53)
			if coin < p[i-1] {
				return fakeserver.Reply{Text: "A" + q}
			}
			return fakeserver.Reply{Text: "wrong"}
		}})
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "openai-api/local/tiny",
		"--base-url", srv.URL, "-o", out, "-c", "4"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for i := range p {
		q := strconv.Itoa(i + 1)
		if len(seeds[q]) != epochs {
			t.Errorf("Q%s reached the server with %d seeds, want %d: %v", q, len(seeds[q]), epochs, seeds[q])
		}
		for s := int64(100); s < 100+epochs; s++ {
			if seeds[q][s] != 1 {
				t.Errorf("Q%s: seed %d sent %d times, want once", q, s, seeds[q][s])
			}
		}
	}

	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(paths) != epochs {
		t.Fatalf("%d outputs, want one per epoch: %v", len(paths), paths)
	}
	right := make([]int, len(p))
	runID := ""
	for _, path := range paths {
		f, err := result.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		k, n := f.Sheet.EpochOf()
		if runID == "" {
			runID = f.Sheet.RunID
		}
		want := result.EpochName(result.FileName(sheet, "openai-api/local/tiny", runID), k, epochs)
		if n != epochs || f.Sheet.RunID != runID || filepath.Base(path) != want {
			t.Errorf("%s: epoch %d of %d, run id %q; want %s of run %q", path, k, n, f.Sheet.RunID, want, runID)
		}
		for qi, q := range f.Questions {
			if q.Settings == nil || q.Settings.Seed == nil || *q.Settings.Seed != int64(100+k-1) {
				t.Errorf("%s %s: recorded seed %v, want %d", path, q.Name, q.Settings, 100+k-1)
			}
			if q.Grade != nil && *q.Grade {
				right[qi]++
			}
		}
	}
	means := 0.0
	for q, pq := range p {
		mean := float64(right[q]) / epochs
		means += mean / float64(len(p))
		// 3.29 standard deviations (two-sided 99.9%), with a continuity
		// half-answer.
		if bound := (3.29*math.Sqrt(epochs*pq*(1-pq)) + 0.5) / epochs; math.Abs(mean-pq) > bound {
			t.Errorf("Q%d: mean %.3f over %d epochs, p %.2f: outside ±%.3f", q+1, mean, epochs, pq, bound)
		}
	}

	var warn bytes.Buffer
	d, err := agg.Load(context.Background(), out, &warn, agg.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	ts := d.Totals()
	if len(ts) != 1 || ts[0].Units != len(p) || ts[0].Graded != epochs*len(p) || math.Abs(ts[0].Score-means) > 1e-9 {
		t.Errorf("agg: %+v, want %d questions of %d answers, score %.4f", ts, len(p), epochs*len(p), means)
	}
	if !strings.Contains(stderr.String(), "(epoch 20 of 20)") {
		t.Errorf("no line names epoch 20 of 20:\n%s", stderr.String())
	}
	if summary := stdout.String() + stderr.String(); !regexp.MustCompile(`\| questions \| epochs \|.*\n.*\n\| openai-api/local/tiny \| +10 \| +20 \| +\d+ of 200 `).MatchString(summary) {
		t.Errorf("the summary says neither 10 questions nor 20 epochs:\n%s", summary)
	}
}

// run --batch --epochs 3: each question is three requests in the batch,
// each with a custom_id of its own, and each epoch's answers reach its
// own output file. The sheet sends no seed: the three requests of a
// question are the same body, told apart by their custom_ids alone.
func TestEpochsBatch(t *testing.T) {
	srv := fakeserver.NewOpenAIBatch(t, fakeserver.BatchOptions{Polls: 1,
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "7.50"} }})
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, batchArgs("openai/gpt-4o", srv.URL, out, "--epochs", "3")); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	ids := srv.SubmittedIDs()
	if len(srv.Calls()) != 9 || len(ids) != 9 {
		t.Errorf("%d requests with %d custom_ids, want 9 of each (3 questions x 3 epochs): %v", len(srv.Calls()), len(ids), ids)
	}
	for k := 1; k <= 3; k++ {
		path := filepath.Join(out, result.EpochName(result.FileName("input-unit-prices-template.md", "openai/gpt-4o", ""), k, 3))
		f, err := result.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		if e, n := f.Sheet.EpochOf(); e != k || n != 3 || len(f.Questions) != 3 {
			t.Errorf("%s: epoch %d of %d, %d questions", path, e, n, len(f.Questions))
		}
		for _, q := range f.Questions {
			if q.Completion == nil || *q.Completion != "7.50" || q.BatchID == "" {
				t.Errorf("%s %s: completion %v, batch %q", path, q.Name, q.Completion, q.BatchID)
			}
		}
	}
}

// kill -9 in epoch 3 of a run of 5 epochs (-c 2; the sheet's seed: 100
// tells the server the epoch, 100 + k - 1), with epoch 3's first two
// requests in flight: the rerun of the same command
// asks nothing of epochs 1 and 2, re-buys no more requests than were in
// flight when the child died, and the run ends with 5 complete epoch
// files under the first run's id.
func TestKillInEpoch3Of5(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a child process")
	}
	const epochs, questions = 5, 5
	dir := t.TempDir()
	sheet := epochSheet(t, dir, questions, "seed: 100")
	out := filepath.Join(dir, "out")
	var mu sync.Mutex
	asked := map[string]int{} // "epoch k Qi" -> times
	child, inFlight, atKill := true, 0, -1
	kill := make(chan struct{})
	var killOnce sync.Once
	release := make(chan struct{})
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 100,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			q := strings.TrimPrefix(strings.TrimSpace(c.LastUserText()), "ask ")
			epoch := int(*c.Settings.Seed - 99)
			key := fmt.Sprintf("epoch %d %s", epoch, q)
			mu.Lock()
			asked[key]++
			hold := child && epoch >= 3
			inFlight++
			mu.Unlock()
			defer func() { mu.Lock(); inFlight--; mu.Unlock() }()
			if hold {
				// Epoch 3's first requests are held (both of -c 2's): once
				// epochs 1 and 2's outputs are written (each by its own
				// goroutine, once its last answer is in, in no set order;
				// bounded wait) and both are held, the child dies with them
				// in flight.
				for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
					one, _ := filepath.Glob(filepath.Join(out, "output-*-epoch1.json"))
					two, _ := filepath.Glob(filepath.Join(out, "output-*-epoch2.json"))
					mu.Lock()
					n := inFlight
					mu.Unlock()
					if len(one) > 0 && len(two) > 0 && n == 2 {
						break
					}
				}
				killOnce.Do(func() {
					mu.Lock()
					atKill = inFlight
					mu.Unlock()
					close(kill)
				})
				<-release
			}
			return fakeserver.Reply{Text: "A" + q[len(q)-1:]}
		}})
	args := []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out, "-c", "2", "--epochs", strconv.Itoa(epochs)}

	killChildAt(t, args, kill, "epoch 3")
	mu.Lock()
	child = false
	before := 0
	for _, n := range asked {
		before += n
	}
	mu.Unlock()
	close(release)
	if done, _ := filepath.Glob(filepath.Join(out, "output-*.json")); len(done) != 2 || before != 2*questions+atKill {
		t.Fatalf("outputs after the kill: %v, want epochs 1 and 2; %d asked, want epochs 1 and 2 and the %d in flight", done, before, atKill)
	}

	var log strings.Builder
	if err := run(context.Background(), &log, &log, args); err != nil {
		t.Fatalf("rerun: %v\n%s", err, log.String())
	}
	mu.Lock()
	defer mu.Unlock()
	total := 0
	for key, n := range asked {
		total += n
		if (strings.HasPrefix(key, "epoch 1 ") || strings.HasPrefix(key, "epoch 2 ")) && n != 1 {
			t.Errorf("%s asked %d times, want once", key, n)
		}
	}
	if len(asked) != epochs*questions {
		t.Errorf("%d requests asked, want %d", len(asked), epochs*questions)
	}
	rebought := total - epochs*questions
	t.Logf("%d asked before the kill, %d in flight at it, %d re-bought", before, atKill, rebought)
	if rebought > atKill {
		t.Errorf("%d requests re-bought, more than the %d in flight at the kill", rebought, atKill)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*.json"))
	if len(paths) != epochs {
		t.Fatalf("outputs %v, want one per epoch", paths)
	}
	runID := ""
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		if runID == "" {
			runID = f.Sheet.RunID
		}
		if _, n := f.Sheet.EpochOf(); f.Sheet.RunID != runID || n != epochs || len(f.Questions) != questions {
			t.Errorf("%s: run id %q (want %q), %d epochs, %d questions", p, f.Sheet.RunID, runID, n, len(f.Questions))
		}
		for _, q := range f.Questions {
			if q.Grade == nil || !*q.Grade {
				t.Errorf("%s %s: not answered right after the resume", p, q.Name)
			}
		}
	}
}

// Reuse keys the epoch: after a run of 2 epochs, a run of 3 into the same
// folder reuses epochs 1 and 2 from their own files and asks epoch 3, not
// answering it from epoch 1 or 2 though the sheet sends no seed (each
// epoch's request body is the same).
func TestEpochsReuse(t *testing.T) {
	dir := t.TempDir()
	sheet := epochSheet(t, dir, 3)
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 30,
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "A1"} }})
	out := filepath.Join(dir, "out")
	args := func(epochs string) []string {
		return []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out, "--epochs", epochs}
	}
	var log bytes.Buffer
	if err := run(context.Background(), &log, &log, args("2")); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if n := srv.Count(); n != 6 {
		t.Fatalf("%d requests for 3 questions in 2 epochs", n)
	}
	log.Reset()
	if err := run(context.Background(), &log, &log, args("3")); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if n := srv.Count(); n != 9 {
		t.Errorf("%d requests in all, want 9: epoch 3's 3 asked, epochs 1 and 2 reused\n%s", n, log.String())
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*-epoch3.json"))
	if len(paths) != 1 {
		t.Fatalf("epoch 3's output: %v", paths)
	}
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		if q.ReusedFrom != "" {
			t.Errorf("epoch 3 %s reused from %s", q.Name, q.ReusedFrom)
		}
	}
}

// A bad epochs value stops the run before any call, naming its line or
// its flag.
func TestEpochsBadValue(t *testing.T) {
	dir := t.TempDir()
	sheet := epochSheet(t, dir, 2, "epochs: 0")
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-f", sheet}, `input-epochs.md:4: question "Q1": meta epochs: "0" is not a whole number from 1 to 10000`},
		{[]string{"-f", sheet, "--epochs", "two"}, `invalid value "two" for flag -epochs: is not a whole number from 1 to 10000`},
	} {
		var log bytes.Buffer
		err := run(context.Background(), &log, &log, append(tc.args, "-m", "mock", "-o", t.TempDir()))
		if err == nil || !strings.Contains(err.Error()+log.String(), tc.want) {
			t.Errorf("%v: %v\n%s\nwant %q", tc.args, err, log.String(), tc.want)
		}
	}
}

// run --epochs 3 --log-dir writes one Inspect log for the run, holding
// its 3 epochs, not one log per epoch file.
func TestEpochsInspectLog(t *testing.T) {
	dir := t.TempDir()
	sheet := epochSheet(t, dir, 2)
	logs := filepath.Join(dir, "logs")
	var log bytes.Buffer
	if err := run(context.Background(), &log, &log, []string{"-f", sheet, "-m", "mock", "-o", filepath.Join(dir, "out"),
		"--epochs", "3", "--log-dir", logs, "--log-format", "json"}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	paths, _ := filepath.Glob(filepath.Join(logs, "*.json"))
	if len(paths) != 1 {
		t.Fatalf("logs %v, want one for the run", paths)
	}
	lg, err := readLog(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if lg.Eval.Config.Epochs != 3 || len(lg.Samples) != 6 || lg.Eval.Dataset.Samples != 2 {
		t.Errorf("epochs %d, %d samples of %d questions; want 3, 6 of 2", lg.Eval.Config.Epochs, len(lg.Samples), lg.Eval.Dataset.Samples)
	}
	for i, s := range lg.Samples {
		if s.Epoch != i/2+1 {
			t.Errorf("sample %d (%s): epoch %d, want %d", i, s.ID, s.Epoch, i/2+1)
		}
	}
}
