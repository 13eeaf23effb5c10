package inspect

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/agentproto"
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
	lg := newLog(files, opt, status, created, runSettings)
	t := lg.addSamples(files, runSettings)
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
		t.usage.TotalCost = &t.cost
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
// failed, the results and when the run completed.
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

// sampleRun is what every sample of a log shares.
type sampleRun struct {
	model string          // the run's model name
	seed  string          // the task id: makes message ids and uuids unique to the run
	run   *model.Settings // the run-level settings
	stamp string          // the run's start, the timestamp of the events
	gen   generateConfig  // the run's settings as the log records them
	file  *result.File    // the output file: its sheet meta, for questions without a recorded setting
	epoch int             // the output file's epoch (1 for a run of one)
}

// buildSample turns one question record into a sample. index is its place
// in the output file. A question sent other settings than the run's has
// them in its metadata ("generate_config").
func buildSample(q *result.Question, id SampleID, index int, r sampleRun) evalSample {
	s := newSample(q, id, index, r)
	var runLevel model.Settings
	if r.run != nil {
		runLevel = *r.run
	}
	sent := r.gen
	if q.Settings != nil && !q.Settings.Equal(runLevel) {
		sent = generateConfigOf(nil, q.Settings)
		s.Metadata["generate_config"] = sent
	}
	s.Choices = Choices(q.Question)
	msgID := func(role string) string { return shortID("msg", r.seed, strconv.Itoa(index), role) }
	s.setInput(q, msgID)
	asked := len(s.Messages)
	usage := questionUsage(q)
	mdl := q.ModelName
	if mdl == "" {
		mdl = r.model
	}
	// The output and the answer's messages name the model that answered,
	// as the server said it (Inspect's ModelOutput.model is the reply's
	// "model"); the model events name the model asked, as Inspect's do.
	served := mdl
	if q.ServedModel != "" {
		served = q.ServedModel
	}
	s.Output = modelOutput{Model: served, Choices: []completionChoice{}}
	if len(q.Transcript) > 0 {
		// Agent mode: every turn, with its tool calls and results, so the
		// viewer shows the whole transcript; the last assistant turn is the
		// answer (the completion).
		s.Messages = append(s.Messages, transcript(q.Transcript, served, r.file.SolveSetting(q, "agent_style") == agentproto.StyleReact, msgID)...)
	}
	codeMetadata(q, s.Metadata)
	if q.Completion != nil {
		s.setAnswer(q, served, asked, msgID)
		if q.InputTokens+q.OutputTokens > 0 {
			// LIME's files record no tokens; zeros would claim a count.
			u := usage
			s.Output.Usage = &u
		}
	}
	if finite(q.EvalTime) {
		t := *q.EvalTime
		s.Output.Time = &t
		s.TotalTime = &t
		s.WorkingTime = &t
	}
	if mdl != "" && (q.InputTokens+q.OutputTokens > 0 || finite(q.Cost)) {
		s.ModelUsage[mdl] = usage
	}
	s.setError(q, r.file.Sheet.DryRun)
	s.Events = sampleEvents(q, &s, mdl, asked, sent, agentTools(q, r.file), r.stamp)
	if s.Limit != nil {
		// Inspect's transcript ends a sample stopped by a limit with a
		// sample_limit event, which its viewer shows.
		ev := &sampleLimitEvent{Event: "sample_limit", Timestamp: r.stamp, Type: s.Limit.Type, Message: limitMessage(q)}
		if lim := s.Limit.Limit; lim > 0 {
			ev.Limit = &lim
		}
		s.Events = append(s.Events, event{Limit: ev})
	}
	s.Scores = sampleScores(q)
	return s
}

// newSample is the sample of a question without its messages and output:
// its id, epoch, target and metadata.
func newSample(q *result.Question, id SampleID, index int, r sampleRun) evalSample {
	s := evalSample{
		ID:          id,
		Epoch:       max(r.epoch, 1),
		Metadata:    map[string]any{},
		Store:       map[string]any{},
		Events:      []event{},
		ModelUsage:  map[string]modelUsage{},
		RoleUsage:   map[string]modelUsage{},
		UUID:        shortID("sample", r.seed, strconv.Itoa(index)),
		Attachments: map[string]string{},
	}
	if q.GroundTruth != nil {
		s.Target = *q.GroundTruth
	}
	for k, v := range q.MetaData {
		s.Metadata[k] = v
	}
	return s
}

// setError sets the sample's error (a dry run's never finished) and the
// limit that stopped it.
func (s *evalSample) setError(q *result.Question, dryRun bool) {
	switch {
	case q.Error != nil:
		s.Error = newError(*q.Error)
	case dryRun:
		s.Error = dryRunError()
	}
	if q.Limit != "" && !(q.Mode == "" && q.Limit == "max_tokens") {
		// A chat answer cut by max_tokens is no sample limit in Inspect:
		// its output's stop_reason says it.
		s.Limit = limitOf(q)
	}
}

// setInput sets the sample's input and its first messages: the question,
// after the system message when there is one.
func (s *evalSample) setInput(q *result.Question, msgID func(string) string) {
	user := ChatMessage{ID: msgID("user"), Role: "user", Content: MessageContent{Text: q.Question}, Source: "input"}
	if q.System != nil {
		sys := ChatMessage{ID: msgID("system"), Role: "system", Content: MessageContent{Text: *q.System}, Source: "input"}
		s.Input = SampleInput{Messages: []ChatMessage{sys, user}}
		s.Messages = []ChatMessage{sys, user}
		return
	}
	s.Input = SampleInput{Text: q.Question}
	s.Messages = []ChatMessage{user}
}

// questionUsage is the tokens and cost a question's output file records.
func questionUsage(q *result.Question) modelUsage {
	usage := modelUsage{InputTokens: q.InputTokens, OutputTokens: q.OutputTokens, TotalTokens: q.InputTokens + q.OutputTokens,
		ReasoningTokens: q.ReasoningTokens}
	if finite(q.Cost) {
		c := *q.Cost
		usage.TotalCost = &c
	}
	return usage
}

// codeMetadata adds what a code-mode question ran and gave, and the limit
// that stopped a question, to the sample's metadata.
func codeMetadata(q *result.Question, meta map[string]any) {
	if q.Mode == model.ModeCode {
		meta["code_extract"] = q.CodeExtract
		if q.Code != nil {
			meta["code"] = *q.Code
		}
		if q.Answer != nil {
			meta["answer"] = *q.Answer
		}
		if q.CodeError != "" {
			meta["code_error"] = q.CodeError
		}
	}
	if q.Limit != "" {
		meta["limit"] = q.Limit
	}
}

// setAnswer sets the output of a question that has a completion, and ends
// the messages with the answer (and in code mode the code's run); asked
// is the number of messages the question itself takes.
func (s *evalSample) setAnswer(q *result.Question, served string, asked int, msgID func(string) string) {
	asst := ChatMessage{ID: msgID("assistant"), Role: "assistant", Content: assistantContent(*q.Completion, q.Reasoning), Source: "generate", Model: served}
	s.Output.Choices = []completionChoice{{Message: asst, StopReason: stopReason(q.FinishReason)}}
	switch end := &s.Messages[len(s.Messages)-1]; {
	case len(q.Transcript) > 0 && end.Role == "assistant" && len(end.ToolCalls) == 0:
		s.Output.Choices[0].Message = *end // the transcript's last turn is the answer
	case len(q.Transcript) > 0 && q.Limit != "" && *q.Completion == "":
		// An agent stopped by a limit before it answered: its
		// messages end where it stopped, as Inspect's do, and the
		// output is its last model call's.
		s.Output.Choices = lastCall(s.Messages[asked:])
	default:
		s.Messages = append(s.Messages, asst)
	}
	s.Output.Completion = *q.Completion
	if q.Mode == model.ModeCode && q.Code != nil {
		// The code ran as Inspect's python tool would have run it: a
		// call on the answer and the tool's result after it, so the
		// viewer shows both (it hides sandbox events by default).
		call, res := codeCall(q, msgID)
		last := &s.Messages[len(s.Messages)-1]
		last.ToolCalls = append(last.ToolCalls, call)
		s.Messages = append(s.Messages, res)
	}
}

// codeCall is a code-mode answer's run as a python tool call and its
// result.
func codeCall(q *result.Question, msgID func(string) string) (toolCall, ChatMessage) {
	call := toolCall{ID: msgID("call"), Function: agentproto.PythonTool.Name, Type: "function", Arguments: map[string]any{"code": *q.Code}}
	res := ChatMessage{ID: msgID("tool"), Role: "tool", ToolCallID: call.ID, Function: call.Function}
	switch {
	case q.CodeError != "":
		res.Content.Text = q.CodeError
		res.Error = toolError(q.Limit)
		if res.Error == nil {
			res.Error = &toolCallError{Type: "unknown", Message: q.CodeError}
		}
	case q.Answer != nil:
		res.Content.Text = *q.Answer
	}
	return call, res
}

// sampleScores is a graded question's score under its grader's name; nil
// for an ungraded question: Inspect's Score.value may not be null, so it
// has no score at all (and counts in unscored_samples).
func sampleScores(q *result.Question) map[string]sampleScore {
	if q.Grade == nil {
		return nil
	}
	value := "I"
	if *q.Grade {
		value = "C"
	}
	sc := sampleScore{Value: value, Metadata: map[string]any{"grader": scorerName(q)}, History: []json.RawMessage{}}
	if g := q.Graded(); g != nil {
		a := *g
		sc.Answer = &a
	}
	if q.GradeDetail != "" {
		e := q.GradeDetail
		sc.Explanation = &e
	}
	if len(q.SubAnswers) > 0 {
		sc.Metadata["sub_answers"] = q.SubAnswers
	}
	if q.Grading != "" {
		// The grading mode some source set (the output's grading and
		// grading_from); absent in the default mode, as in the output.
		sc.Metadata["grading"], sc.Metadata["grading_from"] = q.Grading, q.GradingFrom
	}
	return map[string]sampleScore{scorerName(q): sc}
}

// lastCall is the output of the last model call among an agent's turns:
// its last assistant turn, which asked for tools; none when it made none.
func lastCall(turns []ChatMessage) []completionChoice {
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Role == "assistant" {
			return []completionChoice{{Message: turns[i], StopReason: "tool_calls"}}
		}
	}
	return []completionChoice{}
}

// limitMessage is a sample_limit event's message: which of the question's
// limits stopped it, and its value when the output records one.
func limitMessage(q *result.Question) string {
	if q.LimitValue > 0 && finite(&q.LimitValue) {
		return fmt.Sprintf("stopped by the %s limit (%s)", q.Limit, strconv.FormatFloat(q.LimitValue, 'f', -1, 64))
	}
	return "stopped by the " + q.Limit + " limit"
}

// newError is an EvalError of a message. A Go run has no Python traceback;
// the message stands in for it, since the viewer shows a sample's error by
// its traceback alone.
func newError(msg string) *evalError {
	return &evalError{Message: msg, Traceback: msg, TracebackANSI: msg}
}

// runError is the error of a log whose status is "error": msg (the error
// that stopped the run), else, when every sample failed, the first of
// their errors. The viewer shows a run's error as its message above its
// traceback, so the traceback says what the message does not: each failed
// sample and its error, or nothing.
func runError(msg string, samples []evalSample, allFailed bool) *evalError {
	var tb strings.Builder
	if allFailed {
		for _, s := range samples {
			fmt.Fprintf(&tb, "sample %s (epoch %d): %s\n", s.ID, s.Epoch, s.Error.Message)
		}
		if msg == "" {
			msg = fmt.Sprintf("every sample failed (%d); the first: %s", len(samples), samples[0].Error.Message)
		}
	}
	if msg == "" {
		msg = "the run stopped with an error"
	}
	return &evalError{Message: msg, Traceback: tb.String(), TracebackANSI: tb.String()}
}

// dryRunError marks a dry run's sample as Inspect marks a sample that
// never finished (log/_recover: message "CancelledError()", the reason in
// the traceback): the viewer lists it as cancelled, not as a sample that
// ran and answered nothing.
func dryRunError() *evalError {
	const tb = "CancelledError: dry run (evalmd run -y): the prompt was written, the model was not asked\n"
	return &evalError{Message: "CancelledError()", Traceback: tb, TracebackANSI: tb}
}

// limitOf is the limit that ended a question, as Inspect's: max_turns
// counts model calls, Inspect's "turn" limit (its "message" limit counts
// every message); token_budget is its "token" limit and question_timeout
// its wall-clock "time" limit, as is a sandbox's time limit that ended the
// question; another sandbox limit is "custom". A file that does not record
// the value (written before limit_value) gets -1, as Inspect writes a
// limit without one.
func limitOf(q *result.Question) *sampleLimit {
	typ := "custom"
	switch q.Limit {
	case "max_turns":
		typ = "turn"
	case "token_budget":
		typ = "token"
	case "question_timeout", "tool_timeout", "timeout":
		typ = "time"
	}
	value := q.LimitValue
	if value <= 0 || !finite(&value) {
		value = -1
	}
	return &sampleLimit{Type: typ, Limit: float(value)}
}

// agentTools is what an agent-mode question offered the model: the python
// tool, unless the agent style is InfiAgent's text ReAct loop, which
// offers no tool through the API (the code is in the model's text).
func agentTools(q *result.Question, f *result.File) []toolInfo {
	if q.Mode != model.ModeAgent || f.SolveSetting(q, "agent_style") == agentproto.StyleReact {
		return []toolInfo{}
	}
	t := agentproto.PythonTool
	return []toolInfo{{Name: t.Name, Description: t.Description, Parameters: toolParams(t.Parameters)}}
}

// toolParams is a tool's arguments schema as Inspect's ToolParams: its
// JSONSchema model lists "default" as required in the schema of a
// property, so each property without one gets "default": null (which is
// what Inspect reads for a missing one).
func toolParams(raw json.RawMessage) json.RawMessage {
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		return raw
	}
	props, _ := p["properties"].(map[string]any)
	for _, v := range props {
		if prop, ok := v.(map[string]any); ok {
			if _, has := prop["default"]; !has {
				prop["default"] = nil
			}
		}
	}
	if _, ok := p["required"]; !ok {
		p["required"] = []string{}
	}
	out, err := marshal(p)
	if err != nil {
		return raw
	}
	return out
}

// sampleEvents is the transcript Inspect's viewer shows for a sample: a
// model event for every model call, with the messages it was sent and
// the output it gave; in agent mode a tool event for every python call
// (with its result); in code mode a sandbox event for the code run and
// the answer it gave. A failed question has one model event carrying the
// error; a question never asked (a dry run, a replay without an answer)
// has none. The output file records when the run started, not when each
// call was made: every event takes the run's start. Each model event names
// mdl, the model asked; its output names the model that answered.
func sampleEvents(q *result.Question, s *evalSample, mdl string, asked int, cfg generateConfig, tools []toolInfo, stamp string) []event {
	if q.Completion == nil && q.Error == nil {
		return []event{}
	}
	choice := "none"
	if len(tools) > 0 {
		choice = "auto"
	}
	ev := &eventMaker{model: mdl, cfg: cfg, tools: tools, choice: choice, stamp: stamp, args: map[string]map[string]any{}}
	var events []event
	if len(q.Transcript) == 0 {
		events = ev.chatEvents(q, s, asked)
	} else {
		events = ev.agentEvents(q, s, asked)
	}
	if q.Mode == model.ModeCode && (q.Code != nil || q.CodeError != "") {
		events = append(events, event{Sandbox: sandboxRun(q, stamp)})
	}
	return events
}

// eventMaker makes a sample's events; args are the arguments of the tool
// calls seen so far, by call id.
type eventMaker struct {
	model  string
	cfg    generateConfig
	tools  []toolInfo
	choice string
	stamp  string
	args   map[string]map[string]any
}

// call is the model event of a call sent input that gave out.
func (e *eventMaker) call(input []ChatMessage, out modelOutput) *modelEvent {
	return &modelEvent{Event: "model", Timestamp: e.stamp, Model: e.model,
		Input: append([]ChatMessage{}, input...), Tools: e.tools, ToolChoice: e.choice, Config: e.cfg, Output: out}
}

// calls records the arguments of the tool calls of m.
func (e *eventMaker) calls(m ChatMessage) {
	for _, c := range m.ToolCalls {
		e.args[c.ID] = c.Arguments
	}
}

// toolCalled is the tool event of the tool message m.
func (e *eventMaker) toolCalled(m ChatMessage) event {
	a := e.args[m.ToolCallID]
	if a == nil {
		a = map[string]any{}
	}
	return event{Tool: &toolEvent{Event: "tool", Timestamp: e.stamp, Type: "function",
		ID: m.ToolCallID, Function: m.Function, Arguments: a, Result: m.Content.String(), Error: m.Error,
		Events: []json.RawMessage{}}}
}

// chatEvents are the events of a question answered in one call: its model
// event and, in code mode, the code's run as a call of the answer.
func (e *eventMaker) chatEvents(q *result.Question, s *evalSample, asked int) []event {
	ev := e.call(s.Messages[:asked], s.Output)
	if q.Error != nil {
		ev.Error = *q.Error
	}
	ev.WorkingTime = s.WorkingTime
	events := []event{{Model: ev}}
	for _, m := range s.Messages[asked:] {
		e.calls(m)
		if m.Role == "tool" {
			events = append(events, e.toolCalled(m))
		}
	}
	return events
}

// agentEvents are the events of an agent's turns, the messages after the
// question: each assistant turn is a model call on everything before it.
func (e *eventMaker) agentEvents(q *result.Question, s *evalSample, asked int) []event {
	events := []event{}
	for i := asked; i < len(s.Messages); i++ {
		m := s.Messages[i]
		switch m.Role {
		case "assistant":
			reason := "tool_calls"
			switch {
			case len(m.ToolCalls) == 0:
				reason = stopReason(q.FinishReason)
			case len(e.tools) == 0:
				reason = "stop" // a ReAct step: its call is text, cut at the stop word
			}
			out := modelOutput{Model: s.Output.Model, Choices: []completionChoice{{Message: m, StopReason: reason}}, Completion: m.Content.String()}
			events = append(events, event{Model: e.call(s.Messages[:i], out)})
			e.calls(m)
		case "tool":
			if m.ToolCallID == "" {
				continue // answers no call
			}
			events = append(events, e.toolCalled(m))
		}
	}
	if q.Error != nil {
		ev := e.call(s.Messages, modelOutput{Model: s.Output.Model, Choices: []completionChoice{}})
		ev.Error = *q.Error
		events = append(events, event{Model: ev})
	}
	return events
}

// sandboxRun is the sandbox event of a code-mode question's run.
func sandboxRun(q *result.Question, stamp string) *sandboxEvent {
	sb := &sandboxEvent{Event: "sandbox", Timestamp: stamp, Action: "exec", Cmd: "python3"}
	status := 0
	if q.Code != nil {
		sb.Input = *q.Code
	}
	switch {
	case q.CodeError != "":
		status = 1
		sb.Output = q.CodeError
	case q.Answer != nil:
		sb.Output = *q.Answer
	}
	sb.Result = &status
	return sb
}

// turnContent is an agent turn's content: as assistantContent, but when
// the turn kept its reasoning as its API returned it (Anthropic's thinking
// blocks, the Responses API's reasoning items), one ContentReasoning part
// per block, as Inspect records them: a thinking block with its
// signature, a redacted one as its encrypted data marked redacted, a
// reasoning item as its summary (redacted when it has none).
func turnContent(t model.Message) MessageContent {
	if len(t.ReasoningBlocks) == 0 {
		return assistantContent(t.Content, t.Reasoning)
	}
	var parts []contentPart
	for _, b := range t.ReasoningBlocks {
		p := contentPart{Type: "reasoning", Reasoning: b.Text}
		switch b.Type {
		case model.ThinkingBlock:
			p.Signature = b.Signature
		case model.RedactedThinkingBlock:
			p.Reasoning, p.Redacted = b.Data, true
		default:
			p.Redacted = b.Text == ""
		}
		parts = append(parts, p)
	}
	return MessageContent{Parts: append(parts, contentPart{Type: "text", Text: t.Content})}
}

// transcript is an agent's turns as Inspect messages; id makes an id from
// a name unique in the sample. A ReAct agent (react) asks for its code in
// its text, and its observations answer no API call: each step gets the
// python call it made in text, and its observation that call's id, so
// Inspect's viewer pairs them (it drops a tool message that answers no
// call).
func transcript(turns []model.Message, mdl string, react bool, id func(string) string) []ChatMessage {
	var out []ChatMessage
	reactCall := func(i int) string { return id("call" + strconv.Itoa(i)) }
	for i, t := range turns {
		m := ChatMessage{ID: id("t" + strconv.Itoa(i)), Role: t.Role, Content: MessageContent{Text: t.Content}}
		switch t.Role {
		case "assistant":
			m.Source, m.Model = "generate", mdl
			m.Content = turnContent(t)
			for _, c := range t.ToolCalls {
				tc := toolCall{ID: c.ID, Function: c.Name, Type: "function", Arguments: map[string]any{}}
				if err := json.Unmarshal([]byte(c.Arguments), &tc.Arguments); err != nil || tc.Arguments == nil {
					tc.Arguments, tc.ParseError = map[string]any{}, "arguments are not a JSON object: "+c.Arguments
				}
				m.ToolCalls = append(m.ToolCalls, tc)
			}
			if react && len(t.ToolCalls) == 0 && i+1 < len(turns) && turns[i+1].Role == "tool" && turns[i+1].ToolCallID == "" {
				tc := toolCall{ID: reactCall(i), Function: agentproto.PythonTool.Name, Type: "function", Arguments: map[string]any{}}
				if code, ok := agentproto.ReactAction(t.Content); ok {
					tc.Arguments["code"] = code
				} else {
					tc.ParseError = "no Action Input code block in the reply"
				}
				m.ToolCalls = append(m.ToolCalls, tc)
			}
		case "tool":
			m.ToolCallID, m.Function = t.ToolCallID, agentproto.PythonTool.Name
			if react && m.ToolCallID == "" && i > 0 && turns[i-1].Role == "assistant" && len(turns[i-1].ToolCalls) == 0 {
				m.ToolCallID = reactCall(i - 1)
			}
			m.Error = toolError(t.ToolLimit)
		}
		out = append(out, m)
	}
	return out
}

// toolError is why a python call failed when a sandbox limit stopped it
// (Inspect's ToolCallError types); nil for no limit.
func toolError(limit string) *toolCallError {
	if limit == "" {
		return nil
	}
	typ := "limit"
	switch limit {
	case "tool_timeout", "timeout": // "timeout": files written before the rename
		typ = "timeout"
	case "output":
		typ = "output_limit"
	}
	return &toolCallError{Type: typ, Message: "stopped by the sandbox's " + limit + " limit"}
}

// finite reports a number JSON can carry (NaN and infinities it cannot).
func finite(p *float64) bool { return p != nil && !math.IsNaN(*p) && !math.IsInf(*p, 0) }

func scorerName(q *result.Question) string {
	if q.Grader != "" {
		return q.Grader
	}
	return scorerDefault
}

// epochsReducer is the reducer of a sample's scores over its epochs, the
// log's config.epochs_reducer: Inspect's default, the mean. Inspect names
// a reducer given in the config in every score and reduction, whatever
// the number of epochs.
const epochsReducer = "mean"

// scoreTally gathers the samples' scores per scorer, in order of first
// use, and per sample id, in order of first score, as Inspect's
// reduce_scores (_eval/task/results.py) groups them.
type scoreTally struct {
	order  []string
	ids    map[string][]SampleID                 // scorer -> sample ids
	scores map[string]map[SampleID][]sampleScore // scorer -> sample id -> its epochs' scores
}

func newScoreTally() *scoreTally {
	return &scoreTally{ids: map[string][]SampleID{}, scores: map[string]map[SampleID][]sampleScore{}}
}

func (t *scoreTally) add(s *evalSample) {
	for _, name := range slices.Sorted(maps.Keys(s.Scores)) {
		if _, ok := t.scores[name]; !ok {
			t.order = append(t.order, name)
			t.scores[name] = map[SampleID][]sampleScore{}
		}
		if _, ok := t.scores[name][s.ID]; !ok {
			t.ids[name] = append(t.ids[name], s.ID)
		}
		t.scores[name][s.ID] = append(t.scores[name][s.ID], s.Scores[name])
	}
}

// reductions is each scorer's score of every sample it scored, the
// sample's epochs reduced by meanScore (as Inspect's
// compute_eval_scores_for_views reduces them); nil when no sample was
// scored, as Inspect writes none without a scorer.
func (t *scoreTally) reductions() []sampleReductions {
	var out []sampleReductions
	for _, name := range t.order {
		r := sampleReductions{Scorer: name, Reducer: epochsReducer}
		for _, id := range t.ids[name] {
			r.Samples = append(r.Samples, reducedScore{sampleScore: meanScore(t.scores[name][id]), SampleID: id})
		}
		out = append(out, r)
	}
	return out
}

// meanScore is Inspect's mean_score reducer (scorer/_reducer/reducer.py)
// of one sample's scores over its epochs: the mean of their values as
// floats (statistics.mean, exact for the 0s and 1s here, as the division
// of their integer sum is), with the answer and explanation when every
// epoch has the same, and the first epoch's metadata (_reduced_score).
func meanScore(epochs []sampleScore) sampleScore {
	sum := 0.0
	for _, s := range epochs {
		sum += valueToFloat(s.Value)
	}
	first := epochs[0]
	r := sampleScore{Value: float(sum / float64(len(epochs))), Answer: first.Answer, Explanation: first.Explanation,
		Metadata: first.Metadata, History: []json.RawMessage{}}
	for _, s := range epochs[1:] {
		if !sameText(s.Answer, r.Answer) {
			r.Answer = nil
		}
		if !sameText(s.Explanation, r.Explanation) {
			r.Explanation = nil
		}
	}
	return r
}

func sameText(a, b *string) bool { return a == b || a != nil && b != nil && *a == *b }

// valueToFloat is Inspect's value_to_float (scorer/_metric.py) for the
// values this package writes: "C" is 1, "I" 0, a number itself.
func valueToFloat(v any) float64 {
	switch v := v.(type) {
	case float:
		return float64(v)
	case float64:
		return v
	case string:
		if v == "C" {
			return 1
		}
	}
	return 0
}

// scoresOf is one EvalScore per reduction, with Inspect's accuracy and
// stderr metrics over its reduced scores (compute_eval_scores).
func scoresOf(reductions []sampleReductions) []evalScore {
	out := []evalScore{}
	for _, r := range reductions {
		vals := make([]float64, len(r.Samples))
		for i, s := range r.Samples {
			vals[i] = valueToFloat(s.Value)
		}
		// Inspect's unscored_samples counts the reduced scores whose value
		// is NaN (its sentinel for "not scored"); these are means of C and
		// I, never NaN. A sample without a score (failed, ungraded) is in
		// neither count, as in Inspect.
		scored, unscored := len(vals), 0
		out = append(out, evalScore{
			Name:            r.Scorer,
			Scorer:          r.Scorer,
			ScoredSamples:   &scored,
			UnscoredSamples: &unscored,
			Reducer:         r.Reducer,
			Params:          map[string]any{},
			Metrics: map[string]evalMetric{
				"accuracy": {Name: "accuracy", Value: float(accuracyMetric(vals)), Params: map[string]any{}},
				"stderr":   {Name: "stderr", Value: float(stderrMetric(vals)), Params: map[string]any{}},
			},
		})
	}
	return out
}

// accuracyMetric is Inspect's accuracy metric
// (scorer/_metrics/accuracy.py): the mean of the values (C = 1, I = 0); 0
// for no values.
func accuracyMetric(vals []float64) float64 {
	if len(vals) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	return sum / float64(len(vals))
}

// stderrMetric is Inspect's stderr metric (scorer/_metrics/std.py): the
// sample standard deviation (ddof=1) over the square root of n, and 0 when
// n < 2.
func stderrMetric(vals []float64) float64 {
	n := len(vals)
	if n < 2 {
		return 0
	}
	mean := accuracyMetric(vals)
	ss := 0.0
	for _, v := range vals {
		d := v - mean
		ss += d * d
	}
	return math.Sqrt(ss/float64(n-1)) / math.Sqrt(float64(n))
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
