package harness

import (
	"path/filepath"
	"strings"
	"testing"
)

// Each shard of a run has its own journal, beside its siblings', and
// every shard of a run names its outputs with one run id, made from the
// run alone; another number of shards, or a run id given, is another run.
func TestShardJournalsAndRunID(t *testing.T) {
	base := Config{Sheets: []string{"s.md"}, Models: []string{"m1", "m2"}, OutDir: "out", RunIDLen: 4}
	whole, _ := ResumeFiles(base)
	journals := map[string]bool{whole: true}
	ids := map[string]bool{}
	for k := 1; k <= 4; k++ {
		cfg := base
		cfg.Shard = Shard{K: k, N: 4}
		j, st := ResumeFiles(cfg)
		if journals[j] {
			t.Errorf("shard %d/4 shares a journal: %s", k, j)
		}
		journals[j] = true
		want := strings.TrimSuffix(whole, ".journal") + "-shard" + string(rune('0'+k)) + "of4"
		if j != want+".journal" || st != want+".run" {
			t.Errorf("shard %d/4: journal %s and state %s, want %s.journal and .run", k, j, st, want)
		}
		id, err := cfg.newRunID()
		if err != nil || len(id) != 4 {
			t.Errorf("shard %d/4: run id %q, %v", k, id, err)
		}
		ids[id] = true
	}
	if len(ids) != 1 {
		t.Errorf("the shards of one run took run ids %v, want one", ids)
	}
	other := base
	other.Shard = Shard{K: 1, N: 3}
	if id, _ := other.newRunID(); ids[id] {
		t.Errorf("3 shards take the run id of 4: %s", id)
	}
	moved := base
	moved.Shard = Shard{K: 1, N: 4}
	moved.Models = []string{"m2", "m1"} // the same run, named in another order
	if id, _ := moved.newRunID(); !ids[id] {
		t.Errorf("the models in another order change the run id: %s", id)
	}
	given := base
	given.Shard, given.RunID = Shard{K: 1, N: 4}, "job-7"
	if id, _ := given.newRunID(); id != "job-7" {
		t.Errorf("--run-id job-7 gave run id %q", id)
	}
	if j, _ := ResumeFiles(given); journals[j] || filepath.Dir(j) != "out" {
		t.Errorf("a run id given keeps the journal %s of the run without it", j)
	}
}

// A shard writes its part of each run; the Inspect log of a run is
// written where the parts meet (agg --log-dir), not by a shard.
func TestShardRefusesLogDir(t *testing.T) {
	_, err := Run(t.Context(), Config{Sheets: []string{"s.md"}, Models: []string{"mock"}, DryRun: true, LogDir: t.TempDir(), Shard: Shard{K: 1, N: 2}})
	if err == nil || !strings.Contains(err.Error(), "agg -i FOLDER --log-dir") {
		t.Errorf("run --shard --log-dir: %v", err)
	}
	_, err = Run(t.Context(), Config{Sheets: []string{"s.md"}, Models: []string{"mock"}, DryRun: true, Shard: Shard{K: 3, N: 2}})
	if err == nil || !strings.Contains(err.Error(), "shard 3 of 2") {
		t.Errorf("run shard 3/2: %v", err)
	}
}
