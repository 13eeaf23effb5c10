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
	// LimitValue is that limit's value: model calls, tokens or seconds.
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

// SolveFromMeta reads the answer mode and its options from a question's
// steering meta (its own meta over the sheet's): mode, code_extract,
// agent_style, max_turns, question_timeout (seconds, or a duration such as
// 90s or 5m), token_budget, tool_timeout (as question_timeout) and
// tool_memory (a size such as 2G or 512M). Non-zero fields of flags win
// over the meta. It returns nil for chat mode. Errors name the meta key.
func SolveFromMeta(meta map[string]string, flags Solve) (*Solve, error) {
	s := Solve{Mode: meta["mode"], Extract: meta["code_extract"], Style: meta["agent_style"]}
	var err error
	if s.MaxTurns, err = metaInt(meta, "max_turns"); err != nil {
		return nil, err
	}
	if s.TokenBudget, err = metaInt(meta, "token_budget"); err != nil {
		return nil, err
	}
	if v := strings.TrimSpace(meta["question_timeout"]); v != "" {
		if s.QuestionTimeout, err = parseSeconds(v); err != nil {
			return nil, fmt.Errorf("meta question_timeout: %w", err)
		}
	}
	if v := strings.TrimSpace(meta["tool_timeout"]); v != "" {
		if s.ToolTimeout, err = parseSeconds(v); err != nil {
			return nil, fmt.Errorf("meta tool_timeout: %w", err)
		}
	}
	if v := strings.TrimSpace(meta["tool_memory"]); v != "" {
		if s.ToolMemory, err = ParseSize(v); err != nil {
			return nil, fmt.Errorf("meta tool_memory: %w", err)
		}
	}
	switch v := strings.TrimSpace(meta["reformat"]); v {
	case "", "none":
	case "required":
		r := &Reformat{}
		for key, dst := range map[string]*string{"reformat_question": &r.Question, "reformat_format": &r.Format} {
			if err := json.Unmarshal([]byte(meta[key]), dst); err != nil {
				return nil, fmt.Errorf("meta %s (reformat: required): want the text as a JSON string, got %.40q", key, meta[key])
			}
		}
		s.Reformat = r
	default:
		return nil, fmt.Errorf("meta reformat %q: want required or none", v)
	}
	if flags.Mode != "" {
		s.Mode = flags.Mode
	}
	if flags.ToolTimeout != 0 {
		s.ToolTimeout = flags.ToolTimeout
	}
	if flags.ToolMemory != 0 {
		s.ToolMemory = flags.ToolMemory
	}
	if flags.Extract != "" {
		s.Extract = flags.Extract
	}
	if flags.Style != "" {
		s.Style = flags.Style
	}
	if flags.MaxTurns != 0 {
		s.MaxTurns = flags.MaxTurns
	}
	if flags.TokenBudget != 0 {
		s.TokenBudget = flags.TokenBudget
	}
	if flags.QuestionTimeout != 0 {
		s.QuestionTimeout = flags.QuestionTimeout
	}
	s.Mode = strings.ToLower(strings.TrimSpace(s.Mode))
	switch s.Mode {
	case "", ModeChat:
		return nil, nil
	case ModeCode:
		if s.Extract == "" {
			s.Extract = "lenient"
		}
		if s.Extract != "baseline" && s.Extract != "lenient" {
			return nil, fmt.Errorf("code_extract %q: want baseline or lenient", s.Extract)
		}
	case ModeAgent:
		if s.Style == "" {
			s.Style = "tools"
		}
		if s.Style != "tools" && s.Style != "react" {
			return nil, fmt.Errorf("agent_style %q: want tools or react", s.Style)
		}
	default:
		return nil, fmt.Errorf("mode %q: want chat, code or agent", s.Mode)
	}
	return &s, nil
}

func metaInt(meta map[string]string, key string) (int, error) {
	v := strings.TrimSpace(meta[key])
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("meta %s: %q is not a whole number >= 0", key, v)
	}
	return n, nil
}

// parseSeconds reads "90" (seconds) or a Go duration ("90s", "5m").
func parseSeconds(v string) (time.Duration, error) {
	if f, err := strconv.ParseFloat(v, 64); err == nil {
		if f < 0 || f != f {
			return 0, fmt.Errorf("%q: want seconds >= 0", v)
		}
		return time.Duration(f * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want seconds or a duration such as 90s", v)
	}
	return d, nil
}

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
