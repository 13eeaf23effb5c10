// Package inspect reads and writes the interchange formats of Inspect AI
// (UK AISI's evaluation framework): evaluation logs, in Inspect's .eval
// format (a zip of JSON members) or its JSON format (log format version 2),
// which Inspect's log viewer (`inspect view`), its read_eval_log and R's
// vitals package open, and datasets in JSON Lines, which Inspect's
// json_dataset loads.
//
// The Go types here mirror the pydantic models of inspect_ai
// (src/inspect_ai/log/_log.py, model/_model_output.py, model/_chat_message.py,
// scorer/_metric.py, event/, _util/error.py): same JSON names, same shapes.
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

// LogVersion is the log format version written (EvalLog.version).
const LogVersion = 2

// Log is an evaluation log: one task run by one model (Inspect's EvalLog).
// The JSON member order is Inspect's own; its streaming header reader
// relies on status, eval, plan, results and stats coming before samples,
// and validates every header member it meets, so results and error are
// left out when there are none (Inspect writes with exclude_none), never
// written as null.
type Log struct {
	Version     int        `json:"version"`
	Status      string     `json:"status"` // "started", "success", "cancelled" or "error"
	Eval        Spec       `json:"eval"`
	Plan        Plan       `json:"plan"`
	Results     *Results   `json:"results,omitempty"`
	Stats       Stats      `json:"stats"`
	Error       *EvalError `json:"error,omitempty"`
	Invalidated bool       `json:"invalidated"`
	// Tags and Metadata are the log's current tags and metadata: Inspect
	// derives them from eval.tags and eval.metadata (plus later edits).
	Tags     []string       `json:"tags"`
	Metadata map[string]any `json:"metadata"`
	Samples  []Sample       `json:"samples,omitempty"`
}

// Spec identifies the evaluation and its configuration (EvalSpec).
type Spec struct {
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
	Dataset        Dataset           `json:"dataset"`
	Model          string            `json:"model"`
	ModelConfig    GenerateConfig    `json:"model_generate_config"`
	ModelArgs      map[string]any    `json:"model_args"`
	Config         Config            `json:"config"`
	Packages       map[string]string `json:"packages"`
	Metadata       map[string]any    `json:"metadata,omitempty"`
}

// Dataset describes the samples (EvalDataset).
type Dataset struct {
	Name      string     `json:"name,omitempty"`
	Location  string     `json:"location,omitempty"`
	Samples   int        `json:"samples"`
	SampleIDs []SampleID `json:"sample_ids"`
	Shuffled  bool       `json:"shuffled"`
}

// Config is the evaluation configuration (EvalConfig); every field of it
// is optional in Inspect.
type Config struct {
	Epochs        int      `json:"epochs,omitempty"`
	EpochsReducer []string `json:"epochs_reducer,omitempty"`
	FailOnError   *bool    `json:"fail_on_error,omitempty"`
	LogSamples    *bool    `json:"log_samples,omitempty"`
}

// GenerateConfig holds the generation settings (GenerateConfig); absent
// members mean the provider's default.
type GenerateConfig struct {
	MaxTokens   *int     `json:"max_tokens,omitempty"`
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	StopSeqs    []string `json:"stop_seqs,omitempty"`
}

// Plan lists the solvers (EvalPlan).
type Plan struct {
	Name   string         `json:"name"`
	Steps  []PlanStep     `json:"steps"`
	Config GenerateConfig `json:"config"`
}

// PlanStep is one solver of the plan (EvalPlanStep).
type PlanStep struct {
	Solver       string         `json:"solver"`
	Params       map[string]any `json:"params"`
	ParamsPassed map[string]any `json:"params_passed"`
}

// Results holds the scores (EvalResults).
type Results struct {
	TotalSamples     int     `json:"total_samples"`
	CompletedSamples int     `json:"completed_samples"`
	Scores           []Score `json:"scores"`
}

// Score is one scorer's result over the samples (EvalScore).
type Score struct {
	Name            string            `json:"name"`
	Scorer          string            `json:"scorer"`
	ScoredSamples   *int              `json:"scored_samples,omitempty"`
	UnscoredSamples *int              `json:"unscored_samples,omitempty"`
	Params          map[string]any    `json:"params"`
	Metrics         map[string]Metric `json:"metrics"`
}

// Metric is one metric of a scorer (EvalMetric).
type Metric struct {
	Name   string         `json:"name"`
	Value  float64        `json:"value"`
	Params map[string]any `json:"params"`
}

// Stats holds timing and usage (EvalStats).
type Stats struct {
	StartedAt   string           `json:"started_at"`
	CompletedAt string           `json:"completed_at"`
	ModelUsage  map[string]Usage `json:"model_usage"`
	// RoleUsage is usage by model role (Inspect's model_roles; none here).
	RoleUsage map[string]Usage `json:"role_usage"`
	// ConnectionLimitHistory is the adaptive limit's changes (run -c
	// auto); empty for a fixed limit.
	ConnectionLimitHistory []ConnectionLimitChange `json:"connection_limit_history"`
}

// ConnectionLimitChange is a change of the adaptive limit on requests in
// flight (Inspect's ConnectionLimitChange).
type ConnectionLimitChange struct {
	Timestamp float64 `json:"timestamp"` // Unix seconds
	Model     string  `json:"model"`
	OldLimit  int     `json:"old_limit"`
	NewLimit  int     `json:"new_limit"`
	// Reason is Inspect's: steady_state_up for an increase, rate_limit
	// for a decrease (a 429, 503 or 529, a timeout, a slower first byte).
	Reason string `json:"reason"`
}

// Usage counts tokens (ModelUsage).
type Usage struct {
	InputTokens  int      `json:"input_tokens"`
	OutputTokens int      `json:"output_tokens"`
	TotalTokens  int      `json:"total_tokens"`
	TotalCost    *float64 `json:"total_cost,omitempty"`
}

// EvalError is an error that halted an evaluation or a sample (EvalError:
// all three members are required).
type EvalError struct {
	Message       string `json:"message"`
	Traceback     string `json:"traceback"`
	TracebackANSI string `json:"traceback_ansi"`
}

// Sample is one question asked once (EvalSample), its members in
// Inspect's order.
type Sample struct {
	ID       SampleID               `json:"id"`
	Epoch    int                    `json:"epoch"`
	Input    Input                  `json:"input"`
	Choices  []string               `json:"choices,omitempty"`
	Target   string                 `json:"target"`
	Messages []Message              `json:"messages"`
	Output   Output                 `json:"output"`
	Scores   map[string]SampleScore `json:"scores,omitempty"`
	Metadata map[string]any         `json:"metadata"`
	Store    map[string]any         `json:"store"`
	// Events are the transcript Inspect's viewer shows: a model event per
	// model call, tool and sandbox events for what ran.
	Events      []Event          `json:"events"`
	ModelUsage  map[string]Usage `json:"model_usage"`
	RoleUsage   map[string]Usage `json:"role_usage"`
	TotalTime   *float64         `json:"total_time,omitempty"`
	WorkingTime *float64         `json:"working_time,omitempty"`
	UUID        string           `json:"uuid,omitempty"`
	Error       *EvalError       `json:"error,omitempty"`
	// Attachments hold texts that messages and events refer to as
	// attachment://<hash>; none here.
	Attachments map[string]string `json:"attachments"`
}

// SampleScore is a scorer's verdict on one sample (Score). Value is "C"
// (correct) or "I" (incorrect) in the logs this package writes; Inspect
// also allows numbers, booleans, lists and objects, never null.
type SampleScore struct {
	Value       any            `json:"value"`
	Answer      *string        `json:"answer,omitempty"`
	Explanation *string        `json:"explanation,omitempty"`
	Metadata    map[string]any `json:"metadata,omitempty"`
	// History lists later edits of the score (Inspect's ScoreEdit); a
	// regrade here writes a new log instead, so it is always empty.
	History []json.RawMessage `json:"history"`
}

// Output is the model's output for a sample (ModelOutput).
type Output struct {
	Model      string   `json:"model"`
	Choices    []Choice `json:"choices"`
	Completion string   `json:"completion"`
	Usage      *Usage   `json:"usage,omitempty"`
	Time       *float64 `json:"time,omitempty"`
}

// Choice is one completion choice (ChatCompletionChoice).
type Choice struct {
	Message    Message `json:"message"`
	StopReason string  `json:"stop_reason"`
}

// Message is a chat message (ChatMessageSystem, ChatMessageUser or
// ChatMessageAssistant, told apart by Role).
type Message struct {
	ID      string  `json:"id,omitempty"`
	Role    string  `json:"role"`
	Content Content `json:"content"`
	Source  string  `json:"source,omitempty"` // "input" or "generate"
	Model   string  `json:"model,omitempty"`  // assistant messages only

	// Agent mode: an assistant turn's tool calls; a tool turn's call id,
	// function and error (a sandbox limit).
	ToolCalls  []ToolCall     `json:"tool_calls,omitempty"`
	ToolCallID string         `json:"tool_call_id,omitempty"`
	Function   string         `json:"function,omitempty"`
	Error      *ToolCallError `json:"error,omitempty"`
}

// ToolCall is Inspect's record of a tool call.
type ToolCall struct {
	ID        string         `json:"id"`
	Function  string         `json:"function"`
	Arguments map[string]any `json:"arguments"`
	Type      string         `json:"type"` // "function"
	// ParseError is set when the arguments were not a JSON object.
	ParseError string `json:"parse_error,omitempty"`
}

// ToolCallError is why a tool call failed (Inspect's types: timeout,
// output_limit, limit, ...).
type ToolCallError struct {
	Type    string `json:"type"`
	Message string `json:"message"`
}

// Content is a message's content: a plain string, or a list of content
// parts (which Inspect writes for reasoning, images and the like).
type Content struct {
	Text  string
	Parts []ContentPart
}

// ContentPart is one part of a list content (ContentText, ContentReasoning,
// ...); members this package does not model are dropped when read.
type ContentPart struct {
	Type      string `json:"type"`
	Text      string `json:"text,omitempty"`
	Reasoning string `json:"reasoning,omitempty"`
}

// String returns the text of the content: the string, or the text parts
// joined by newlines as Inspect's ChatMessage.text does.
func (c Content) String() string {
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
func (c Content) MarshalJSON() ([]byte, error) {
	if c.Parts != nil {
		return marshal(c.Parts)
	}
	return marshal(c.Text)
}

// UnmarshalJSON reads either form.
func (c *Content) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		c.Text = ""
		return json.Unmarshal(data, &c.Parts)
	}
	c.Parts = nil
	return json.Unmarshal(data, &c.Text)
}

// Input is a sample's input: the user message as a string, or a message
// list (used when a system message goes with it).
type Input struct {
	Text     string
	Messages []Message
}

// MarshalJSON writes the string form unless there are messages.
func (in Input) MarshalJSON() ([]byte, error) {
	if in.Messages != nil {
		return marshal(in.Messages)
	}
	return marshal(in.Text)
}

// UnmarshalJSON reads either form.
func (in *Input) UnmarshalJSON(data []byte) error {
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		in.Text = ""
		return json.Unmarshal(data, &in.Messages)
	}
	in.Messages = nil
	return json.Unmarshal(data, &in.Text)
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
