package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/result"
)

// The shard comes from --shard, else from a Kubernetes Indexed Job's
// JOB_COMPLETION_INDEX (from 0) and a count from --shards or
// EVALMD_SHARDS; what does not add up is a usage error naming the flag or
// variable.
func TestShardOf(t *testing.T) {
	for _, tc := range []struct {
		name  string
		flag  string
		count int
		env   map[string]string
		want  harness.Shard
		warn  string
		err   string
	}{
		{"none", "", 0, nil, harness.Shard{}, "", ""},
		{"--shard", "2/4", 0, nil, harness.Shard{K: 2, N: 4}, "", ""},
		{"--shard over the Job's index", "2/4", 0, map[string]string{JobIndexEnv: "0", ShardsEnv: "3"}, harness.Shard{K: 2, N: 4}, "", ""},
		{"--shard and the same --shards", "2/4", 4, nil, harness.Shard{K: 2, N: 4}, "", ""},
		{"--shard and another --shards", "2/4", 3, nil, harness.Shard{}, "", "--shard 2/4 and --shards 3"},
		{"a bad --shard", "4/2", 0, nil, harness.Shard{}, "", "--shard 4/2: shard 4 of 2"},
		{"the Job's index and --shards", "", 4, map[string]string{JobIndexEnv: "0"}, harness.Shard{K: 1, N: 4}, "", ""},
		{"the Job's last index", "", 4, map[string]string{JobIndexEnv: "3"}, harness.Shard{K: 4, N: 4}, "", ""},
		{"the Job's index and EVALMD_SHARDS", "", 0, map[string]string{JobIndexEnv: "2", ShardsEnv: "3"}, harness.Shard{K: 3, N: 3}, "", ""},
		{"--shards over EVALMD_SHARDS", "", 5, map[string]string{JobIndexEnv: "4", ShardsEnv: "3"}, harness.Shard{K: 5, N: 5}, "", ""},
		{"an index past the count", "", 4, map[string]string{JobIndexEnv: "4"}, harness.Shard{}, "", "JOB_COMPLETION_INDEX=\"4\": a shard index from 0 to 3"},
		{"an index not a number", "", 4, map[string]string{JobIndexEnv: "x"}, harness.Shard{}, "", "JOB_COMPLETION_INDEX=\"x\""},
		{"a bad EVALMD_SHARDS", "", 0, map[string]string{JobIndexEnv: "0", ShardsEnv: "zero"}, harness.Shard{}, "", "EVALMD_SHARDS=\"zero\""},
		{"a count without an index", "", 4, nil, harness.Shard{}, "", "4 shards and no shard index"},
		{"a negative --shards", "", -1, nil, harness.Shard{}, "", "--shards -1"},
		{"an index without a count", "", 0, map[string]string{JobIndexEnv: "1"}, harness.Shard{}, "asks every question", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, warn, err := shardOf(tc.flag, tc.count, func(k string) string { return tc.env[k] })
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want || !strings.Contains(warn, tc.warn) || (tc.warn == "") != (warn == "") {
				t.Errorf("%+v, %q, %v; want %+v and a warning with %q", got, warn, err, tc.want, tc.warn)
			}
		})
	}
}

// shardSheets writes two sheets below dir/sheets (one in a subfolder), of
// n questions each, answer "A<i>", and returns the folder.
func shardSheets(t *testing.T, dir string, n int, meta ...string) string {
	t.Helper()
	root := filepath.Join(dir, "sheets")
	for _, s := range []string{"input-one.md", filepath.Join("sub", "input-two.md")} {
		var b strings.Builder
		fmt.Fprintf(&b, "# Sheet %s\n#### meta\n- grader: exact\n", filepath.Base(s))
		for _, m := range meta {
			b.WriteString("- " + m + "\n")
		}
		for i := 1; i <= n; i++ {
			fmt.Fprintf(&b, "## Q%d\n#### question\nask %s Q%d\n#### answer\nA%d\n", i, filepath.Base(s), i, i)
		}
		path := filepath.Join(root, s)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Three shards run one after another into one folder write each output
// in three parts under one run id, every question in one part, each part
// holding its questions' places in the sheet; each shard's journal is
// gone once it is done.
func TestShardsWriteParts(t *testing.T) {
	dir := t.TempDir()
	sheets := shardSheets(t, dir, 12)
	out := filepath.Join(dir, "out")
	for k := 1; k <= 3; k++ {
		var stdout, stderr bytes.Buffer
		args := []string{"-d", sheets, "-m", "oracle,mock", "-o", out, "--shard", fmt.Sprintf("%d/3", k)}
		if err := run(context.Background(), &stdout, &stderr, args); err != nil {
			t.Fatalf("shard %d: %v\n%s", k, err, stderr.String())
		}
	}
	paths, err := result.Find(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(paths) != 2*2*3 {
		t.Fatalf("%d outputs, want 2 sheets x 2 models x 3 shards: %v", len(paths), paths)
	}
	runIDs := map[string]bool{}
	asked := map[string]int{}
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		sh := f.Sheet
		runIDs[sh.RunID] = true
		want := result.ShardName(result.FileName(sh.SheetFile, sh.ModelName, sh.RunID), sh.Shard, 3)
		if filepath.Base(p) != want || sh.Shards != 3 {
			t.Errorf("%s: shard %d of %d, want the name %s", p, sh.Shard, sh.Shards, want)
		}
		for _, q := range f.Questions {
			if q.Position != atoi(t, strings.TrimPrefix(q.Name, "Q")) {
				t.Errorf("%s %s: position %d", p, q.Name, q.Position)
			}
			asked[sh.ModelName+" "+sh.Name+" "+q.Name]++
		}
	}
	if len(runIDs) != 1 {
		t.Errorf("run ids %v, want one", runIDs)
	}
	if len(asked) != 2*2*12 {
		t.Errorf("%d questions asked, want 48", len(asked))
	}
	for q, n := range asked {
		if n != 1 {
			t.Errorf("%s in %d parts", q, n)
		}
	}
	if left, _ := filepath.Glob(filepath.Join(out, ".evalmd-run-*")); len(left) > 0 {
		t.Errorf("journals left: %v", left)
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	var n int
	if _, err := fmt.Sscan(s, &n); err != nil {
		t.Fatalf("%q: %v", s, err)
	}
	return n
}
