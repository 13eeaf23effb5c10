package model

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"time"
)

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

// ToolRun is what an answer did beyond one completion: the code it ran and
// what came out (code mode), or the turns of a tool-calling loop (agent
// mode). It travels with the Response through the runner's journal and
// cache, so a finished question is never run again on resume, and is
// written into the output file beside the completion.
type ToolRun struct {
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
	// LimitValue is that limit's value: model calls, tokens or seconds;
	// a sandbox limit's in code mode: seconds (tool_timeout, cpu), bytes
	// (memory, output) or processes.
	LimitValue float64 `json:"limit_value,omitempty"`
	// ReformatModel names the model that rewrote the final answer
	// (Solve.Reformat); Answer then holds its rewrite, the text graded,
	// and the completion stays the agent's own answer.
	ReformatModel string `json:"reformat_model,omitempty"`

	// Env is the sandbox's environment (python, pandas, numpy versions).
	Env map[string]string `json:"env,omitempty"`
}

// Solve says that a question's answer is made by running code rather than
// read from one completion. Providers never send it; package solve, which
// wraps a Model, acts on it. It is part of a request's cache key.
type Solve struct {
	Mode  string   // ModeCode or ModeAgent
	Files []string // host paths of the question's files; the code sees them under their base names

	// Code mode: the rule that takes the code out of the completion
	// ("baseline" or "lenient").
	Extract string

	// ThinkTags is the rule for <think> blocks at the start of a reply's
	// text (ThinkAuto, ThinkKeep, ThinkStrip; "" is ThinkAuto): code is
	// extracted from, and an agent reads, the answer the rule leaves.
	// In chat mode, where Solve is nil, the run applies it to the answer.
	ThinkTags string

	// Agent mode: the loop's style ("tools" or "react") and its limits.
	Style           string
	MaxTurns        int           // model calls; 0 means the default (10)
	QuestionTimeout time.Duration // 0: none
	TokenBudget     int           // input+output tokens over all turns; 0: none

	// Code and agent modes: limits of one python call, over the sandbox's
	// defaults (180 s, 2 GiB). 0: the sandbox's.
	ToolTimeout time.Duration
	ToolMemory  int64 // bytes

	// Reformat, when set, says the final answer must be rewritten by a
	// second model before it is graded (InfiAgent's reformat step: the
	// "reformat: required" meta). Agent mode only.
	Reformat *Reformat
}

// Reformat is what InfiAgent's reformat step shows the second model of a
// question beside the answer: the question's own text and its format
// requirement. A sheet holds them in the reformat_question and
// reformat_format meta as JSON strings (they may span lines).
type Reformat struct {
	Question, Format string
}

// Answer modes (the `mode` meta).
const (
	ModeChat  = "chat"  // one completion is the answer
	ModeCode  = "code"  // the completion is code, run on the question's tables
	ModeAgent = "agent" // the model calls a Python tool until it answers
)

// ParseSize reads a byte count with an optional K, M or G suffix (powers
// of 1024; "iB" or "B" after it are allowed): 2G, 512MiB, 1048576.
func ParseSize(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSuffix(strings.ToUpper(strings.TrimSpace(s)), "B"), "I")
	mult := int64(1)
	switch {
	case strings.HasSuffix(t, "K"):
		mult, t = 1<<10, strings.TrimSuffix(t, "K")
	case strings.HasSuffix(t, "M"):
		mult, t = 1<<20, strings.TrimSuffix(t, "M")
	case strings.HasSuffix(t, "G"):
		mult, t = 1<<30, strings.TrimSuffix(t, "G")
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n <= 0 || n > (1<<62)/mult {
		return 0, fmt.Errorf("%q: want a size such as 2G or 512M", s)
	}
	return n * mult, nil
}
