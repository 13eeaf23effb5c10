package inspect

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// event is one entry of a sample's transcript (Inspect's event union, told
// apart by its "event" member). One of Model, Tool, Sandbox, Limit and
// ScoreEdit is set for the events this package writes; an event of
// another kind read from Inspect's own logs is kept as it was in Raw.
type event struct {
	Model   *modelEvent
	Tool    *toolEvent
	Sandbox *sandboxEvent
	Limit   *sampleLimitEvent
	// ScoreEdit is a person's verdict on the sample's score.
	ScoreEdit *scoreEditEvent
	Raw       json.RawMessage
}

// Kind is the event's "event" member: "model", "tool", "sandbox", or the
// kind of a raw event.
func (e event) Kind() string {
	switch {
	case e.Model != nil:
		return "model"
	case e.Tool != nil:
		return "tool"
	case e.Sandbox != nil:
		return "sandbox"
	case e.Limit != nil:
		return "sample_limit"
	case e.ScoreEdit != nil:
		return "score_edit"
	}
	var head struct {
		Event string `json:"event"`
	}
	json.Unmarshal(e.Raw, &head)
	return head.Event
}

// MarshalJSON writes the event that is set.
func (e event) MarshalJSON() ([]byte, error) {
	switch {
	case e.Model != nil:
		return marshal(e.Model)
	case e.Tool != nil:
		return marshal(e.Tool)
	case e.Sandbox != nil:
		return marshal(e.Sandbox)
	case e.Limit != nil:
		return marshal(e.Limit)
	case e.ScoreEdit != nil:
		return marshal(e.ScoreEdit)
	case e.Raw != nil:
		return e.Raw, nil
	}
	return nil, fmt.Errorf("inspect: empty event")
}

// UnmarshalJSON reads the kinds of events this package writes into their
// types and keeps any other event raw.
func (e *event) UnmarshalJSON(data []byte) error {
	*e = event{}
	var head struct {
		Event string `json:"event"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return err
	}
	switch head.Event {
	case "model":
		e.Model = &modelEvent{}
		return json.Unmarshal(data, e.Model)
	case "tool":
		e.Tool = &toolEvent{}
		return json.Unmarshal(data, e.Tool)
	case "sandbox":
		e.Sandbox = &sandboxEvent{}
		return json.Unmarshal(data, e.Sandbox)
	case "sample_limit":
		e.Limit = &sampleLimitEvent{}
		return json.Unmarshal(data, e.Limit)
	case "score_edit":
		e.ScoreEdit = &scoreEditEvent{}
		return json.Unmarshal(data, e.ScoreEdit)
	}
	e.Raw = append(json.RawMessage(nil), bytes.TrimSpace(data)...)
	return nil
}

// modelEvent is one model call (Inspect's ModelEvent): the messages sent,
// the tools offered and the output received.
type modelEvent struct {
	Event        string         `json:"event"` // "model"
	Timestamp    string         `json:"timestamp"`
	WorkingStart float          `json:"working_start"`
	Model        string         `json:"model"`
	Input        []ChatMessage  `json:"input"`
	Tools        []toolInfo     `json:"tools"`
	ToolChoice   string         `json:"tool_choice"` // "none" without tools, else "auto"
	Config       generateConfig `json:"config"`
	Output       modelOutput    `json:"output"`
	// Error is why the call failed; Output is then empty.
	Error       string   `json:"error,omitempty"`
	WorkingTime *float64 `json:"working_time,omitempty"`
}

// toolInfo describes a tool offered to the model (Inspect's ToolInfo);
// Parameters is the JSON Schema of its arguments object.
type toolInfo struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	Parameters  json.RawMessage `json:"parameters"`
}

// toolEvent is one tool call and its result (Inspect's ToolEvent).
type toolEvent struct {
	Event        string         `json:"event"` // "tool"
	Timestamp    string         `json:"timestamp"`
	WorkingStart float          `json:"working_start"`
	Type         string         `json:"type"` // "function"
	ID           string         `json:"id"`
	Function     string         `json:"function"`
	Arguments    map[string]any `json:"arguments"`
	Result       string         `json:"result"`
	Error        *toolCallError `json:"error,omitempty"`
	// Events are the events inside the call; none here.
	Events []json.RawMessage `json:"events"`
}

// sandboxEvent is a command run in the sandbox (Inspect's SandboxEvent):
// here, a code-mode answer's code and what it gave.
type sandboxEvent struct {
	Event        string `json:"event"` // "sandbox"
	Timestamp    string `json:"timestamp"`
	WorkingStart float  `json:"working_start"`
	Action       string `json:"action"` // "exec"
	Cmd          string `json:"cmd,omitempty"`
	Input        string `json:"input,omitempty"`
	Result       *int   `json:"result,omitempty"` // the exit status
	Output       string `json:"output,omitempty"`
}

// sampleLimitEvent says a limit stopped the sample (Inspect's
// SampleLimitEvent): the limit's type, as the sample's limit names it, a
// message, and its value.
type sampleLimitEvent struct {
	Event        string `json:"event"` // "sample_limit"
	Timestamp    string `json:"timestamp"`
	WorkingStart float  `json:"working_start"`
	Type         string `json:"type"`
	Message      string `json:"message"`
	Limit        *float `json:"limit"` // null when not known
}

// stopReason maps a provider's finish reason, as an output file records it,
// to Inspect's StopReason the way Inspect's own code does
// (model/_model_output.py as_stop_reason for OpenAI-style reasons,
// model/_providers/anthropic.py for Anthropic's). "" (not recorded, as in
// LIME's files and the offline models) and anything else is "unknown".
func stopReason(finish string) string {
	switch finish {
	case "stop", "eos", "end_turn", "stop_sequence":
		return "stop"
	case "length", "max_tokens":
		return "max_tokens"
	case "tool_calls", "function_call", "tool_use":
		return "tool_calls"
	case "content_filter", "refusal":
		return "content_filter"
	case "model_length":
		return "model_length"
	}
	return "unknown"
}
