package inspect

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"math"
	"math/big"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
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
	Status string
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
	// Force writes over a log evalmd did not write or that was changed
	// since (see internal/outfile).
	Force bool
}

// scorerDefault names the scorer of questions graded without a recorded
// grader: LIME's output files, graded by LIME's only rule.
const scorerDefault = "lime"

// WriteLog writes the Inspect log of one output file (one run of one model
// on one sheet) into dir, creating dir if needed, and returns its path. The
// file is named as Inspect names its logs, so Inspect's log listing parses
// task and id from the name; writing the same output file again replaces
// the same log.
func WriteLog(dir string, f *result.File, opt LogOptions) (string, error) {
	lg, err := BuildLog(f, opt)
	if err != nil {
		return "", err
	}
	data, err := marshalIndent(lg)
	if err != nil {
		return "", fmt.Errorf("inspect log for %q: %w", f.Sheet.Name, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("inspect log dir %s: %w", dir, err)
	}
	path := filepath.Join(dir, FileName(lg.Eval))
	if err := outfile.Write(path, data, outfile.Options{Force: opt.Force}); err != nil {
		return "", err
	}
	return path, nil
}

// FileName is the log file name Inspect gives a log:
// <created>_<task>_<task id>.json, each part cleaned the way Inspect cleans
// them ("_", "/" and ":" become "-"), e.g.
// 2024-05-01T12-00-00+00-00_rules-qa-1_Kq3vXb7pR2mN9sT4wY6zAc.json.
// Inspect's listing (log/_file.py) reads the task and id back by splitting
// the name on "_", and the id's own "-" would start a suffix, so neither
// may hold one; our ids never do.
func FileName(s Spec) string {
	return cleanPart(s.Created) + "_" + cleanPart(taskDisplay(s.Task)) + "_" + cleanPart(s.TaskID) + ".json"
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
		case '_', '/', ':', '\\', '*', '?', '"', '<', '>', '|', ' ', '\t', '\n', '\r':
			return '-'
		}
		return r
	}, s)
}

// BuildLog makes the log of an output file without writing it.
func BuildLog(f *result.File, opt LogOptions) (*Log, error) {
	if f == nil {
		return nil, fmt.Errorf("inspect log: no output file")
	}
	status := opt.Status
	if status == "" {
		status = "success"
	}
	switch status {
	case "started", "success", "cancelled", "error":
	default:
		return nil, fmt.Errorf("inspect log: status %q is not one of started, success, cancelled, error", status)
	}
	created, err := createdTime(f, opt)
	if err != nil {
		return nil, err
	}
	task := taskName(f, opt)
	modelName := f.Sheet.ModelName
	runID := f.Sheet.RunID
	stamp := isoTime(created)
	if runID == "" {
		runID = shortID("run", f.Sheet.Name, modelName, stamp)
	}
	runSettings := opt.Settings
	if runSettings == nil {
		runSettings = f.Sheet.Settings
	}
	gen := generateConfig(f.Sheet.MetaData, runSettings)
	no := false
	yes := true
	lg := &Log{
		Version: LogVersion,
		Status:  status,
		Eval: Spec{
			EvalID:      shortID("eval", task, runID, modelName, stamp),
			RunID:       runID,
			Created:     stamp,
			Task:        task,
			TaskID:      shortID("task", task, runID, modelName, stamp),
			TaskFile:    f.Sheet.SheetFile,
			TaskAttribs: map[string]any{},
			TaskArgs:    map[string]any{},
			Solver:      "generate",
			Dataset: Dataset{
				Name:      f.Sheet.Name,
				Location:  f.Sheet.SheetFile,
				Samples:   len(f.Questions),
				SampleIDs: []SampleID{},
			},
			Model:       modelName,
			ModelConfig: gen,
			ModelArgs:   map[string]any{},
			// Questions that errored are kept as samples with an error, as
			// Inspect does when errors do not fail the eval.
			Config:   Config{Epochs: 1, EpochsReducer: []string{"mean"}, FailOnError: &no, LogSamples: &yes},
			Packages: map[string]string{"evalmd": versionOr(opt.Version)},
			Metadata: sheetMetadata(f),
		},
		Plan: Plan{
			Name:   "plan",
			Steps:  []PlanStep{{Solver: "generate", Params: map[string]any{}}},
			Config: gen,
		},
		Stats: Stats{StartedAt: stamp, ModelUsage: map[string]Usage{}},
	}
	if status == "error" {
		msg := opt.Error
		if msg == "" {
			msg = "the run stopped with an error"
		}
		lg.Error = &EvalError{Message: msg}
	}

	ids := sampleIDs(f.Questions)
	var total Usage
	var totalCost float64
	hasCost := false
	wall := 0.0
	scorers := newScoreTally()
	completed := 0
	for i := range f.Questions {
		q := &f.Questions[i]
		s := buildSample(q, ids[i], modelName, lg.Eval.TaskID, i, runSettings)
		lg.Eval.Dataset.SampleIDs = append(lg.Eval.Dataset.SampleIDs, s.ID)
		if q.Error == nil {
			completed++
		}
		if finite(q.EvalTime) {
			wall += *q.EvalTime
		}
		total.InputTokens += q.InputTokens
		total.OutputTokens += q.OutputTokens
		if finite(q.Cost) {
			totalCost += *q.Cost
			hasCost = true
		}
		scorers.add(q)
		lg.Samples = append(lg.Samples, s)
	}
	total.TotalTokens = total.InputTokens + total.OutputTokens
	if hasCost {
		total.TotalCost = &totalCost
	}
	if modelName != "" && (total.TotalTokens > 0 || hasCost) {
		lg.Stats.ModelUsage[modelName] = total
	}
	if t := f.Sheet.Totals; t != nil && t.WallSeconds > 0 {
		wall = t.WallSeconds
	}
	if status != "started" {
		lg.Stats.CompletedAt = isoTime(created.Add(time.Duration(wall * float64(time.Second))))
		lg.Results = &Results{
			TotalSamples:     len(f.Questions),
			CompletedSamples: completed,
			Scores:           scorers.scores(len(f.Questions)),
		}
	}
	return lg, nil
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

// sheetMetadata is the sheet's meta, for eval.metadata.
func sheetMetadata(f *result.File) map[string]any {
	if len(f.Sheet.MetaData) == 0 {
		return nil
	}
	m := make(map[string]any, len(f.Sheet.MetaData))
	for k, v := range f.Sheet.MetaData {
		m[k] = v
	}
	return m
}

// generateConfig is the run's settings, or for files that record none
// (LIME's) those the sheet's meta sets, read as a run reads them.
func generateConfig(meta map[string]string, s *model.Settings) GenerateConfig {
	if s == nil {
		fromMeta, _ := model.SettingsFromMeta(meta)
		s = &fromMeta
	}
	g := GenerateConfig{Temperature: s.Temperature, TopP: s.TopP, Seed: s.Seed}
	if s.MaxTokens > 0 {
		n := s.MaxTokens
		g.MaxTokens = &n
	}
	g.StopSeqs = append([]string(nil), s.Stop...)
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

// buildSample turns one question record into a sample. seed (the task id)
// makes its message ids and uuid unique to the run.
// run is the run-level settings: a question sent other ones has them in
// its metadata ("generate_config").
func buildSample(q *result.Question, id SampleID, modelName, seed string, index int, run *model.Settings) Sample {
	s := Sample{
		ID:          id,
		Epoch:       1,
		Metadata:    map[string]any{},
		ModelUsage:  map[string]Usage{},
		UUID:        shortID("sample", seed, strconv.Itoa(index)),
		Events:      []json.RawMessage{},
		Store:       map[string]any{},
		Attachments: map[string]string{},
	}
	if q.GroundTruth != nil {
		s.Target = *q.GroundTruth
	}
	for k, v := range q.MetaData {
		s.Metadata[k] = v
	}
	var runLevel model.Settings
	if run != nil {
		runLevel = *run
	}
	if q.Settings != nil && !q.Settings.Equal(runLevel) {
		s.Metadata["generate_config"] = generateConfig(nil, q.Settings)
	}
	s.Choices = Choices(q.Question)
	msgID := func(role string) string { return shortID("msg", seed, strconv.Itoa(index), role) }
	user := Message{ID: msgID("user"), Role: "user", Content: Content{Text: q.Question}, Source: "input"}
	if q.System != nil {
		sys := Message{ID: msgID("system"), Role: "system", Content: Content{Text: *q.System}, Source: "input"}
		s.Input = Input{Messages: []Message{sys, user}}
		s.Messages = []Message{sys, user}
	} else {
		s.Input = Input{Text: q.Question}
		s.Messages = []Message{user}
	}
	usage := Usage{InputTokens: q.InputTokens, OutputTokens: q.OutputTokens, TotalTokens: q.InputTokens + q.OutputTokens}
	if finite(q.Cost) {
		c := *q.Cost
		usage.TotalCost = &c
	}
	mdl := q.ModelName
	if mdl == "" {
		mdl = modelName
	}
	s.Output = Output{Model: mdl, Choices: []Choice{}}
	if len(q.Transcript) > 0 {
		// Agent mode: every turn, with its tool calls and results, so the
		// viewer shows the whole transcript; the last assistant turn is the
		// answer (the completion).
		s.Messages = append(s.Messages, transcript(q.Transcript, mdl, func(i int) string { return msgID("t" + strconv.Itoa(i)) })...)
	}
	if q.Mode == model.ModeCode {
		s.Metadata["code_extract"] = q.CodeExtract
		if q.Code != nil {
			s.Metadata["code"] = *q.Code
		}
		if q.Answer != nil {
			s.Metadata["answer"] = *q.Answer
		}
		if q.CodeError != "" {
			s.Metadata["code_error"] = q.CodeError
		}
	}
	if q.Limit != "" {
		s.Metadata["limit"] = q.Limit
	}
	if q.Completion != nil {
		asst := Message{ID: msgID("assistant"), Role: "assistant", Content: Content{Text: *q.Completion}, Source: "generate", Model: mdl}
		if n := len(s.Messages); len(q.Transcript) > 0 && s.Messages[n-1].Role == "assistant" && len(s.Messages[n-1].ToolCalls) == 0 {
			asst = s.Messages[n-1] // the transcript's last turn is the answer
		} else {
			s.Messages = append(s.Messages, asst)
		}
		s.Output.Choices = []Choice{{Message: asst, StopReason: "stop"}}
		s.Output.Completion = *q.Completion
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
	if q.Error != nil {
		s.Error = &EvalError{Message: *q.Error}
	}
	if q.Grade != nil {
		// Inspect's Score.value may not be null, so an ungraded question
		// has no score at all (and counts in unscored_samples).
		value := "I"
		if *q.Grade {
			value = "C"
		}
		sc := SampleScore{Value: value, Metadata: map[string]any{"grader": scorerName(q)}}
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
		s.Scores = map[string]SampleScore{scorerName(q): sc}
	}
	return s
}

// transcript is an agent's turns as Inspect messages.
func transcript(turns []model.Message, mdl string, id func(int) string) []Message {
	var out []Message
	for i, t := range turns {
		m := Message{ID: id(i), Role: t.Role, Content: Content{Text: t.Content}}
		switch t.Role {
		case "assistant":
			m.Source, m.Model = "generate", mdl
			for _, c := range t.ToolCalls {
				tc := ToolCall{ID: c.ID, Function: c.Name, Type: "function", Arguments: map[string]any{}}
				if err := json.Unmarshal([]byte(c.Arguments), &tc.Arguments); err != nil || tc.Arguments == nil {
					tc.Arguments, tc.ParseError = map[string]any{}, "arguments are not a JSON object: "+c.Arguments
				}
				m.ToolCalls = append(m.ToolCalls, tc)
			}
		case "tool":
			m.ToolCallID, m.Function = t.ToolCallID, "python"
			if t.ToolLimit != "" {
				typ := "limit"
				switch t.ToolLimit {
				case "tool_timeout", "timeout": // "timeout": files written before the rename
					typ = "timeout"
				case "output":
					typ = "output_limit"
				}
				m.Error = &ToolCallError{Type: typ, Message: "stopped by the sandbox's " + t.ToolLimit + " limit"}
			}
		}
		out = append(out, m)
	}
	return out
}

// finite reports a number JSON can carry (NaN and infinities it cannot).
func finite(p *float64) bool { return p != nil && !math.IsNaN(*p) && !math.IsInf(*p, 0) }

func scorerName(q *result.Question) string {
	if q.Grader != "" {
		return q.Grader
	}
	return scorerDefault
}

// scoreTally gathers the grades per scorer, in order of first use.
type scoreTally struct {
	order  []string
	values map[string][]float64
}

func newScoreTally() *scoreTally { return &scoreTally{values: map[string][]float64{}} }

func (t *scoreTally) add(q *result.Question) {
	if q.Grade == nil {
		return
	}
	name := scorerName(q)
	if _, ok := t.values[name]; !ok {
		t.order = append(t.order, name)
	}
	v := 0.0
	if *q.Grade {
		v = 1
	}
	t.values[name] = append(t.values[name], v)
}

// scores is one EvalScore per scorer, with Inspect's accuracy and stderr
// metrics over the samples that scorer graded.
func (t *scoreTally) scores(total int) []Score {
	out := []Score{}
	for _, name := range t.order {
		vals := t.values[name]
		scored, unscored := len(vals), total-len(vals)
		out = append(out, Score{
			Name:            name,
			Scorer:          name,
			ScoredSamples:   &scored,
			UnscoredSamples: &unscored,
			Params:          map[string]any{},
			Metrics: map[string]Metric{
				"accuracy": {Name: "accuracy", Value: Accuracy(vals), Params: map[string]any{}},
				"stderr":   {Name: "stderr", Value: Stderr(vals), Params: map[string]any{}},
			},
		})
	}
	return out
}

// Accuracy is Inspect's accuracy metric (scorer/_metrics/accuracy.py): the
// mean of the values (C = 1, I = 0); 0 for no values.
func Accuracy(vals []float64) float64 {
	if len(vals) == 0 {
		return 0
	}
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	return sum / float64(len(vals))
}

// Stderr is Inspect's stderr metric (scorer/_metrics/std.py): the sample
// standard deviation (ddof=1) over the square root of n, and 0 when n < 2.
func Stderr(vals []float64) float64 {
	n := len(vals)
	if n < 2 {
		return 0
	}
	mean := Accuracy(vals)
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

// WriteLogFile reads an output file and writes its log into dir (see
// WriteLog). An output file that does not record its start (LIME's) takes
// its modification time, unless opt.Created is set.
func WriteLogFile(dir, outputPath string, opt LogOptions) (string, error) {
	f, err := result.Read(outputPath)
	if err != nil {
		return "", err
	}
	if f.Sheet.Created == "" && opt.Created.IsZero() {
		if st, err := os.Stat(outputPath); err == nil {
			opt.Created = st.ModTime()
		}
	}
	return WriteLog(dir, f, opt)
}
