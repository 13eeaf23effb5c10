package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/cmd/internal/aggcmd"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
	"github.com/xuri/excelize/v2"
)

// jobItem is a question as the server sees it: the model asked, the
// prompt and the seed sent (the epoch's).
type jobItem struct {
	model, text string
	seed        int64
}

// startJobPod runs the command with args in a child process as a pod of a
// Kubernetes Indexed Job runs it: JOB_COMPLETION_INDEX set to index and
// the number of shards in EVALMD_SHARDS (startChild).
func startJobPod(t *testing.T, args []string, index, shards int) (*exec.Cmd, <-chan error, *strings.Builder) {
	t.Helper()
	return startChild(t, args, fmt.Sprintf("%s=%d", JobIndexEnv, index), fmt.Sprintf("%s=%d", ShardsEnv, shards))
}

// journalRecords counts the records of the journals matching pattern.
func journalRecords(pattern string) int {
	paths, _ := filepath.Glob(pattern)
	n := 0
	for _, p := range paths {
		data, _ := os.ReadFile(p)
		n += bytes.Count(data, []byte(`"key":`))
	}
	return n
}

// TestShardsMergeToOneRun: two sheets of 10 questions, 3 epochs, two
// models, run as a Kubernetes Indexed Job of 4 pods would run them (4
// processes, each told its index in JOB_COMPLETION_INDEX and the count in
// EVALMD_SHARDS, all writing into one folder), the pod of index 2 killed
// (SIGKILL) with a request in flight and run again, as the Job's
// backoffLimitPerIndex does. Every question of every sheet, model and
// epoch reaches the server once, but for the one in flight at the kill,
// which is asked again; the pod of index 2 asks only what a dry run of
// --shard 3/4 lists. agg over the shards' folder writes, byte for byte,
// the markdown report (its leaderboard and every table), the HTML report,
// the workbook and the Inspect logs that agg writes over the same answers
// run by one process (the times of both runs are set alike first: a run's
// clock is not its answers). Then the run again as a Job of 3 pods: every
// answer is reused, across shards, none asked, and the tables stay one
// run's.
func TestShardsMergeToOneRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs child processes")
	}
	const shards, killAt = 4, 8
	dir := t.TempDir()
	sheets := shardSheets(t, dir, 10, "epochs: 3", "seed: 100")
	models := "openai-api/local/a,openai-api/local/b"

	var mu sync.Mutex
	phase := "shards"
	asked := map[jobItem]int{}
	var shard3 map[jobItem]bool // the items of shard 3, from its dry run
	shard3Asked, againAsked := 0, 0
	var held jobItem
	kill, release := make(chan struct{}), make(chan struct{})
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 1000,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			text := strings.TrimSpace(c.LastUserText())
			if c.Settings.Seed == nil {
				return fakeserver.Reply{Status: 400, Message: "no seed"}
			}
			it := jobItem{c.Model, text, *c.Settings.Seed}
			mu.Lock()
			hold := false
			if phase == "again" {
				againAsked++
			}
			if phase == "shards" {
				asked[it]++
				if shard3[it] {
					shard3Asked++
					if hold = shard3Asked == killAt; hold {
						held = it
					}
				}
			}
			mu.Unlock()
			if hold {
				// The pod dies with this request in flight, once the
				// answers before it are in its journal.
				pattern := filepath.Join(dir, "out-shards", ".evalmd-run-*-shard3of4.journal")
				for deadline := time.Now().Add(time.Minute); journalRecords(pattern) < killAt-1 && time.Now().Before(deadline); {
					time.Sleep(5 * time.Millisecond)
				}
				close(kill)
				<-release
			}
			// Right or wrong by a coin of the model, question and seed.
			h := fnv.New64a()
			fmt.Fprintf(h, "%s|%s|%d", it.model, it.text, it.seed)
			if h.Sum64()%5 < 3 {
				return fakeserver.Reply{Text: "A" + text[strings.LastIndex(text, "Q")+1:]}
			}
			return fakeserver.Reply{Text: "wrong"}
		}})
	args := func(out string) []string {
		return []string{"-d", sheets, "-m", models, "--base-url", srv.URL, "-o", filepath.Join(dir, out), "-c", "1", "--run-id", "job-1"}
	}

	// Which items are shard 3's: its dry run writes them.
	var stderr bytes.Buffer
	if err := run(context.Background(), io.Discard, &stderr, append(args("dry"), "-y", "--shard", "3/4")); err != nil {
		t.Fatalf("dry run: %v\n%s", err, stderr.String())
	}
	shard3 = shardItems(t, filepath.Join(dir, "dry"))
	if len(shard3) <= killAt || len(shard3) >= 120 {
		t.Fatalf("shard 3 of 4 has %d of 120 items", len(shard3))
	}

	// The Job: 4 pods at once; index 2 is killed.
	type pod struct {
		cmd    *exec.Cmd
		exited <-chan error
		stderr *strings.Builder
	}
	var pods []pod
	for i := range shards {
		cmd, exited, stderr := startJobPod(t, args("out-shards"), i, shards)
		pods = append(pods, pod{cmd, exited, stderr})
	}
	select {
	case <-kill:
		pods[2].cmd.Process.Kill()
		<-pods[2].exited
	case err := <-pods[2].exited:
		t.Fatalf("the pod of index 2 ended before the kill: %v\n%s", err, pods[2].stderr)
	case <-time.After(2 * time.Minute):
		t.Fatal("the pod of index 2 never reached its request to kill")
	}
	close(release)
	for i, p := range pods {
		if i == 2 {
			continue
		}
		select {
		case err := <-p.exited:
			if err != nil {
				t.Fatalf("pod %d: %v\n%s", i, err, p.stderr)
			}
		case <-time.After(2 * time.Minute):
			p.cmd.Process.Kill()
			t.Fatalf("pod %d never ended", i)
		}
	}
	if parts, _ := filepath.Glob(filepath.Join(dir, "out-shards", "output-*-shard3of4.json")); len(parts) == 2*2*3 {
		t.Fatal("the killed pod wrote all its parts: it was killed too late to test a resume")
	}
	// The Job runs index 2 again.
	_, exited, stderr3 := startJobPod(t, args("out-shards"), 2, shards)
	if err := <-exited; err != nil {
		t.Fatalf("pod 2 again: %v\n%s", err, stderr3)
	}

	// The same answers asked by one process.
	mu.Lock()
	phase = "one"
	mu.Unlock()
	stderr.Reset()
	if err := run(context.Background(), io.Discard, &stderr, args("out-one")); err != nil {
		t.Fatalf("one process: %v\n%s", err, stderr.String())
	}

	mu.Lock()
	if len(asked) != 120 {
		t.Errorf("the shards asked %d items, want 2 sheets x 10 questions x 3 epochs x 2 models = 120", len(asked))
	}
	for it, n := range asked {
		if want := 1 + btoi(it == held); n != want {
			t.Errorf("%v asked %d times by the shards, want %d", it, n, want)
		}
	}
	if shard3Asked != len(shard3)+1 {
		t.Errorf("the pod of index 2 asked %d of its %d items (one again after the kill)", shard3Asked, len(shard3))
	}
	mu.Unlock()
	for _, tc := range []struct {
		out   string
		files int
	}{{"out-shards", 4 * 12}, {"out-one", 12}} {
		paths, err := result.Find(filepath.Join(dir, tc.out), nil)
		if err != nil || len(paths) != tc.files {
			t.Errorf("%s: %d output files (%v), want %d", tc.out, len(paths), err, tc.files)
		}
		if left, _ := filepath.Glob(filepath.Join(dir, tc.out, ".evalmd-run-*")); len(left) > 0 {
			t.Errorf("%s: journals left: %v", tc.out, left)
		}
		sameClock(t, paths)
	}

	one := aggAll(t, dir, "out-one", "")
	if !strings.Contains(one["report.md"], "openai-api/local/a") || strings.Count(strings.Join(slices.Collect(maps.Keys(one)), " "), "logs/") != 4 {
		t.Fatalf("agg of one process wrote %v, with no model named or not a log per sheet and model:\n%s", slices.Collect(maps.Keys(one)), one["report.md"])
	}
	sameFiles(t, withoutParts(t, one, false), withoutParts(t, aggAll(t, dir, "out-shards", ""), true), false)

	// The run again in 3 shards, as another Job: every question is
	// answered by an earlier part, most by another shard's, so nothing is
	// asked, and the folder's tables stay those of one run.
	mu.Lock()
	phase = "again"
	mu.Unlock()
	for k := 1; k <= 3; k++ {
		stderr.Reset()
		again := append(args("out-shards")[:len(args("out-shards"))-1], "job-2", "--shard", fmt.Sprintf("%d/3", k))
		if err := run(context.Background(), io.Discard, &stderr, again); err != nil {
			t.Fatalf("shard %d/3 of the second Job: %v\n%s", k, err, stderr.String())
		}
	}

	mu.Lock()
	if againAsked != 0 {
		t.Errorf("the second Job, in 3 shards, asked %d questions, want none (all reused)", againAsked)
	}
	mu.Unlock()
	paths, err := result.Find(filepath.Join(dir, "out-shards"), nil)
	if err != nil || len(paths) != 4*12+3*12 {
		t.Errorf("after the second Job: %d output files (%v), want the first's 48 and its 36", len(paths), err)
	}
	sameClock(t, paths)
	// Its answers are all counted from the first Job's parts: the tables
	// are one run's still; the HTML report's header names the second
	// Job's files as left out, and why.
	again := aggAll(t, dir, "out-shards", "-again")
	if page := again["report.html"]; !strings.Contains(page, "12 output files counted of 24 found") || !strings.Contains(page, "a rerun every answer of which a file counted carries") {
		t.Errorf("the page after the second Job does not say it left out its 12 files: %s", firstDiff(page, one["report.html"]))
	}
	delete(again, "report.html")
	rest := maps.Clone(one)
	delete(rest, "report.html")
	sameFiles(t, withoutParts(t, rest, false), withoutParts(t, again, true), true)
}

// partName is a shard's part named where an answer's file is named: the
// HTML report's page data ("f") and the workbook's cells.
var partName = regexp.MustCompile(`-shard[0-9]+of[0-9]+\.json`)

// withoutParts is agg's files over the shards with each answer's part
// named as the file the parts make: the report and the workbook name the
// part that holds an answer (where a verdict on it is written), one
// process's the one file. The workbook is compared by its cells.
// Over the shards (sharded), a report that names no part fails.
func withoutParts(t *testing.T, files map[string]string, sharded bool) map[string]string {
	t.Helper()
	out := maps.Clone(files)
	for name, text := range files {
		switch filepath.Ext(name) {
		case ".html":
			if sharded && !partName.MatchString(text) {
				t.Errorf("%s over the shards names no part", name)
			}
			out[name] = partName.ReplaceAllString(text, ".json")
		case ".xlsx":
			out[name] = partName.ReplaceAllString(xlsxText(t, text), ".json")
		}
	}
	return out
}

// xlsxText is the cells of the workbook data, sheet by sheet, a row a
// line: what a reader of the workbook sees, apart from its shared-string
// numbering (a part's name is one more string).
func xlsxText(t *testing.T, data string) string {
	t.Helper()
	f, err := excelize.OpenReader(strings.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var b strings.Builder
	for _, name := range f.GetSheetList() {
		rows, err := f.GetRows(name)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(&b, "sheet %s\n", name)
		for _, r := range rows {
			fmt.Fprintf(&b, "%q\n", r)
		}
	}
	return b.String()
}

// sameFiles checks that agg wrote over the shards what it wrote over one
// process, byte for byte; more logs, when moreLogs.
func sameFiles(t *testing.T, one, sharded map[string]string, moreLogs bool) {
	t.Helper()
	for name, want := range one {
		if got, ok := sharded[name]; !ok {
			t.Errorf("agg over the shards wrote no %s", name)
		} else if got != want {
			t.Errorf("%s of the shards differs from one process's: %s", name, firstDiff(got, want))
		}
	}
	for name := range sharded {
		if _, ok := one[name]; !ok && !(moreLogs && strings.HasPrefix(name, "logs/")) {
			t.Errorf("agg over the shards wrote %s, over one process not", name)
		}
	}
}

// shardItems lists the items of the outputs of a dry run in dir.
func shardItems(t *testing.T, dir string) map[jobItem]bool {
	t.Helper()
	paths, err := result.Find(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	items := map[jobItem]bool{}
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		k, _ := f.Sheet.EpochOf()
		for _, q := range f.Questions {
			items[jobItem{f.Sheet.ModelName[strings.LastIndex(f.Sheet.ModelName, "/")+1:], strings.TrimSpace(q.Question), int64(100 + k - 1)}] = true
		}
	}
	return items
}

// sameClock sets the times of the output files alike: the start of
// each run, its wall time and each answer's.
func sameClock(t *testing.T, paths []string) {
	t.Helper()
	key, err := testLookup().Key()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		f.Sheet.Created = "2026-03-01T10:00:00.000Z"
		if f.Sheet.Totals != nil {
			f.Sheet.Totals.WallSeconds = 12
		}
		for i := range f.Questions {
			secs := 0.25
			f.Questions[i].EvalTime = &secs
		}
		// Still this machine's run: sealed as it wrote it.
		if err := f.Write(p, outfile.Options{Force: true, Seal: key}); err != nil {
			t.Fatal(err)
		}
	}
}

// aggAll runs agg on dir/out, writing its markdown report, HTML report,
// workbook and Inspect logs into a folder of their own, and returns what it wrote
// by name (the logs as logs/NAME).
func aggAll(t *testing.T, dir, out, suffix string) map[string]string {
	t.Helper()
	dest := filepath.Join(dir, "agg-"+out+suffix)
	var stdout, stderr bytes.Buffer
	cmd := aggcmd.Command(config.Lookup{}, func(io.Writer) bool { return false }, func(string) string { return "" })
	if err := cli.Execute(context.Background(), &stdout, &stderr, cmd, []string{"-i", filepath.Join(dir, out),
		"-o", filepath.Join(dest, "report.md"), "-html", filepath.Join(dest, "report.html"), "-xlsx", filepath.Join(dest, "report.xlsx"),
		"--log-dir", filepath.Join(dest, "logs")}); err != nil {
		t.Fatalf("agg -i %s: %v\n%s", out, err, stderr.String())
	}
	got := map[string]string{}
	err := filepath.WalkDir(dest, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			return err
		}
		data, err := os.ReadFile(p)
		rel, _ := filepath.Rel(dest, p)
		got[filepath.ToSlash(rel)] = string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// firstDiff shows where two texts first differ.
func firstDiff(got, want string) string {
	i := 0
	for i < len(got) && i < len(want) && got[i] == want[i] {
		i++
	}
	around := func(s string) string { return s[max(0, i-200):min(len(s), i+200)] }
	return fmt.Sprintf("at byte %d of %d and %d:\n%s\n--- one process:\n%s", i, len(got), len(want), around(got), around(want))
}
