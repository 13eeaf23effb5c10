package result

// This file is the names of output files: of a sheet's run, an
// epoch's and a shard's, and the checks of what goes into them.

import (
	"fmt"
	"path/filepath"
	"strings"
)

// FileName is the output file name for a sheet file, a model and a run id:
// output-<sheet>-<model>-<run_id>.json, where <sheet> is the sheet's file
// name without "input" and ".md" (LIME: input-rules-qa-1.md -> rules-qa-1)
// and the model name is made file-safe.
//
// With an empty run id the name ends at the model, as LIME's -u 0 does. A
// run id CheckRunID refuses is made file-safe like the model name, so no
// run id names another folder.
func FileName(sheetPath, modelName, runID string) string {
	base := filepath.Base(sheetPath)
	base = strings.TrimSuffix(base, ".md")
	base = strings.TrimPrefix(base, "input")
	base = strings.TrimLeft(base, "-_")
	name := "output-" + strings.Map(windowsSafe, base) + "-" + SafeName(modelName)
	if runID != "" {
		name += "-" + SafeName(strings.ReplaceAll(runID, "..", "__"))
	}
	return name + ".json"
}

// MaxEpochs bounds a run's epochs.
const MaxEpochs = 10000

// CheckEpoch says what is wrong with a file's epoch and epochs members (0
// for absent), or nil: both absent, or 1 <= epoch <= epochs <= MaxEpochs
// with epochs of 2 or more.
func CheckEpoch(epoch, epochs int) error {
	switch {
	case epoch == 0 && epochs == 0:
		return nil
	case epochs == 0:
		return fmt.Errorf("epoch %d without epochs", epoch)
	case epochs < 2 || epochs > MaxEpochs:
		return fmt.Errorf("epochs %d: 2 to %d (a run of one epoch has neither member)", epochs, MaxEpochs)
	case epoch < 1 || epoch > epochs:
		return fmt.Errorf("epoch %d of %d: 1 to %d", epoch, epochs, epochs)
	}
	return nil
}

// EpochName is the file name of epoch k of an n-epoch run whose single
// file would be name (FileName's): "-epoch<k>" before ".json", so the
// epochs of one run id sit side by side. With n <= 1 it is name.
func EpochName(name string, k, n int) string {
	if n <= 1 {
		return name
	}
	return strings.TrimSuffix(name, ".json") + fmt.Sprintf("-epoch%d.json", k)
}

// ShardName is the file name of shard k of an n-shard run whose single
// file would be name (FileName's, EpochName's): "-shard<k>of<n>" before
// ".json", so the shards of one run sit side by side and never collide
// in one folder. With n < 1 it is name.
func ShardName(name string, k, n int) string {
	if n < 1 {
		return name
	}
	return strings.TrimSuffix(name, ".json") + fmt.Sprintf("-shard%dof%d.json", k, n)
}

// CheckShard says what is wrong with a file's shard and shards members
// (0 for absent), or nil: both absent, or 1 <= shard <= shards <=
// MaxShards.
func CheckShard(shard, shards int) error {
	switch {
	case shard == 0 && shards == 0:
		return nil
	case shards < 1 || shards > MaxShards:
		return fmt.Errorf("shards %d: 1 to %d", shards, MaxShards)
	case shard < 1 || shard > shards:
		return fmt.Errorf("shard %d of %d: 1 to %d", shard, shards, shards)
	}
	return nil
}

// MaxShards bounds a run's shards.
const MaxShards = 10000

// CheckRunID accepts a run id made of letters, digits, "-", "_" and "."
// (not first), at most 64 of them: LIME's hex ids and anything a person
// would type, never a path.
func CheckRunID(id string) error {
	if len(id) > 64 {
		return fmt.Errorf("run id %.20q...: longer than 64 characters", id)
	}
	for i, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' && i > 0
		if !ok {
			return fmt.Errorf("run id %q: only letters, digits, -, _ and . (not first) are allowed", id)
		}
	}
	return nil
}

// SafeName makes a model name usable in a file name: " " and what
// windowsSafe replaces become "_" ("replay:r.jsonl" -> "replay_r.jsonl").
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' {
			return '_'
		}
		return windowsSafe(r)
	}, s)
}

// windowsSafe turns a character no Windows file name may hold (<>:"/\|?*
// and control characters) into "_", so that an output folder copied to or
// written on Windows keeps every file. A name FileName makes starts with
// "output-" and ends with ".json", so it is never a reserved name (CON,
// NUL, COM1) nor ends with a dot or space.
func windowsSafe(r rune) rune {
	if r < 0x20 || r == 0x7f || strings.ContainsRune(`<>:"/\|?*`, r) {
		return '_'
	}
	return r
}
