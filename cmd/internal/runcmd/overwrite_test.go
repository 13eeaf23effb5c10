package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

// run does not write its output over a file evalmd did not write (a LIME
// output of the same name), unless --force.
func TestRunKeepsForeignOutput(t *testing.T) {
	out := t.TempDir()
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	p := filepath.Join(out, "output-solar-choice-mock.json")
	os.WriteFile(p, []byte(`{"sheet": {"name": "LIME's"}, "questions": []}`), 0o644)
	args := []string{"-f", sheet, "-m", "mock", "-o", out, "-u", "0"}
	var stderr bytes.Buffer
	err := run(context.Background(), &stderr, &stderr, args)
	if err == nil || !strings.Contains(err.Error(), p+" exists and was not written by evalmd") {
		t.Fatalf("err %v\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(p); !strings.Contains(string(b), "LIME's") {
		t.Error("the file was overwritten")
	}
	if _, err := os.Stat(filepath.Join(out, "output-solar-choice-mock.md")); err == nil {
		t.Error("the markdown was written beside a refused output")
	}
	if err := run(context.Background(), &stderr, &stderr, append(args, "--force")); err != nil {
		t.Fatalf("--force: %v", err)
	}
	if b, _ := os.ReadFile(p); strings.Contains(string(b), "LIME's") {
		t.Error("--force did not write")
	}
}

// A dry run's output says so in its sheet object, and a real run's does
// not, so agg can leave dry runs out.
func TestDryRunMarked(t *testing.T) {
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	for _, dry := range []bool{true, false} {
		out := t.TempDir()
		args := []string{"-f", sheet, "-m", "mock", "-o", out, "-u", "0"}
		if dry {
			args = append(args, "-y")
		}
		var stderr bytes.Buffer
		if err := run(context.Background(), &stderr, &stderr, args); err != nil {
			t.Fatalf("%v\n%s", err, stderr.String())
		}
		b, err := os.ReadFile(filepath.Join(out, "output-solar-choice-mock.json"))
		if err != nil {
			t.Fatal(err)
		}
		if got := strings.Contains(string(b), `"dry_run": true`); got != dry {
			t.Errorf("dry run %v: marked %v", dry, got)
		}
	}
}

// run -u 0 names its output without a run id, so a second run (or a dry
// run, which would null every answer) would write over the first: it is
// refused, naming the file, and the file is kept. A rerun of a run that
// is not finished (its journal says so) resumes it into the same file.
func TestRunIDZeroKeepsEarlierOutput(t *testing.T) {
	out := t.TempDir()
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	p := filepath.Join(out, "output-solar-choice-mock.json")
	args := []string{"-f", sheet, "-m", "mock", "-o", out, "-u", "0"}
	var stderr bytes.Buffer
	if err := run(context.Background(), &stderr, &stderr, args); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	before, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, extra := range [][]string{nil, {"-y"}} {
		err := run(context.Background(), &stderr, &stderr, append(args, extra...))
		if err == nil || !strings.Contains(err.Error(), p+" exists, from an earlier run") || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: err %v", extra, err)
		}
		if after, _ := os.ReadFile(p); !bytes.Equal(after, before) {
			t.Errorf("%v: the earlier output was changed", extra)
		}
	}
	if err := run(context.Background(), &stderr, &stderr, append(args, "--force")); err != nil {
		t.Errorf("--force: %v", err)
	}
}

func TestRunIDZeroResumes(t *testing.T) {
	var mu sync.Mutex
	failing := true
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 50,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			mu.Lock()
			defer mu.Unlock()
			if failing {
				return fakeserver.Reply{Status: 400, Message: "not today"}
			}
			return fakeserver.Reply{Text: "B"}
		}})
	out := t.TempDir()
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	args := []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", out, "-u", "0"}
	var stderr bytes.Buffer
	err := run(context.Background(), &stderr, &stderr, args)
	if err == nil || !strings.Contains(err.Error(), "rerun the same command") {
		t.Fatalf("first run: %v", err)
	}
	asked := srv.Count()
	mu.Lock()
	failing = false
	mu.Unlock()
	if err := run(context.Background(), &stderr, &stderr, args); err != nil {
		t.Fatalf("the rerun of an unfinished run was refused: %v", err)
	}
	f, err := result.Read(filepath.Join(out, "output-solar-choice-openai-api_local_tiny.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		if q.Error != nil || q.Completion == nil {
			t.Errorf("%s: error %v after the resume", q.Name, q.Error)
		}
	}
	if srv.Count() == asked {
		t.Error("the rerun asked nothing")
	}
}

// Two runs at once with -u 0, the same -o and a model in common: each
// found the common output missing when it began, so the second to finish
// is refused, naming the file, and the first's output stays, as when the
// second starts after the first.
func TestConcurrentRunsKeepTheFirstOutput(t *testing.T) {
	out := t.TempDir()
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	t.Setenv("LOCAL_API_KEY", "test")
	srvA := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 50, Reply: fakeserver.Fixed("from run A")})
	started := make(chan struct{})
	release := make(chan struct{})
	var once sync.Once
	srvB := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 50, Reply: func(fakeserver.Call) fakeserver.Reply {
		once.Do(func() { close(started) })
		<-release
		return fakeserver.Reply{Text: "from run B"}
	}})
	runB := make(chan error, 1)
	var logB bytes.Buffer
	go func() {
		runB <- run(context.Background(), &logB, &logB, []string{"-f", sheet, "-o", out, "-u", "0",
			"-m", "openai-api/local/common,openai-api/local/b", "--base-url", srvB.URL})
	}()
	<-started // B has planned its outputs and is waiting for its answers
	var logA bytes.Buffer
	err := run(context.Background(), &logA, &logA, []string{"-f", sheet, "-o", out, "-u", "0",
		"-m", "openai-api/local/a,openai-api/local/common", "--base-url", srvA.URL})
	close(release)
	if err != nil {
		t.Fatalf("run A: %v\n%s", err, logA.String())
	}
	common := filepath.Join(out, result.FileName(sheet, "openai-api/local/common", ""))
	errB := <-runB
	if errB == nil || !strings.HasPrefix(errB.Error(), common+" was written by another process while this command ran") || strings.Contains(errB.Error(), "\n") {
		t.Errorf("run B: %v, want it refused in one line naming %s\n%s", errB, common, logB.String())
	}
	f, err := result.Read(common)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		if q.Completion == nil || *q.Completion != "from run A" {
			t.Errorf("%s: %v, want run A's answer", q.Name, q.Completion)
		}
	}
	if md, _ := os.ReadFile(result.MarkdownPath(common)); !strings.Contains(string(md), "from run A") || strings.Contains(string(md), "from run B") {
		t.Errorf("the markdown is not run A's alone:\n%s", md)
	}
}
