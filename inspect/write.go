package inspect

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// LogOptions say what an output file does not: its task name, when it was
// made, how the run ended.
type LogOptions struct {
	// Task is the task name; empty means the sheet file's name without
	// "input" and ".md" (as output files are named), else the sheet's name.
	Task string
	// Created is the time the run started, for output files that do not
	// record it (LIME's). Zero means now.
	Created time.Time
	// Status is the log status: "success" (the default), "started" (a run
	// still going), "cancelled" or "error".
	Status string // a dry run's output file defaults to "cancelled"
	// Error is the message of the error that halted the run, for status
	// "error".
	Error string
	// Version is this tool's version, recorded in eval.packages.
	Version string
	// Settings are the generation settings of the run (the log's
	// model_generate_config); nil means the ones the output file records
	// for the run, else those the sheet's meta sets (LIME's files).
	// Questions sent other settings have theirs in sample metadata.
	Settings *model.Settings
	// Format is the log file format: FormatEval (the default, "") or
	// FormatJSON.
	Format string
	// IncludeDryRuns makes WriteLogsFor log dry runs' output files too
	// (as cancelled evals); by default it leaves them out, as agg does.
	IncludeDryRuns bool
	// Force writes over a log evalmd did not write or that was changed
	// since (see internal/outfile).
	Force bool
	// Warn, when not nil, is told in a line naming the log each figure
	// left out of it: a total the output files' numbers cannot make (each
	// a number, their sum past the largest float).
	Warn io.Writer
}

// scorerDefault names the scorer of questions graded without a recorded
// grader: LIME's output files, graded by LIME's only rule.
const scorerDefault = "lime"

// WriteLog writes the Inspect log of one output file (one run of one model
// on one sheet) into dir, creating dir if needed, and returns its path. The
// file is named as Inspect names its logs, so Inspect's log listing parses
// task and id from the name; writing the same output file again replaces
// the same log. opt.Format chooses .eval (the default) or .json.
func WriteLog(dir string, f *result.File, opt LogOptions) (string, error) {
	return WriteRunLog(dir, []*result.File{f}, opt)
}

// RunLogName is the name WriteRunLog gives the log of a run, in format
// (FormatEval when ""): any of the run's epoch files names it.
func RunLogName(f *result.File, format string) (string, error) {
	lg, err := buildRunLog([]*result.File{f}, LogOptions{Format: format})
	if err != nil {
		return "", err
	}
	return logFileName(lg.Eval, format), nil
}

// WriteRunLog writes the Inspect log of a run of several epochs (its
// output files, one per epoch, of one sheet, model and run id) as Inspect
// writes an eval of N epochs: "epochs": N in its config, one sample per
// question and epoch ("epoch": k), each question's scores reduced over
// its epochs by the mean (the log's reductions) and each scorer's metrics
// over those, the reducer named in both. One file is WriteLog's log.
func WriteRunLog(dir string, files []*result.File, opt LogOptions) (string, error) {
	if err := CheckFormat(opt.Format); err != nil {
		return "", fmt.Errorf("inspect log: %w", err)
	}
	if len(files) == 0 {
		return "", fmt.Errorf("inspect log: no output file")
	}
	f := files[0]
	lg, err := buildRunLog(files, opt)
	if err != nil {
		return "", err
	}
	if err := outfile.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("inspect log dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, logFileName(lg.Eval, opt.Format))
	err = outfile.WriteFunc(path, outfile.Options{Force: opt.Force}, func(w io.Writer) error {
		if opt.Format == FormatJSON {
			data, err := marshalIndent(lg)
			if err != nil {
				return err
			}
			_, err = w.Write(data)
			return err
		}
		created, err := time.Parse(time.RFC3339, lg.Eval.Created)
		if err != nil {
			return err
		}
		return writeEval(w, lg, created)
	})
	if err != nil {
		return "", fmt.Errorf("inspect log for %q: %w", f.Sheet.Name, err)
	}
	if opt.Warn != nil {
		for _, n := range lg.notes {
			fmt.Fprintf(opt.Warn, "inspect log %s: %s\n", path, n)
		}
	}
	return path, nil
}

// logFileName is the log file name Inspect gives a log in format
// (FormatEval when ""): <created>_<task>_<task id>.eval, each part cleaned
// the way Inspect cleans them ("_", "/", ":" and "+" become "-"), e.g.
// 2024-05-01T12-00-00-00-00_rules-qa-1_Kq3vXb7pR2mN9sT4wY6zAc.eval.
// Inspect's listing (log/_file.py) reads the task and id back by splitting
// the name on "_", and the id's own "-" would start a suffix, so neither
// may hold one; our ids never do.
func logFileName(s evalSpec, format string) string {
	ext := ".eval"
	if format == FormatJSON {
		ext = ".json"
	}
	return cleanPart(s.Created) + "_" + cleanPart(taskDisplay(s.Task)) + "_" + cleanPart(s.TaskID) + ext
}

// taskDisplay drops a registry package prefix ("pkg/task" -> "task") as
// Inspect's task_display_name does.
func taskDisplay(task string) string {
	if i := strings.LastIndexByte(task, '/'); i >= 0 && !strings.HasPrefix(task, "hf/") {
		return task[i+1:]
	}
	return task
}

// cleanPart replaces what Inspect replaces in a log name part, and also
// what no file system takes.
func cleanPart(s string) string {
	return strings.Map(func(r rune) rune {
		switch r {
		case '_', '/', ':', '+', '\\', '*', '?', '"', '<', '>', '|', ' ', '\t', '\n', '\r':
			return '-'
		}
		return r
	}, s)
}

// limitChanges turns the run's record of its adaptive limit into
// Inspect's; the start is not a change.
func limitChanges(model string, h []aimd.Change) []connectionLimitChange {
	out := []connectionLimitChange{}
	for _, c := range h {
		if c.From == 0 || c.Limit == c.From {
			continue
		}
		reason := "steady_state_up"
		if c.Limit < c.From {
			reason = "rate_limit"
		}
		out = append(out, connectionLimitChange{Timestamp: float64(c.Time.UnixNano()) / 1e9, Model: model,
			OldLimit: c.From, NewLimit: c.Limit, Reason: reason})
	}
	return out
}

// buildRunLog is the log of a run's epochs, one output file each.
func buildRunLog(files []*result.File, opt LogOptions) (*Log, error) {
	if len(files) == 0 || files[0] == nil {
		return nil, fmt.Errorf("inspect log: no output file")
	}
	files = slices.Clone(files)
	slices.SortStableFunc(files, func(a, b *result.File) int { return a.Sheet.Epoch - b.Sheet.Epoch })
	f := files[0]
	status, err := logStatus(f, opt)
	if err != nil {
		return nil, err
	}
	created, err := createdTime(f, opt)
	if err != nil {
		return nil, err
	}
	runSettings := opt.Settings
	if runSettings == nil {
		runSettings = f.Sheet.Settings
	}
	if err := checkReviews(files); err != nil {
		return nil, err
	}
	lg := newLog(files, opt, status, created, runSettings)
	t := lg.addSamples(files, runSettings)
	lg.Eval.Scorers = t.scorers.evalScorers()
	if f.Sheet.Totals != nil && f.Sheet.Totals.WallSeconds > 0 && len(files) == 1 {
		t.wall = f.Sheet.Totals.WallSeconds
	}
	lg.finish(f, opt, t, created)
	return lg, nil
}

// logStatus is the log's status: the option's, else "success", or
// "cancelled" for a dry run.
func logStatus(f *result.File, opt LogOptions) (string, error) {
	status := opt.Status
	if status == "" {
		status = "success"
		if f.Sheet.DryRun {
			// A dry run stopped before its first model call: Inspect's
			// status for an eval that ended before it finished is
			// "cancelled" (its statuses are started, success, cancelled and
			// error; "started" would list it as still running).
			status = "cancelled"
		}
	}
	switch status {
	case "started", "success", "cancelled", "error":
		return status, nil
	}
	return "", fmt.Errorf("inspect log: status %q is not one of started, success, cancelled, error", status)
}

// newLog is a run's log without its samples: the eval's spec and plan,
// from the first epoch's output file.
func newLog(files []*result.File, opt LogOptions, status string, created time.Time, runSettings *model.Settings) *Log {
	f := files[0]
	epochs := 1
	for _, e := range files {
		if _, n := e.Sheet.EpochOf(); n > epochs {
			epochs = n
		}
	}
	var subset result.Subset
	if f.Sheet.Subset != nil {
		subset = *f.Sheet.Subset
	}
	task := taskName(f, opt)
	modelName := f.Sheet.ModelName
	runID := f.Sheet.RunID
	stamp := isoTime(created)
	if runID == "" {
		runID = shortID("run", f.Sheet.Name, modelName, stamp)
	}
	gen := generateConfigOf(f.Sheet.MetaData, runSettings)
	no := false
	yes := true
	lg := &Log{
		Version: logVersion,
		Status:  status,
		Eval: evalSpec{
			EvalID:         shortID("eval", task, runID, modelName, stamp),
			RunID:          runID,
			Created:        stamp,
			Task:           task,
			TaskID:         shortID("task", task, runID, modelName, stamp),
			TaskFile:       f.Sheet.SheetFile,
			TaskAttribs:    map[string]any{},
			TaskArgs:       map[string]any{},
			TaskArgsPassed: map[string]any{},
			Solver:         "generate",
			Dataset: evalDataset{
				Name:      f.Sheet.Name,
				Location:  f.Sheet.SheetFile,
				Samples:   len(f.Questions),
				SampleIDs: append([]SampleID{}, sampleIDs(f.Questions)...),
			},
			Model:       modelName,
			ModelConfig: gen,
			ModelArgs:   map[string]any{},
			// Questions that errored are kept as samples with an error, as
			// Inspect does when errors do not fail the eval.
			Config:   evalConfig{Limit: subset.Limit, SampleID: subset.Questions, Epochs: epochs, EpochsReducer: []string{epochsReducer}, FailOnError: &no, LogSamples: &yes},
			Packages: map[string]string{"evalmd": versionOr(opt.Version)},
			Metadata: evalMetadata(f),
		},
		Plan: evalPlan{
			Name:   "plan",
			Steps:  []evalPlanStep{{Solver: "generate", Params: map[string]any{}, ParamsPassed: map[string]any{}}},
			Config: gen,
		},
		Stats: evalStats{StartedAt: stamp, ModelUsage: map[string]modelUsage{}, RoleUsage: map[string]modelUsage{},
			ConnectionLimitHistory: limitChanges(modelName, f.Sheet.ConnectionLimits)},
		Tags:     []string{},
		Metadata: map[string]any{},
	}
	for k, v := range lg.Eval.Metadata {
		lg.Metadata[k] = v
	}
	return lg
}

// sampleTally is what a log's samples add up to.
type sampleTally struct {
	usage              modelUsage
	cost               float64
	hasCost            bool
	costOverflow       bool    // the costs add up past the largest float
	wall               float64 // the sum of the questions' times
	samples, completed int
	scorers            *scoreTally
}

// addSamples adds every question of every epoch as a sample and returns
// their totals; the model's usage goes into the log's stats.
func (lg *Log) addSamples(files []*result.File, runSettings *model.Settings) sampleTally {
	t := sampleTally{scorers: newScoreTally()}
	modelName := lg.Eval.Model
	for _, e := range files {
		k, _ := e.Sheet.EpochOf()
		eids := sampleIDs(e.Questions)
		for i := range e.Questions {
			q := &e.Questions[i]
			s := buildSample(q, eids[i], i, sampleRun{model: modelName, seed: lg.Eval.TaskID, run: runSettings,
				stamp: lg.Eval.Created, gen: lg.Eval.ModelConfig, file: e, epoch: k})
			t.add(q)
			t.scorers.add(&s)
			lg.Samples = append(lg.Samples, s)
		}
	}
	t.usage.TotalTokens = t.usage.InputTokens + t.usage.OutputTokens
	if t.costOverflow {
		// A part of the sum would be no total: none is written (JSON has
		// no +Inf, and the log would not be written at all).
		t.hasCost = false
		lg.notes = append(lg.notes, "the questions' costs add up past the largest number: the total cost is left out (each question keeps its own)")
	}
	if t.hasCost {
		c := float(t.cost)
		t.usage.TotalCost = &c
	}
	if modelName != "" && (t.usage.TotalTokens > 0 || t.hasCost) {
		lg.Stats.ModelUsage[modelName] = t.usage
	}
	return t
}

// add counts one question.
func (t *sampleTally) add(q *result.Question) {
	t.samples++
	if q.Error == nil {
		t.completed++
	}
	if finite(q.EvalTime) {
		t.wall += *q.EvalTime
	}
	t.usage.InputTokens += q.InputTokens
	t.usage.OutputTokens += q.OutputTokens
	t.usage.ReasoningTokens += q.ReasoningTokens
	if finite(q.Cost) {
		if sum := t.cost + *q.Cost; !math.IsInf(sum, 0) {
			t.cost, t.hasCost = sum, true
		} else {
			t.costOverflow = true
		}
	}
}

// finish sets what the samples decide: an error status when every one
// failed, the results (of a dry run too: its samples, none scored) and
// when the run completed.
func (lg *Log) finish(f *result.File, opt LogOptions, t sampleTally, created time.Time) {
	allFailed := t.samples > 0 && t.completed == 0 && !f.Sheet.DryRun
	if opt.Status == "" && allFailed {
		// Inspect marks an eval whose samples failed "error", with the
		// error, and writes no results when no sample was scored.
		lg.Status = "error"
	}
	if lg.Status == "error" {
		lg.Error = runError(opt.Error, lg.Samples, allFailed)
	}
	if lg.Status != "started" && !f.Sheet.DryRun && !(lg.Status == "error" && allFailed) {
		lg.Reductions = t.scorers.reductions()
		lg.Results = &evalResults{
			TotalSamples:     t.samples,
			CompletedSamples: t.completed,
			Scores:           scoresOf(lg.Reductions),
		}
	}
	if lg.Status != "started" && f.Sheet.DryRun {
		// Samples with no score, none completed (each is cancelled):
		// Inspect's results of such samples, with no scorer, which its
		// recompute_metrics makes of the log too, where a log without
		// results recomputed to other results than it held.
		lg.Results = &evalResults{TotalSamples: t.samples, CompletedSamples: 0, Scores: []evalScore{}}
	}
	if lg.Status != "started" && !f.Sheet.DryRun {
		wall := time.Duration(0)
		if s := t.wall * float64(time.Second); s >= 0 && s < math.MaxInt64 {
			wall = time.Duration(s)
		} else {
			// Past 292 years (or +Inf, a sum of huge times) a duration
			// wraps, and a run does not end before it starts: the end is
			// said to be the start, as without times.
			lg.notes = append(lg.notes, fmt.Sprintf("the questions' times add up to %g s, no run's length: completed_at is the start", t.wall))
		}
		lg.Stats.CompletedAt = isoTime(created.Add(wall))
	}
}

// createdTime is the run's start: the output file's own record, else the
// option, else now.
func createdTime(f *result.File, opt LogOptions) (time.Time, error) {
	if c := f.Sheet.Created; c != "" {
		t, err := time.Parse(time.RFC3339Nano, c)
		if err != nil {
			return time.Time{}, fmt.Errorf("inspect log for %q: sheet.created %q is not an RFC 3339 time", f.Sheet.Name, c)
		}
		return t, nil
	}
	if !opt.Created.IsZero() {
		return opt.Created, nil
	}
	return time.Now(), nil
}

// isoTime formats a time as Python's datetime.isoformat(timespec="seconds")
// does for an aware UTC time, which is how Inspect writes its times.
func isoTime(t time.Time) string {
	return t.UTC().Format("2006-01-02T15:04:05-07:00")
}

// taskName picks the task name (see LogOptions.Task).
func taskName(f *result.File, opt LogOptions) string {
	if opt.Task != "" {
		return opt.Task
	}
	if f.Sheet.SheetFile != "" {
		base := strings.TrimSuffix(filepath.Base(f.Sheet.SheetFile), ".md")
		base = strings.TrimLeft(strings.TrimPrefix(base, "input"), "-_")
		if base != "" {
			return base
		}
	}
	if f.Sheet.Name != "" {
		return f.Sheet.Name
	}
	return "sheet"
}

func versionOr(v string) string {
	if v == "" {
		return "dev"
	}
	return v
}

// evalMetadata is eval.metadata: the sheet's meta, and "dry_run": true for
// a dry run's log.
func evalMetadata(f *result.File) map[string]any {
	if len(f.Sheet.MetaData) == 0 && !f.Sheet.DryRun {
		return nil
	}
	m := make(map[string]any, len(f.Sheet.MetaData)+1)
	for k, v := range f.Sheet.MetaData {
		m[k] = v
	}
	if f.Sheet.DryRun {
		m["dry_run"] = true
	}
	return m
}

// generateConfigOf is the run's settings, or for files that record none
// (LIME's) those the sheet's meta sets, read as a run reads them.
func generateConfigOf(meta map[string]string, s *model.Settings) generateConfig {
	if s == nil { // a file written before outputs recorded the settings
		v, _ := setting.Resolve("", nil, setting.Layer{Source: setting.SheetMeta, Values: meta})
		s = &v.Gen
	}
	g := generateConfig{}
	if data, err := json.Marshal(s); err == nil {
		_ = json.Unmarshal(data, &g) // the JSON of a struct: a map
	}
	if stop, ok := g["stop"]; ok {
		delete(g, "stop")
		g["stop_seqs"] = stop
	}
	return g
}

// sampleIDs gives every question a unique id: its name, with " (2)", " (3)"
// after a name already taken (LIME allows duplicate names; Inspect finds
// samples by id).
func sampleIDs(qs []result.Question) []SampleID {
	taken := make(map[string]bool, len(qs))
	ids := make([]SampleID, len(qs))
	for i, q := range qs {
		id := q.Name
		for n := 2; taken[id]; n++ {
			id = fmt.Sprintf("%s (%d)", q.Name, n)
		}
		taken[id] = true
		ids[i] = StringID(id)
	}
	return ids
}

// base57 is the alphabet of the shortuuid ids Inspect uses.
const base57 = "23456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz"

// shortID derives a 22-character id in shortuuid's alphabet from the
// parts, so the same run always gets the same ids (and log file name).
func shortID(parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(parts, "\x00")))
	n := new(big.Int).SetBytes(h[:])
	base := big.NewInt(int64(len(base57)))
	mod := new(big.Int)
	out := make([]byte, 22)
	for i := range out {
		n.DivMod(n, base, mod)
		out[i] = base57[mod.Int64()]
	}
	return string(out)
}

// marshalIndent encodes the log as Inspect writes it (indent 2), without
// HTML escaping.
func marshalIndent(v any) ([]byte, error) {
	data, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return indent(data)
}

// writeLogOf writes the log of f, read from outputPath, into dir (see
// WriteLog). An output file that does not record its start (LIME's) takes
// its modification time, unless opt.Created is set.
func writeLogOf(dir, outputPath string, f *result.File, opt LogOptions) (string, error) {
	if f.Sheet.Created == "" && opt.Created.IsZero() {
		if st, err := os.Stat(outputPath); err == nil {
			opt.Created = st.ModTime()
		}
	}
	return WriteLog(dir, f, opt)
}
