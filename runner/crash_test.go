package runner

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
)

const (
	crashJobs        = 400
	crashConcurrency = 8
	// crashEmit is the helper's time to emit an outcome: answers arrive
	// faster than the caller takes them.
	crashEmit = 5 * time.Millisecond
)

// TestHelperProcess is not a test: TestCrashResume runs the test binary
// again with EVALMD_RUNNER_HELPER=1 to get a process it can SIGKILL. The
// helper runs the runner against the server at EVALMD_RUNNER_URL with the
// journal at EVALMD_RUNNER_JOURNAL, and appends one line per emitted
// outcome to EVALMD_RUNNER_OUT: key, text, FromJournal. Its emit is slow,
// as a caller grading and encoding each answer on a loaded machine is.
func TestHelperProcess(t *testing.T) {
	if os.Getenv("EVALMD_RUNNER_HELPER") != "1" {
		t.Skip("helper process for TestCrashResume")
	}
	m, err := providers.New("openai-api/fake/m", model.Options{BaseURL: os.Getenv("EVALMD_RUNNER_URL"), APIKey: testAPIKey,
		HTTPClient: &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: crashConcurrency}}})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	out, err := os.OpenFile(os.Getenv("EVALMD_RUNNER_OUT"), os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	_, err = Run(context.Background(), m, makeJobs(crashJobs), Options{
		Concurrency: crashConcurrency, Journal: os.Getenv("EVALMD_RUNNER_JOURNAL"),
		BaseBackoff: time.Millisecond,
	}, func(o Outcome) {
		time.Sleep(crashEmit)
		fmt.Fprintf(out, "%s\t%s\t%v\t%v\n", o.Key, o.Response.Text, o.FromJournal, o.Err)
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	out.Close()
	os.Exit(0)
}

// TestCrashResume kills a run with SIGKILL while requests are in flight,
// runs it again with the same journal, and checks against the server's own
// count of requests per question that no question journaled by the first
// run was asked again, and that the second run emits every question once.
func TestCrashResume(t *testing.T) {
	if testing.Short() {
		t.Skip("builds on a child process")
	}
	var mu sync.Mutex
	phase := 1
	asked := [3]map[string]int{nil, {}, {}} // per phase, requests per question
	// Run 1 cannot finish before the kill, however the machine schedules
	// the test: past half of the questions, its requests are held until
	// the kill (or the test's end).
	killed := make(chan struct{})
	var once sync.Once
	release := func() { once.Do(func() { close(killed) }) }
	t.Cleanup(release)
	answered1 := 0
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
		Latency:     5 * time.Millisecond,
		MaxRequests: 3 * crashJobs,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			q := questionOf(c)
			mu.Lock()
			asked[phase][q]++
			hold := phase == 1 && answered1 >= crashJobs/2
			if phase == 1 && !hold {
				answered1++
			}
			mu.Unlock()
			if hold {
				<-killed
			}
			return fakeserver.Reply{Text: "answer to " + q}
		},
	})
	dir := t.TempDir()
	journal := filepath.Join(dir, "run.journal")
	helper := func(out string) *exec.Cmd {
		cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.v=false")
		cmd.Env = append(os.Environ(), "EVALMD_RUNNER_HELPER=1", "EVALMD_RUNNER_URL="+srv.URL,
			"EVALMD_RUNNER_JOURNAL="+journal, "EVALMD_RUNNER_OUT="+out)
		cmd.Stderr = os.Stderr
		return cmd
	}

	// Run 1: kill it once a quarter of the questions are journaled.
	cmd := helper(filepath.Join(dir, "out1"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	// A generous bound: only a run that stopped journaling reaches it.
	deadline := time.Now().Add(2 * time.Minute)
	for {
		b, _ := os.ReadFile(journal)
		if bytes.Count(b, []byte("\n")) >= crashJobs/4 {
			break
		}
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("run 1 journaled only %d lines in 2 minutes", bytes.Count(b, []byte("\n")))
		}
		time.Sleep(500 * time.Microsecond)
	}
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	mu.Lock()
	phase = 2
	mu.Unlock()
	release()
	if err == nil || !strings.Contains(err.Error(), "killed") {
		t.Fatalf("run 1 ended with %v, want killed", err)
	}
	data, err := os.ReadFile(journal)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, torn, err := readJournal(bytes.NewReader(data), journal)
	if err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	asked1 := len(asked[1])
	mu.Unlock()
	t.Logf("run 1 killed with %d answers journaled (torn tail: %v), %d questions asked", len(recs), torn, asked1)
	if len(recs) == crashJobs {
		t.Fatal("run 1 finished before the kill")
	}
	if !torn {
		// A record is written with one write(2), so a kill rarely tears
		// one; a machine crash can. Tear one by hand: run 2 must
		// drop it and ask that question.
		var k string
		for _, j := range makeJobs(crashJobs) {
			if _, ok := recs[j.Key]; !ok {
				k = j.Key
				break
			}
		}
		f, err := os.OpenFile(journal, os.O_WRONLY|os.O_APPEND, 0)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(f, `{"key":%q,"req":"`, k)
		f.Close()
	}

	// Run 2: to completion.
	out2 := filepath.Join(dir, "out2")
	if err := helper(out2).Run(); err != nil {
		t.Fatalf("run 2: %v", err)
	}
	f, err := os.Open(out2)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	emitted := map[string]int{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		parts := strings.Split(sc.Text(), "\t")
		if len(parts) != 4 {
			t.Fatalf("bad helper line %q", sc.Text())
		}
		key, text, fromJournal, errText := parts[0], parts[1], parts[2] == "true", parts[3]
		emitted[key]++
		q := key[strings.LastIndex(key, ":")+1:]
		if text != "answer to "+q || errText != "<nil>" {
			t.Errorf("%s: text %q err %s", key, text, errText)
		}
		_, journaled := recs[key]
		if fromJournal != journaled {
			t.Errorf("%s: FromJournal=%v, journaled in run 1: %v", key, fromJournal, journaled)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, j := range makeJobs(crashJobs) {
		q := j.Task.Question.Name
		if emitted[j.Key] != 1 {
			t.Errorf("%s emitted %d times by run 2", j.Key, emitted[j.Key])
		}
		if _, ok := recs[j.Key]; ok && asked[2][q] != 0 {
			t.Errorf("%s answered and journaled in run 1, asked again in run 2", q)
		}
		if asked[1][q]+asked[2][q] == 0 {
			t.Errorf("%s never asked", q)
		}
	}
	// What the kill cost: questions asked in run 1 whose answers were not
	// yet on disk. Each worker journals its answer as it arrives, before
	// the caller's slow emit sees it, so that is only those in flight.
	lost := 0
	for q := range asked[1] {
		if asked[2][q] > 0 {
			lost++
		}
	}
	t.Logf("run 2 asked %d questions; %d had been asked in run 1 but were in flight at the kill", len(asked[2]), lost)
	if lost > crashConcurrency {
		t.Errorf("%d questions paid twice, more than the %d in flight", lost, crashConcurrency)
	}
}
