// Package inspect reads and writes the interchange formats of Inspect AI
// (UK AISI's evaluation framework): evaluation logs, in Inspect's .eval
// format (a zip of JSON members) or its JSON format (log format version 2),
// which Inspect's log viewer (`inspect view`), its read_eval_log and R's
// vitals package open; package inspect/dataset writes datasets in JSON
// Lines, which Inspect's json_dataset loads, with the sample types here
// (SampleInput of ChatMessage with MessageContent, SampleID from MakeID or
// StringID, and Choices).
//
// WriteLog writes the log of one output file (WriteLogFor, of one read
// from a path), WriteLogsFor those of every output file below a folder,
// in either format: FormatEval (the default)
// or FormatJSON, chosen by LogOptions.Format. ReadLog loads a log of
// either format as a Log, to check what a log holds.
//
// The Go types here mirror the pydantic models of inspect_ai
// (src/inspect_ai/log/_log.py, model/_model_output.py, model/_chat_message.py,
// scorer/_metric.py, log/_edit.py, event/, _util/error.py): same JSON names,
// same shapes; a person's verdict is written as log/_score.py's edit_score
// leaves an edited score.
// Every member the EvalLog schema of Inspect's OpenAPI document requires is
// written, those with defaults included (its viewer reads the raw JSON,
// where pydantic's defaults are not filled in). Only the fields this tool
// fills are modelled.
package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
)

// logVersion is the log format version written (EvalLog.version).
const logVersion = 2

// Log is an evaluation log: one task run by one model (Inspect's EvalLog).
// The JSON member order is Inspect's own; its streaming header reader
// relies on status, eval, plan, results and stats coming before samples,
// and validates every header member it meets, so results and error are
// left out when there are none (Inspect writes with exclude_none), never
// written as null.
type Log struct {
	Version     int          `json:"version"`
	Status      string       `json:"status"` // "started", "success", "cancelled" or "error"
	Eval        evalSpec     `json:"eval"`
	Plan        evalPlan     `json:"plan"`
	Results     *evalResults `json:"results,omitempty"`
	Stats       evalStats    `json:"stats"`
	Error       *evalError   `json:"error,omitempty"`
	Invalidated bool         `json:"invalidated"`
	// Tags and Metadata are the log's current tags and metadata: Inspect
	// derives them from eval.tags and eval.metadata (plus later edits).
	Tags     []string       `json:"tags"`
	Metadata map[string]any `json:"metadata"`
	Samples  []evalSample   `json:"samples,omitempty"`
	// Reductions are each scorer's score of every sample, its epochs
	// reduced to one; Inspect writes them for every eval it scores (in an
	// .eval zip as its own member, reductions.json).
	Reductions []sampleReductions `json:"reductions,omitempty"`

	// notes say which figures the output files' numbers could not make
	// (a sum past the largest float), left out of the log.
	notes []string
}

// evalSpec identifies the evaluation and its configuration (EvalSpec).
type evalSpec struct {
	EvalID      string         `json:"eval_id"`
	RunID       string         `json:"run_id"`
	Created     string         `json:"created"` // ISO 8601 with offset, as Python's isoformat
	Task        string         `json:"task"`
	TaskID      string         `json:"task_id"`
	TaskVersion int            `json:"task_version"`
	TaskFile    string         `json:"task_file,omitempty"`
	TaskAttribs map[string]any `json:"task_attribs"`
	TaskArgs    map[string]any `json:"task_args"`
	// TaskArgsPassed are the task arguments given explicitly (none here).
	TaskArgsPassed map[string]any    `json:"task_args_passed"`
	Solver         string            `json:"solver,omitempty"`
	Dataset        evalDataset       `json:"dataset"`
	Model          string            `json:"model"`
	ModelConfig    generateConfig    `json:"model_generate_config"`
	ModelArgs      map[string]any    `json:"model_args"`
	Config         evalConfig        `json:"config"`
	Packages       map[string]string `json:"packages"`
	Metadata       map[string]any    `json:"metadata,omitempty"`
	// Scorers name each scorer and its metrics, which Inspect's
	// recompute_metrics (run by an edit of a score) computes again; without
	// them it guesses each scorer's metrics from its own scorers of the
	// same name.
	Scorers []evalScorer `json:"scorers,omitempty"`
}

// evalScorer is a scorer as the eval's spec records it (EvalScorer).
type evalScorer struct {
	Name     string             `json:"name"`
	Options  map[string]any     `json:"options"`
	Metrics  []metricDefinition `json:"metrics"`
	Metadata map[string]any     `json:"metadata"`
}

// metricDefinition is a metric by its registry name (EvalMetricDefinition).
type metricDefinition struct {
	Name    string         `json:"name"`
	Options map[string]any `json:"options"`
}

// evalDataset describes the samples (EvalDataset).
type evalDataset struct {
	Name      string     `json:"name,omitempty"`
	Location  string     `json:"location,omitempty"`
	Samples   int        `json:"samples"`
	SampleIDs []SampleID `json:"sample_ids"`
	Shuffled  bool       `json:"shuffled"`
}

// evalConfig is the evaluation configuration (EvalConfig); every field of
// it is optional in Inspect.
type evalConfig struct {
	// Limit and SampleID are the run's subset (run --limit, --questions),
	// as Inspect's --limit and --sample-id (whose patterns are globs too)
	// record theirs.
	Limit         int      `json:"limit,omitempty"`
	SampleID      []string `json:"sample_id,omitempty"`
	Epochs        int      `json:"epochs,omitempty"`
	EpochsReducer []string `json:"epochs_reducer,omitempty"`
	FailOnError   *bool    `json:"fail_on_error,omitempty"`
	LogSamples    *bool    `json:"log_samples,omitempty"`
}

// generateConfig holds the generation settings (GenerateConfig) by
// Inspect's names, which are model.Settings' JSON names but stop's
// (stop_seqs): a setting added to model.Settings reaches the log without
// a line here. Absent members mean the provider's default.
type generateConfig map[string]json.RawMessage

// MarshalJSON writes no settings as {}, as Inspect does.
func (g generateConfig) MarshalJSON() ([]byte, error) {
	if len(g) == 0 {
		return []byte("{}"), nil
	}
	return json.Marshal(map[string]json.RawMessage(g))
}

// evalPlan lists the solvers (EvalPlan).
type evalPlan struct {
	Name   string         `json:"name"`
	Steps  []evalPlanStep `json:"steps"`
	Config generateConfig `json:"config"`
}

// evalPlanStep is one solver of the plan (EvalPlanStep).
type evalPlanStep struct {
	Solver       string         `json:"solver"`
	Params       map[string]any `json:"params"`
	ParamsPassed map[string]any `json:"params_passed"`
}

// evalResults holds the scores (EvalResults).
type evalResults struct {
	TotalSamples     int         `json:"total_samples"`
	CompletedSamples int         `json:"completed_samples"`
	Scores           []evalScore `json:"scores"`
}

// evalScore is one scorer's result over the samples (EvalScore).
type evalScore struct {
	Name   string `json:"name"`
	Scorer string `json:"scorer"`
	// Reducer is the epochs reducer (epochsReducer).
	Reducer         string                `json:"reducer,omitempty"`
	ScoredSamples   *int                  `json:"scored_samples,omitempty"`
	UnscoredSamples *int                  `json:"unscored_samples,omitempty"`
	Params          map[string]any        `json:"params"`
	Metrics         map[string]evalMetric `json:"metrics"`
}

// evalMetric is one metric of a scorer (EvalMetric).
type evalMetric struct {
	Name   string         `json:"name"`
	Value  float          `json:"value"` // a float, as Inspect writes it (1.0, not 1)
	Params map[string]any `json:"params"`
}

// evalStats holds timing and usage (EvalStats).
type evalStats struct {
	StartedAt   string                `json:"started_at"`
	CompletedAt string                `json:"completed_at"`
	ModelUsage  map[string]modelUsage `json:"model_usage"`
	// RoleUsage is usage by model role (Inspect's model_roles; none here).
	RoleUsage map[string]modelUsage `json:"role_usage"`
	// ConnectionLimitHistory is the adaptive limit's changes (run -c
	// auto); empty for a fixed limit.
	ConnectionLimitHistory []connectionLimitChange `json:"connection_limit_history"`
}

// connectionLimitChange is a change of the adaptive limit on requests in
// flight (Inspect's ConnectionLimitChange).
type connectionLimitChange struct {
	Timestamp float64 `json:"timestamp"` // Unix seconds
	Model     string  `json:"model"`
	OldLimit  int     `json:"old_limit"`
	NewLimit  int     `json:"new_limit"`
	// Reason is Inspect's: steady_state_up for an increase, rate_limit
	// for a decrease (a 429, 503 or 529, a timeout, a slower first byte).
	Reason string `json:"reason"`
}

// modelUsage counts tokens (ModelUsage).
type modelUsage struct {
	InputTokens     int    `json:"input_tokens"`
	OutputTokens    int    `json:"output_tokens"`
	TotalTokens     int    `json:"total_tokens"`
	ReasoningTokens int    `json:"reasoning_tokens,omitempty"` // a part of OutputTokens
	TotalCost       *float `json:"total_cost,omitempty"`
}

// evalError is an error that halted an evaluation or a sample (EvalError:
// all three members are required).
type evalError struct {
	Message       string `json:"message"`
	Traceback     string `json:"traceback"`
	TracebackANSI string `json:"traceback_ansi"`
}

// evalSample is one question asked once (EvalSample), its members in
// Inspect's order.
type evalSample struct {
	ID       SampleID               `json:"id"`
	Epoch    int                    `json:"epoch"`
	Input    SampleInput            `json:"input"`
	Choices  []string               `json:"choices,omitempty"`
	Target   string                 `json:"target"`
	Messages []ChatMessage          `json:"messages"`
	Output   modelOutput            `json:"output"`
	Scores   map[string]sampleScore `json:"scores,omitempty"`
	Metadata map[string]any         `json:"metadata"`
	Store    map[string]any         `json:"store"`
	// Events are the transcript Inspect's viewer shows: a model event per
	// model call, tool and sandbox events for what ran.
	Events      []event               `json:"events"`
	ModelUsage  map[string]modelUsage `json:"model_usage"`
	RoleUsage   map[string]modelUsage `json:"role_usage"`
	TotalTime   *float64              `json:"total_time,omitempty"`
	WorkingTime *float64              `json:"working_time,omitempty"`
	UUID        string                `json:"uuid,omitempty"`
	Error       *evalError            `json:"error,omitempty"`
	// Attachments hold texts that messages and events refer to as
	// attachment://<hash>; none here.
	Attachments map[string]string `json:"attachments"`
	// Limit is the limit that ended the sample, if one did.
	Limit *sampleLimit `json:"limit,omitempty"`
}

// sampleLimit is a limit that ended a sample (EvalSampleLimit): its type
// (Inspect's "turn", "token", "time", ..., "custom") and value, -1 when
// not known (as Inspect writes a limit without a value).
type sampleLimit struct {
	Type  string `json:"type"`
	Limit float  `json:"limit"`
}

// sampleScore is a scorer's verdict on one sample (Score). Value is "C"
// (correct) or "I" (incorrect) in the samples this package writes, a float
// in their reductions; Inspect also allows booleans, lists and objects,
// never null.
type sampleScore struct {
	Value       any            `json:"value"`
	Answer      *string        `json:"answer,omitempty"`
	Explanation *string        `json:"explanation,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// History is the score's states when it was edited (Inspect's
	// ScoreEdit): the grader's score, then a person's verdict; empty for a
	// score nobody reviewed (a regrade writes a new log instead).
	History []scoreEdit `json:"history"`
}

// sampleReductions is one scorer's score of every sample it scored, the
// sample's epochs reduced to one by the reducer (EvalSampleReductions).
type sampleReductions struct {
	Scorer  string         `json:"scorer"`
	Reducer string         `json:"reducer,omitempty"`
	Samples []reducedScore `json:"samples"`
}

// reducedScore is a sample's reduced score (EvalSampleScore: a Score and
// the id of the sample it scores).
type reducedScore struct {
	sampleScore
	SampleID SampleID `json:"sample_id"`
}

// float is a score value a reducer computed, written as Python writes a
// float (1.0, not 1), so Inspect reads back a float as its reducer made,
// not an int.
type float float64

func (f float) MarshalJSON() ([]byte, error) {
	data, err := json.Marshal(float64(f))
	if err == nil && !bytes.ContainsAny(data, ".e") {
		data = append(data, ".0"...)
	}
	return data, err
}

// modelOutput is the model's output for a sample (ModelOutput).
type modelOutput struct {
	Model      string             `json:"model"`
	Choices    []completionChoice `json:"choices"`
	Completion string             `json:"completion"`
	Usage      *modelUsage        `json:"usage,omitempty"`
	Time       *float64           `json:"time,omitempty"`
}

// completionChoice is one completion choice (ChatCompletionChoice).
type completionChoice struct {
	Message    ChatMessage `json:"message"`
	StopReason string      `json:"stop_reason"`
}

// ChatMessage is a chat message (ChatMessageSystem, ChatMessageUser or
// ChatMessageAssistant, told apart by Role).
type ChatMessage struct {
	ID      string         `json:"id,omitempty"`
	Role    string         `json:"role"`
	Content MessageContent `json:"content"`
	Source  string         `json:"source,omitempty"` // "input" or "generate"
	Model   string         `json:"model,omitempty"`  // assistant messages only

	// Agent mode: an assistant turn's tool calls; a tool turn's call id,
	// function and error (a sandbox limit).
	ToolCalls  []toolCall     `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Function   string         `json:"function,omitempty"`
	Error      *toolCallError `json:"error,omitempty"`
}

// toolCall is Inspect's record of a tool call.
type toolCall struct {
	ID        string         `json:"id"`
	Function  string         `json:"function"`
	Arguments map[string]any `json:"arguments"`
	Type      string         `json:"type"` // "function"
	// ParseError is set when the arguments were not a JSON object.
	ParseError string `json:"parse_error,omitempty"`
}

// toolCallError is why a tool call failed (Inspect's types: timeout,
// output_limit, limit, ...).
type toolCallError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// MessageContent is a message's content: a plain string, or a list of
// content parts (which Inspect writes for reasoning, images and the like).
type MessageContent struct {
	Text  string
	Parts []contentPart
}

// contentPart is one part of a list content (ContentText, ContentReasoning,
// ...); members this package does not model are dropped when read.
type contentPart struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
	Signature string `json:"signature,omitempty"`
	Redacted  bool   `json:"redacted,omitempty"`
}

// MarshalJSON writes the members Inspect requires of each type, empty
// or false as they may be: ContentText's text, ContentReasoning's
// reasoning and redacted (and its signature, when it has one).
func (p contentPart) MarshalJSON() ([]byte, error) {
	switch p.Type {
	case "text":
		return marshal(struct {
			Type string `json:"type"`
			Text string `json:"text"`
		}{p.Type, p.Text})
	case "reasoning":
		return marshal(struct {
			Type      string `json:"type"`
			Reasoning string `json:"reasoning"`
			Signature string `json:"signature,omitempty"`
			Redacted  bool   `json:"redacted"`
		}{p.Type, p.Reasoning, p.Signature, p.Redacted})
	}
	type plain contentPart
	return marshal(plain(p))
}

// assistantContent is an assistant turn's content: its text alone, or,
// when the model reasoned first, a ContentReasoning part before it, as
// Inspect records a reasoning model's reply (its viewer folds it).
func assistantContent(text, reasoning string) MessageContent {
	if reasoning == "" {
		return MessageContent{Text: text}
	}
	return MessageContent{Parts: []contentPart{{Type: "reasoning", Reasoning: reasoning}, {Type: "text", Text: text}}}
}

// String returns the text of the content: the string, or the text parts
// joined by newlines as Inspect's ChatMessage.text does.
func (c MessageContent) String() string {
	if c.Parts == nil {
		return c.Text
	}
	var b bytes.Buffer
	first := true
	for _, p := range c.Parts {
		if p.Type != "text" {
			continue
		}
		if !first {
			b.WriteByte('\n')
		}
		first = false
		b.WriteString(p.Text)
	}
	return b.String()
}

// MarshalJSON writes the string form unless there are parts.
func (c MessageContent) MarshalJSON() ([]byte, error) { return marshalTextOr(c.Text, c.Parts) }

// UnmarshalJSON reads either form.
func (c *MessageContent) UnmarshalJSON(data []byte) error {
	return unmarshalTextOr(data, &c.Text, &c.Parts)
}

// SampleInput is a sample's input: the user message as a string, or a
// message list (used when a system message goes with it).
type SampleInput struct {
	Text     string
	Messages []ChatMessage
}

// MarshalJSON writes the string form unless there are messages.
func (in SampleInput) MarshalJSON() ([]byte, error) { return marshalTextOr(in.Text, in.Messages) }

// UnmarshalJSON reads either form.
func (in *SampleInput) UnmarshalJSON(data []byte) error {
	return unmarshalTextOr(data, &in.Text, &in.Messages)
}

// marshalTextOr writes Inspect's "string or list" members: the list when
// there is one (even empty), else the string.
func marshalTextOr[T any](text string, list []T) ([]byte, error) {
	if list != nil {
		return marshal(list)
	}
	return marshal(text)
}

// unmarshalTextOr reads a "string or list" member into whichever it is,
// emptying the other.
func unmarshalTextOr[T any](data []byte, text *string, list *[]T) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		*text = ""
		return json.Unmarshal(data, list)
	}
	*list = nil
	return json.Unmarshal(data, text)
}

// SampleID is a sample id, which Inspect allows to be an integer or a
// string. Num says the id is written as a JSON integer.
type SampleID struct {
	Text string
	Num  bool
}

// StringID returns a string id.
func StringID(s string) SampleID { return SampleID{Text: s} }

// MakeID returns an integer id when s is the canonical decimal form of an
// integer (as a benchmark's own ids are: "42", not "042" or "+42"), else a
// string id.
func MakeID(s string) SampleID {
	if n, err := strconv.ParseInt(s, 10, 64); err == nil && strconv.FormatInt(n, 10) == s {
		return SampleID{Text: s, Num: true}
	}
	return SampleID{Text: s}
}

// String returns the id's text.
func (id SampleID) String() string { return id.Text }

// MarshalJSON writes an integer or a string.
func (id SampleID) MarshalJSON() ([]byte, error) {
	if id.Num {
		return []byte(id.Text), nil
	}
	return marshal(id.Text)
}

// UnmarshalJSON reads an integer or a string.
func (id *SampleID) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '"' {
		id.Num = false
		return json.Unmarshal(data, &id.Text)
	}
	if _, err := strconv.ParseInt(string(data), 10, 64); err != nil {
		return fmt.Errorf("sample id %s is neither an integer nor a string", data)
	}
	id.Text, id.Num = string(data), true
	return nil
}

// marshal encodes v without HTML escaping, so completions read as written.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
