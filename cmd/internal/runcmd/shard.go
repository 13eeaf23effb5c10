package runcmd

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/harness"
)

// Where a run learns its shard without --shard: a Kubernetes Indexed Job
// sets JobIndexEnv in each of its pods (0 to completions-1), and the
// count comes from --shards or ShardsEnv.
const (
	JobIndexEnv = "JOB_COMPLETION_INDEX"
	ShardsEnv   = "EVALMD_SHARDS"
)

// shardOf is the run's shard: --shard K/N, else the index of a Kubernetes
// Indexed Job's pod (JobIndexEnv, from 0) with the count from --shards or
// ShardsEnv, else the whole run. An index without a count runs the whole
// run, with the warning returned; a count without an index is a usage
// error, as is a count --shard contradicts.
func shardOf(flagShard string, flagCount int, getenv func(string) string) (harness.Shard, string, error) {
	if flagCount < 0 {
		return harness.Shard{}, "", cli.Usagef("--shards %d: give the number of shards, at least 1", flagCount)
	}
	count := flagCount
	if v := strings.TrimSpace(getenv(ShardsEnv)); v != "" && count == 0 {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return harness.Shard{}, "", cli.Usagef("%s=%q: give the number of shards, at least 1", ShardsEnv, v)
		}
		count = n
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
	index := strings.TrimSpace(getenv(JobIndexEnv))
	switch {
	case index == "" && count == 0:
		return harness.Shard{}, "", nil
	case index == "":
		return harness.Shard{}, "", cli.Usagef("%d shards and no shard index: give --shard K/N, or run in a Kubernetes Indexed Job (which sets %s in each pod)", count, JobIndexEnv)
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
