package runcmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/result"
)

// Where a run learns its shard without --shard: a Kubernetes Indexed Job
// sets JobIndexEnv in each of its pods (0 to completions-1), and the
// count comes from --shards or ShardsEnv; a Slurm job array sets the
// Slurm variables below in each of its tasks.
const (
	JobIndexEnv = "JOB_COMPLETION_INDEX"
	ShardsEnv   = "EVALMD_SHARDS"

	SlurmTaskEnv  = "SLURM_ARRAY_TASK_ID"
	SlurmMinEnv   = "SLURM_ARRAY_TASK_MIN"
	SlurmMaxEnv   = "SLURM_ARRAY_TASK_MAX"
	SlurmCountEnv = "SLURM_ARRAY_TASK_COUNT"
	SlurmStepEnv  = "SLURM_ARRAY_TASK_STEP"
	SlurmJobEnv   = "SLURM_ARRAY_JOB_ID"
)

// shardFlags reads the run's shard (shardOf) and, for a shard a Slurm
// array names, takes the array's job id as the run id unless --run-id
// gave one: every task of the array shares it, a requeued task keeps it
// (and so resumes its journal), and the next array is a run of its own.
func (f *flags) shardFlags(getenv func(string) string) (harness.Shard, string, error) {
	sh, warning, err := shardOf(f.shard, f.shards, getenv)
	if err == nil && f.runID == "" && f.shard == "" && strings.TrimSpace(getenv(SlurmTaskEnv)) != "" {
		if job := strings.TrimSpace(getenv(SlurmJobEnv)); job != "" {
			if err := result.CheckRunID("slurm-" + job); err != nil {
				return sh, "", cli.Usagef("%s=%q: not a Slurm job id (%v); --run-id ID names the run", SlurmJobEnv, job, err)
			}
			f.runID = "slurm-" + job
		}
	}
	return sh, warning, err
}

// shardOf is the run's shard. One rule decides it: --shard K/N when
// given, whatever the environment says; else what the environment of a
// Kubernetes Indexed Job's pod (JobIndexEnv, from 0, with the count from
// --shards or ShardsEnv) or of a Slurm array's task (slurmShard) names,
// and where both are set they must name the same shard; else the whole
// run. An index without a count runs the whole run, with the warning
// returned; a count without an index is a usage error, as is a count
// --shard or the Slurm array contradicts.
func shardOf(flagShard string, flagCount int, getenv func(string) string) (harness.Shard, string, error) {
	if flagCount < 0 {
		return harness.Shard{}, "", cli.Usagef("--shards %d: give the number of shards, at least 1", flagCount)
	}
	count, countFrom := flagCount, fmt.Sprintf("--shards %d", flagCount)
	if v := strings.TrimSpace(getenv(ShardsEnv)); v != "" && count == 0 {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return harness.Shard{}, "", cli.Usagef("%s=%q: give the number of shards, at least 1", ShardsEnv, v)
		}
		count, countFrom = n, fmt.Sprintf("%s=%d", ShardsEnv, n)
	}
	if flagShard != "" {
		sh, err := harness.ParseShard(flagShard)
		if err != nil {
			return sh, "", cli.Usagef("%v", err)
		}
		if flagCount != 0 && flagCount != sh.N {
			return harness.Shard{}, "", cli.Usagef("--shard %s and --shards %d: give one", flagShard, flagCount)
		}
		return sh, "", nil
	}
	slurm, err := slurmShard(getenv)
	if err != nil {
		return harness.Shard{}, "", err
	}
	if !slurm.IsZero() {
		if count != 0 && count != slurm.N {
			return harness.Shard{}, "", cli.Usagef("%s=%d and %s: the array's tasks are the shards; give one number", SlurmCountEnv, slurm.N, countFrom)
		}
		if strings.TrimSpace(getenv(JobIndexEnv)) == "" {
			return slurm, "", nil
		}
		count = slurm.N
	}
	kube, warning, err := jobShard(count, getenv)
	if err != nil || slurm.IsZero() {
		return kube, warning, err
	}
	if !kube.IsZero() && kube != slurm {
		return harness.Shard{}, "", cli.Usagef("%s=%s (shard %d/%d) and %s=%s (shard %d/%d) name two shards: give --shard K/N",
			JobIndexEnv, strings.TrimSpace(getenv(JobIndexEnv)), kube.K, kube.N, SlurmTaskEnv, strings.TrimSpace(getenv(SlurmTaskEnv)), slurm.K, slurm.N)
	}
	return slurm, "", nil
}

// jobShard is the shard of a Kubernetes Indexed Job's pod: JobIndexEnv
// (from 0) of count shards.
func jobShard(count int, getenv func(string) string) (harness.Shard, string, error) {
	index := strings.TrimSpace(getenv(JobIndexEnv))
	switch {
	case index == "" && count == 0:
		return harness.Shard{}, "", nil
	case index == "":
		return harness.Shard{}, "", cli.Usagef("%d shards and no shard index: give --shard K/N, or run in a Kubernetes Indexed Job (which sets %s in each pod) or a Slurm job array (%s)", count, JobIndexEnv, SlurmTaskEnv)
	case count == 0:
		return harness.Shard{}, fmt.Sprintf("warning: %s=%s is set (a Kubernetes Indexed Job) but no number of shards: this pod asks every question; --shards N (the Job's completions) or %s=N splits the run", JobIndexEnv, index, ShardsEnv), nil
	}
	i, err := strconv.Atoi(index)
	if err != nil || i < 0 || i >= count {
		return harness.Shard{}, "", cli.Usagef("%s=%q: a shard index from 0 to %d (of %d shards) was expected", JobIndexEnv, index, count-1, count)
	}
	sh := harness.Shard{K: i + 1, N: count}
	if err := sh.Check(); err != nil {
		return harness.Shard{}, "", cli.Usagef("%s=%s of %d shards: %v", JobIndexEnv, index, count, err)
	}
	return sh, "", nil
}

// slurmShard is the shard of a Slurm array's task (sbatch --array=A-B):
// SLURM_ARRAY_TASK_ID minus SLURM_ARRAY_TASK_MIN, plus 1, of
// SLURM_ARRAY_TASK_COUNT, so an array may start at 0, 1 or any A. A
// stepped (A-B:S) or sparse (A,B,C) array is refused: its tasks are not
// the shards 1 to N. Outside an array it is the zero Shard.
func slurmShard(getenv func(string) string) (harness.Shard, error) {
	task := strings.TrimSpace(getenv(SlurmTaskEnv))
	if task == "" {
		return harness.Shard{}, nil
	}
	var n [3]int
	for i, name := range []string{SlurmTaskEnv, SlurmMinEnv, SlurmCountEnv} {
		v := strings.TrimSpace(getenv(name))
		var err error
		if n[i], err = strconv.Atoi(v); err != nil || n[i] < 0 {
			return harness.Shard{}, cli.Usagef("%s=%q in a Slurm array task: a whole number was expected (Slurm sets %s, %s and %s in each task of sbatch --array)", name, v, SlurmTaskEnv, SlurmMinEnv, SlurmCountEnv)
		}
	}
	id, lo, count := n[0], n[1], n[2]
	write := fmt.Sprintf("submit one task a shard, --array=0-%d", max(count, 1)-1)
	if step := strings.TrimSpace(getenv(SlurmStepEnv)); step != "" && step != "1" {
		return harness.Shard{}, cli.Usagef("%s=%s: a stepped array's tasks are not shards 1 to N: %s", SlurmStepEnv, step, write)
	}
	if hi := strings.TrimSpace(getenv(SlurmMaxEnv)); hi != "" && hi != strconv.Itoa(lo+count-1) {
		return harness.Shard{}, cli.Usagef("%s=%d, %s=%s and %s=%d: a sparse array's tasks are not shards 1 to N: %s", SlurmMinEnv, lo, SlurmMaxEnv, hi, SlurmCountEnv, count, write)
	}
	if id < lo || id >= lo+count {
		return harness.Shard{}, cli.Usagef("%s=%d: not a task of an array of %d from %d", SlurmTaskEnv, id, count, lo)
	}
	sh := harness.Shard{K: id - lo + 1, N: count}
	if err := sh.Check(); err != nil {
		return harness.Shard{}, cli.Usagef("%s=%d of %d tasks: %v", SlurmTaskEnv, id, count, err)
	}
	return sh, nil
}
