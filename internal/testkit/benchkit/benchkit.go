// Package benchkit holds what the benchmarks and tests of large runs
// share: a generated sheet of any size (WriteSheet), whose every question
// the fake server's default reply answers right, the peak heap of the code
// under test (WatchHeap), with a heap profile taken near the peak, and the
// bytes the process has read (ReadBytes), to tell a file read back.
package benchkit

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"runtime/metrics"
	"runtime/pprof"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/result"
)

// ReadBytes is what this process has read with read(2) and its kin, from
// /proc/self/io's rchar: every file, whoever reads it. Without
// /proc/self/io (not Linux) the test is skipped.
func ReadBytes(t testing.TB) int64 {
	t.Helper()
	data, err := os.ReadFile("/proc/self/io")
	if err != nil {
		t.Skipf("no /proc/self/io: %v", err)
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "rchar: "); ok {
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatal(err)
			}
			return n
		}
	}
	t.Fatal("no rchar in /proc/self/io")
	return 0
}

// WriteSheet writes a sheet of n questions to path: question Qj asks "ask
// S1 Qj" and its ground truth is "fake reply", the fake server's default
// answer (internal/testkit/fakeserver). It is written as it is made: a
// million questions are 63 MB.
func WriteSheet(path string, n int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	fmt.Fprintf(w, "# Sheet 1\n")
	for j := 1; j <= n; j++ {
		fmt.Fprintf(w, "## Q%d\n#### question\nask S1 Q%d\n#### answer\nfake reply\n", j, j)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// HeapProfileEnv names the environment variable that makes WatchHeap
// write a heap profile (go tool pprof) to the file it names each time the
// peak grows by a tenth: the last one written holds what was live near
// the peak.
const HeapProfileEnv = "EVALMD_HEAP_PROFILE"

// WatchHeap samples the heap the program holds (its live objects and the
// spans they sit in, without what was returned to the system) every 10 ms
// until the returned stop is called, which gives the most it saw, in
// bytes. Sampling reads runtime/metrics, which does not stop the world.
func WatchHeap() (stop func() uint64) {
	samples := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/memory/classes/heap/unused:bytes"}}
	profile := os.Getenv(HeapProfileEnv)
	var profiled uint64
	return watch(func() uint64 {
		metrics.Read(samples)
		now := samples[0].Value.Uint64() + samples[1].Value.Uint64()
		if profile != "" && now > profiled+profiled/10 && now > 16<<20 {
			profiled = now
			writeHeapProfile(profile)
		}
		return now
	})
}

// WatchLive samples, every 10 ms until the returned stop is called, the
// heap the last collection found live, and gives the most it saw, in
// bytes. Unlike WatchHeap's figure it does not count garbage not yet
// collected, whose amount depends on how soon the collector ran (later on
// a busy machine): what a program holds, not when it let go.
func WatchLive() (stop func() uint64) {
	samples := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	return watch(func() uint64 {
		metrics.Read(samples)
		return samples[0].Value.Uint64()
	})
}

// watch calls sample every 10 ms, and once more at stop (what is held at
// the end counts too), until stop is called, which gives the most sample
// gave.
func watch(sample func() uint64) (stop func() uint64) {
	var peak uint64
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for {
			peak = max(peak, sample())
			select {
			case <-done:
				peak = max(peak, sample())
				return
			case <-tick.C:
			}
		}
	})
	return func() uint64 {
		close(done)
		wg.Wait()
		return peak
	}
}

// writeHeapProfile writes the heap profile to path, as of the last
// collection (forced first, so it is the live heap now).
func writeHeapProfile(path string) {
	runtime.GC()
	f, err := os.Create(path)
	if err != nil {
		return
	}
	defer f.Close()
	_ = pprof.WriteHeapProfile(f)
}

// WriteOutput writes to path the output file a run of WriteSheet's sheet
// of n questions writes (each answered "fake reply", graded right, with
// its request key, usage and time), question by question, as a run
// streams it: agg's benchmarks read it as they read a run's.
func WriteOutput(path string, n int) error { return writeOutput(path, n, 0, 0) }

// WriteOutputParts writes the parts WriteOutput's run writes split in
// shards (run --shard), at path's shards' names (result.ShardName):
// question i in shard i mod shards + 1, with its position.
func WriteOutputParts(path string, n, shards int) error {
	for k := 1; k <= shards; k++ {
		if err := writeOutput(result.ShardName(path, k, shards), n, k, shards); err != nil {
			return err
		}
	}
	return nil
}

// writeOutput writes WriteOutput's file, or of its run in shards the part
// of shard k (0: the whole).
func writeOutput(path string, n, k, shards int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	out := &result.File{Sheet: result.Sheet{Name: "Sheet 1", RunID: "b3nc", ModelName: "openai-api/fake/m", SheetFile: "input-q.md",
		Created: "2026-11-28T10:00:00.000Z", Version: "0123456789ab", Shard: k, Shards: shards}}
	first, step := 0, 1
	if k > 0 {
		first, step = k-1, shards
	}
	yes, reply, truth, secs := true, "fake reply", "fake reply", 0.0012
	err = out.WriteJSON(w, (n-first+step-1)/step, func(w io.Writer, j int) error {
		i := first + j*step
		q := result.Question{Name: fmt.Sprintf("Q%d", i+1), GroundTruth: &truth, Question: fmt.Sprintf("ask S1 Q%d", i+1), Completion: &reply,
			ModelName: "openai-api/fake/m", EvalTime: &secs, Grade: &yes, InputTokens: 10, OutputTokens: 5, Grader: "lime",
			RequestKey: fmt.Sprintf("%064x", i+1), ServedModel: "m"}
		if k > 0 {
			q.Position = i + 1
		}
		data, err := result.EncodeQuestion(&q)
		if err == nil {
			_, err = w.Write(data)
		}
		return err
	})
	if err == nil {
		err = w.Flush()
	}
	return errors.Join(err, f.Close())
}
