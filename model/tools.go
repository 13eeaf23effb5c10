package model

import "encoding/json"

// Tool is a function offered to the model (OpenAI's tools, Anthropic's
// tool_use). Providers that cannot call tools answer with text only.
type Tool struct {
	Name        string
	Description string
	Parameters  json.RawMessage // JSON Schema of the arguments object
}

// ToolCall is the model asking for a tool to be run.
type ToolCall struct {
	ID        string `json:"id"`        // the provider's id, echoed in the result
	Name      string `json:"name"`      // the tool's name
	Arguments string `json:"arguments"` // the arguments as JSON text
}

// Work is what an answer did beyond one completion: the code it ran and
// what came out (code mode), or the turns of a tool-calling loop (agent
// mode). It travels with the Response through the runner's journal and
// cache, so a finished question is never run again on resume, and is
// written into the output file beside the completion.
type Work struct {
	Mode string `json:"mode"` // "code" or "agent"

	// Code mode.
	Extract string  `json:"extract,omitempty"` // the extraction rule used: baseline, lenient
	Code    string  `json:"code,omitempty"`    // what was executed
	Answer  *string `json:"answer,omitempty"`  // the answer string graded; nil when nothing ran
	Error   string  `json:"error,omitempty"`   // why nothing ran, or the execution's error

	// Agent mode.
	Transcript []Message `json:"transcript,omitempty"` // the turns after the question
	Turns      int       `json:"turns,omitempty"`      // model calls made
	Limit      string    `json:"limit,omitempty"`      // the limit that ended the question, if any

	// Env is the sandbox's environment (python, pandas, numpy versions).
	Env map[string]string `json:"env,omitempty"`
}
