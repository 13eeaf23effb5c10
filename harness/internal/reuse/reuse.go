// Package reuse finds, for the questions a run is about to ask, the answers
// earlier runs got to the very same requests, so that rerunning after an
// edit asks only the questions whose request changed (run --fresh asks
// them all).
//
// Every question a run writes records its request's Key (the output's
// request_key). The earlier outputs of the same sheet and model in the
// folder a run writes to are its Index: a question whose key one of them
// recorded with an answer takes that answer, marked with the file it came
// from (reused_from), and is graded again by the run against the ground
// truth the sheet holds now. Files without keys (LIME's, evalmd's from
// before keys were recorded) are never reused from; neither are errors,
// questions the model had no answer to, nor dry runs.
//
// A reused answer is the same sample as the one it came from: an output
// the run would only repeat is not written (Repeats), and the earlier
// outputs the new one supersedes are put aside (Supersedes), so a folder
// holds each answer once.
package reuse

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
)

// Based is a model whose answer depends on more than the task it is put:
// the offline built-ins answer from their own options (mock's reply,
// random's seed) or a file (replay's lines). ReuseBasis says what its
// answer to q depends on besides the task; Key covers it.
type Based interface {
	ReuseBasis(q model.QuestionRef) string
}

// Key is the reuse key of t put to m: runner.RequestKey (the model, its
// server, everything sent, and the question for a model that answers from
// it, Info.FromQuestion: the oracle's key covers the ground truth), and
// for a Based model what else its answer depends on. It is "" when an
// answer of m cannot be reused: an offline model that answers from neither
// the request nor the question and does not say from what.
func Key(m model.Model, t model.Task) string {
	info := m.Info()
	key := runner.RequestKey(m.Name(), info, t)
	b, ok := m.(Based)
	switch {
	case ok:
		h := sha256.New()
		fmt.Fprintf(h, "%s\x00%s", key, b.ReuseBasis(t.Question))
		return hex.EncodeToString(h.Sum(nil))
	case info.Offline && !info.FromQuestion:
		return ""
	}
	return key
}

// Index holds the answers of earlier output files by request key.
type Index struct {
	byKey map[string]answer
	// Files are the earlier output files read, Skipped those that could
	// not be (each with the reason; they are left out, not fatal).
	Files   []string
	Skipped []string
	// Earlier are the earlier outputs in the folder itself (not those
	// superseded), oldest first: the run's output may repeat one
	// (Repeats) or supersede some (Supersedes).
	Earlier []Earlier
}

// Earlier is an earlier output of a sheet and model.
type Earlier struct {
	Path string
	File *result.File
}

// answer is an answered question of an earlier output and its file.
type answer struct {
	q    *result.Question
	file string
}

// Load indexes the earlier outputs of the sheet at sheetPath on the model
// named modelName in dir and in its result.Superseded folder (an answer
// put aside is still an answer: a question edited and edited back is not
// asked again): the files result.FileName names for them, with any run
// id, whose model is modelName and that are no dry run. skip is a file
// left out (the output the run itself writes, when it resumes). A newer
// file's answer wins over an older one's, by the time its run started.
func Load(dir, sheetPath, modelName, skip string) (*Index, error) {
	ix := &Index{byKey: map[string]answer{}}
	current, err := list(dir, sheetPath, modelName, skip, ix)
	if err != nil {
		return nil, err
	}
	aside, err := list(filepath.Join(dir, result.Superseded), sheetPath, modelName, skip, ix)
	if err != nil {
		return nil, err
	}
	files := append(current, aside...)
	// Oldest first, so a newer answer to a key replaces an older one.
	sort.SliceStable(files, func(i, j int) bool { return files[i].before(files[j]) })
	for _, fd := range files {
		ix.Files = append(ix.Files, fd.path)
		for i := range fd.f.Questions {
			q := &fd.f.Questions[i]
			if q.RequestKey == "" || q.Error != nil || q.Unanswered || q.Completion == nil {
				continue
			}
			ix.byKey[q.RequestKey] = answer{q, filepath.Base(fd.path)}
		}
	}
	sort.SliceStable(current, func(i, j int) bool { return current[i].before(current[j]) })
	for _, fd := range current {
		ix.Earlier = append(ix.Earlier, Earlier{fd.path, fd.f})
	}
	return ix, nil
}

// found is an earlier output read.
type found struct {
	path    string
	f       *result.File
	written time.Time // runs started in one second are ordered by it
}

// before says whether a's run started before b's.
func (a found) before(b found) bool {
	at, aok := a.f.Sheet.StartTime()
	bt, bok := b.f.Sheet.StartTime()
	if aok && bok && !at.Equal(bt) {
		return at.Before(bt)
	}
	return a.written.Before(b.written)
}

// list reads the earlier outputs of the sheet and model in dir (none when
// dir is missing); files it cannot read are added to ix.Skipped.
func list(dir, sheetPath, modelName, skip string, ix *Index) ([]found, error) {
	base := strings.TrimSuffix(result.FileName(sheetPath, modelName, ""), ".json")
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("earlier outputs: %w", err)
	}
	var files []found
	for _, e := range entries {
		name := e.Name()
		if !e.Type().IsRegular() || !strings.HasSuffix(name, ".json") ||
			name != base+".json" && !strings.HasPrefix(name, base+"-") {
			continue
		}
		path := filepath.Join(dir, name)
		if skip != "" && sameFile(path, skip) {
			continue
		}
		f, err := result.Read(path)
		if err != nil {
			ix.Skipped = append(ix.Skipped, err.Error())
			continue
		}
		// Another model's file whose name shares the prefix ("gpt-4" and
		// "gpt-4-turbo"), or another sheet's: the model name tells; the
		// keys would never match anyway.
		if f.Sheet.ModelName != modelName || f.Sheet.DryRun {
			continue
		}
		fd := found{path: path, f: f}
		if info, err := e.Info(); err == nil {
			fd.written = info.ModTime()
		}
		files = append(files, fd)
	}
	return files, nil
}

// sameFile says whether a and b name one file (b need not exist).
func sameFile(a, b string) bool {
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	sa, err1 := os.Stat(a)
	sb, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(sa, sb)
}

// Empty says the index holds no answer and no earlier output: a run
// with nothing to reuse, compare or supersede.
func (ix *Index) Empty() bool { return ix == nil || len(ix.byKey) == 0 && len(ix.Earlier) == 0 }

// Grading is the grading mode, and where it was set, of the earlier
// answer whose request key is key ("", "" when there is none or it was
// graded in the default mode).
func (ix *Index) Grading(key string) (mode, from string) {
	if ix == nil {
		return "", ""
	}
	a := ix.byKey[key]
	if a.q == nil {
		return "", ""
	}
	return a.q.Grading, a.q.GradingFrom
}

// Fill gives q, a question about to be asked whose RequestKey is set, the
// answer an earlier output recorded under that key, and says whether there
// was one. What the run planned (name, meta, ground truth, prompt,
// settings, grader, key, place in a shard's part) stays q's; everything the answer brought
// (completion, tokens, cost, time, the model that served it, code and
// agent work, members this evalmd does not know) is the earlier
// question's; the grade is cleared, for the run to grade again, in the
// grading mode planned, or the one a flag gave the answer when no
// source sets one now (result.Question.SetGrading). ReusedFrom names the file whose run asked
// the model: an answer reused twice keeps its first source.
func (ix *Index) Fill(q *result.Question) bool {
	if ix == nil || q.RequestKey == "" {
		return false
	}
	a, ok := ix.byKey[q.RequestKey]
	if !ok {
		return false
	}
	n := *a.q
	n.Name, n.MetaData, n.GroundTruth, n.Question, n.ModelName = q.Name, q.MetaData, q.GroundTruth, q.Question, q.ModelName
	n.QuestionUsr, n.System, n.Settings, n.SolveSettings, n.Grader = q.QuestionUsr, q.System, q.Settings, q.SolveSettings, q.Grader
	n.Grade, n.GradeDetail, n.SubAnswers, n.Judge = nil, "", nil, nil
	n.SetGrading(q.Grading, q.GradingFrom)
	n.RequestKey, n.Position = q.RequestKey, q.Position
	if n.ReusedFrom == "" {
		n.ReusedFrom = a.file
	}
	*q = n
	return true
}
