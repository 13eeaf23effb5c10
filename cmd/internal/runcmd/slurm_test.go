package runcmd

import (
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/harness"
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
