package runcmd

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// slurmEnv is the environment Slurm gives task id of sbatch --array=lo-hi
// of job 77 (77 is the array's job id).
func slurmEnv(id, lo, hi int, more ...string) map[string]string {
	env := map[string]string{SlurmJobEnv: "77", SlurmTaskEnv: itoa(id), SlurmMinEnv: itoa(lo), SlurmMaxEnv: itoa(hi),
		SlurmCountEnv: itoa(hi - lo + 1), SlurmStepEnv: "1"}
	for i := 0; i+1 < len(more); i += 2 {
		env[more[i]] = more[i+1]
	}
	return env
}

func itoa(i int) string { return strconv.Itoa(i) }

// A Slurm array's task takes its shard from SLURM_ARRAY_TASK_ID counted
// from SLURM_ARRAY_TASK_MIN, of SLURM_ARRAY_TASK_COUNT, and its run id from
// SLURM_ARRAY_JOB_ID; --shard and --run-id win; a stepped or sparse array,
// and two engines naming two shards, are refused saying how to write it.
func TestShardOfSlurm(t *testing.T) {
	for _, tc := range []struct {
		name   string
		flag   string
		count  int
		env    map[string]string
		want   harness.Shard
		runID  string
		err    string
		flagID string
	}{
		{name: "--array=0-3, task 0", env: slurmEnv(0, 0, 3), want: harness.Shard{K: 1, N: 4}, runID: "slurm-77"},
		{name: "--array=0-3, task 3", env: slurmEnv(3, 0, 3), want: harness.Shard{K: 4, N: 4}, runID: "slurm-77"},
		{name: "--array=1-4, task 1", env: slurmEnv(1, 1, 4), want: harness.Shard{K: 1, N: 4}, runID: "slurm-77"},
		{name: "--array=5-7, task 6", env: slurmEnv(6, 5, 7), want: harness.Shard{K: 2, N: 3}, runID: "slurm-77"},
		{name: "--run-id over the array's job", env: slurmEnv(0, 0, 1), flagID: "mine", want: harness.Shard{K: 1, N: 2}, runID: "mine"},
		{name: "--shard over the array", flag: "2/2", env: slurmEnv(0, 0, 3), want: harness.Shard{K: 2, N: 2}},
		{name: "the same --shards", count: 4, env: slurmEnv(2, 0, 3), want: harness.Shard{K: 3, N: 4}, runID: "slurm-77"},
		{name: "another --shards", count: 3, env: slurmEnv(2, 0, 3), err: "SLURM_ARRAY_TASK_COUNT=4 and --shards 3"},
		{name: "another EVALMD_SHARDS", env: slurmEnv(2, 0, 3, ShardsEnv, "2"), err: "SLURM_ARRAY_TASK_COUNT=4 and EVALMD_SHARDS=2"},
		{name: "a Job's index, the same shard", env: slurmEnv(2, 0, 3, JobIndexEnv, "2"), want: harness.Shard{K: 3, N: 4}, runID: "slurm-77"},
		{name: "a Job's index, another shard", env: slurmEnv(2, 0, 3, JobIndexEnv, "1"), err: "JOB_COMPLETION_INDEX=1 (shard 2/4) and SLURM_ARRAY_TASK_ID=2 (shard 3/4) name two shards"},
		{name: "stepped, --array=0-6:2", env: slurmEnv(2, 0, 6, SlurmCountEnv, "4", SlurmStepEnv, "2"), err: "SLURM_ARRAY_TASK_STEP=2: a stepped array's tasks are not shards 1 to N: submit one task a shard, --array=0-3"},
		{name: "sparse, --array=0,2,5", env: slurmEnv(2, 0, 5, SlurmCountEnv, "3"), err: "SLURM_ARRAY_TASK_MIN=0, SLURM_ARRAY_TASK_MAX=5 and SLURM_ARRAY_TASK_COUNT=3: a sparse array's tasks are not shards 1 to N: submit one task a shard, --array=0-2"},
		{name: "no count", env: slurmEnv(0, 0, 3, SlurmCountEnv, ""), err: `SLURM_ARRAY_TASK_COUNT="" in a Slurm array task`},
		{name: "a task past the array", env: slurmEnv(4, 0, 3, SlurmMaxEnv, ""), err: "SLURM_ARRAY_TASK_ID=4: not a task of an array of 4 from 0"},
		{name: "a bad job id", env: slurmEnv(0, 0, 3, SlurmJobEnv, "7/7"), err: `SLURM_ARRAY_JOB_ID="7/7": not a Slurm job id`},
		{name: "a Slurm job, no array", env: map[string]string{"SLURM_JOB_ID": "5", SlurmJobEnv: ""}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := &flags{shard: tc.flag, shards: tc.count, runID: tc.flagID}
			got, warn, err := f.shardFlags(func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "\n") {
					t.Fatalf("error %v, want one line with %q", err, tc.err)
				}
				return
			}
			if err != nil || warn != "" || got != tc.want || f.runID != tc.runID {
				t.Errorf("%+v, run id %q, %q, %v; want %+v and run id %q", got, f.runID, warn, err, tc.want, tc.runID)
			}
		})
	}
}

// folderState is each file below dir (its journals too) by name: its
// bytes and modification time.
func folderState(t *testing.T, dir string) map[string]string {
	t.Helper()
	state := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, e os.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		info, err := e.Info()
		if err != nil {
			return err
		}
		data, err := os.ReadFile(p)
		state[p] = info.ModTime().String() + "\n" + string(data)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return state
}

// changed names the files of before and after that differ.
func changed(before, after map[string]string) []string {
	var names []string
	for name, was := range before {
		if now, ok := after[name]; !ok || now != was {
			names = append(names, filepath.Base(name))
		}
	}
	for name := range after {
		if _, ok := before[name]; !ok {
			names = append(names, filepath.Base(name))
		}
	}
	slices.Sort(names)
	return names
}

// A shard run again after it finished, as a retried pod or a requeued
// array task runs it (the same command, the same run id), asks nothing,
// says its parts are current, exits 0 and writes nothing. A shard of the
// same run id split another way (--shard K/3 where the run is in 2) is
// refused before anything is asked, naming the part it would sit beside.
func TestFinishedShardRunAgain(t *testing.T) {
	dir := t.TempDir()
	sheets := shardSheets(t, dir, 6)
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 100,
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "A1"} }})
	out := filepath.Join(dir, "out")
	args := func(shard string) []string {
		return []string{"-d", sheets, "-m", "openai-api/local/a", "--base-url", srv.URL, "-o", out, "--run-id", "job1", "--shard", shard}
	}
	var stderr bytes.Buffer
	for _, k := range []string{"1/2", "2/2"} {
		if err := run(context.Background(), io.Discard, &stderr, args(k)); err != nil {
			t.Fatalf("shard %s: %v\n%s", k, err, stderr.String())
		}
	}
	before, asked := folderState(t, out), srv.Count()
	time.Sleep(10 * time.Millisecond) // a file written again would show a later time
	stderr.Reset()
	if err := run(context.Background(), io.Discard, &stderr, args("2/2")); err != nil {
		t.Fatalf("shard 2/2 run again: %v\n%s", err, stderr.String())
	}
	if n := srv.Count() - asked; n != 0 {
		t.Errorf("shard 2/2 run again asked %d questions, want none", n)
	}
	if !strings.Contains(stderr.String(), "nothing written") {
		t.Errorf("shard 2/2 run again does not say its parts are current:\n%s", stderr.String())
	}
	if diff := changed(before, folderState(t, out)); len(diff) > 0 {
		t.Errorf("shard 2/2 run again changed %v", diff)
	}

	stderr.Reset()
	err := run(context.Background(), io.Discard, &stderr, args("1/3"))
	want := "-job1-shard1of2.json exists, a part of this run id's output in 2 shards; this run is in 3"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Errorf("shard 1/3 of a run in 2: %v, want one line with %q", err, want)
	}
	if n := srv.Count() - asked; n != 0 {
		t.Errorf("shard 1/3 of a run in 2 asked %d questions, want none", n)
	}
	if diff := changed(before, folderState(t, out)); len(diff) > 0 {
		t.Errorf("shard 1/3 of a run in 2 changed %v", diff)
	}

	// The sheet edited since: the part is not current, and what would
	// be asked would be written over the earlier run's part.
	one := filepath.Join(sheets, "input-one.md")
	data, err := os.ReadFile(one)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(one, bytes.ReplaceAll(data, []byte("ask "), []byte("now ask ")), 0o644); err != nil {
		t.Fatal(err)
	}
	before = folderState(t, out)
	stderr.Reset()
	err = run(context.Background(), io.Discard, &stderr, args("2/2"))
	want = "-job1-shard2of2.json exists, from an earlier run of this shard, and 4 of its questions would be asked again"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("shard 2/2 after an edit: %v, want %q", err, want)
	}
	if n := srv.Count() - asked; n != 0 {
		t.Errorf("shard 2/2 after an edit asked %d questions, want none", n)
	}
	if diff := changed(before, folderState(t, out)); len(diff) > 0 {
		t.Errorf("shard 2/2 after an edit changed %v", diff)
	}
}
