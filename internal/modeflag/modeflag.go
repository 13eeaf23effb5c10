// Package modeflag binds run's answer-mode and sandbox flags: how a
// question is answered (chat, code, agent), the agent's limits, and where
// Python runs. Each flag overrides the `mode`, `code_extract`,
// `agent_style`, `max_turns`, `question_timeout`, `token_budget`,
// `tool_timeout` and `tool_memory` meta: flags, then the question's meta,
// then the sheet's, then the defaults.
package modeflag

import (
	"flag"
	"fmt"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sandbox"
)

// Flags are the answer-mode and sandbox flags.
type Flags struct {
	Mode, Extract, Style string
	MaxTurns             int
	QuestionTimeout      time.Duration
	TokenBudget          int

	// Reformat names the model of InfiAgent's reformat step, at
	// ReformatBaseURL when set.
	Reformat, ReformatBaseURL string

	Backend     string
	Image       string
	ToolTimeout time.Duration
	ToolMemory  string
	Sandboxes   int
}

// Bind registers the flags on fs.
func Bind(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Mode, "mode", "", "answer mode for every question: chat, code or agent (default: the mode meta, else chat)")
	fs.StringVar(&f.Extract, "code-extract", "", "code mode's extraction rule: baseline (DataBench's, exact) or lenient (chat models)")
	fs.StringVar(&f.Style, "agent-style", "", "agent mode: tools (native tool calling) or react (InfiAgent's text loop)")
	fs.IntVar(&f.MaxTurns, "max-turns", 0, "agent mode: model calls per question (default 10)")
	fs.DurationVar(&f.QuestionTimeout, "question-timeout", 0, "agent mode: time limit of a whole question (default none)")
	fs.IntVar(&f.TokenBudget, "token-budget", 0, "agent mode: input+output tokens per question (default none)")
	fs.StringVar(&f.Reformat, "reformat", "", "agent mode: rewrite each final answer into the @name[value] format with this model, as InfiAgent's reformat.py (gpt-3.5-turbo-16k there); sheets with reformat: required need it")
	fs.StringVar(&f.ReformatBaseURL, "reformat-base-url", "", "OpenAI-compatible server of the --reformat model (default: the provider's)")
	fs.StringVar(&f.Backend, "sandbox", "", "where code runs: bwrap (default), docker, or none (no isolation; warns)")
	fs.StringVar(&f.Image, "sandbox-image", "", "docker image for --sandbox docker")
	fs.DurationVar(&f.ToolTimeout, "tool-timeout", 0, "time limit of one python call (default: the tool_timeout meta, else 180s)")
	fs.StringVar(&f.ToolMemory, "tool-memory", "", "memory limit of the interpreter, e.g. 2G or 512M (default: the tool_memory meta, else 2G)")
	fs.IntVar(&f.Sandboxes, "sandboxes", 0, "sandboxes in flight at once, apart from -c (default: the number of cores)")
	return f
}

// Solve is the mode flags as overrides of each question's meta.
func (f *Flags) Solve() (model.Solve, error) {
	if f.MaxTurns < 0 || f.TokenBudget < 0 || f.QuestionTimeout < 0 {
		return model.Solve{}, fmt.Errorf("--max-turns, --token-budget and --question-timeout must not be negative")
	}
	s := model.Solve{Mode: f.Mode, Extract: f.Extract, Style: f.Style, MaxTurns: f.MaxTurns,
		QuestionTimeout: f.QuestionTimeout, TokenBudget: f.TokenBudget, ToolTimeout: f.ToolTimeout}
	if f.ToolTimeout < 0 {
		return model.Solve{}, fmt.Errorf("--tool-timeout must not be negative")
	}
	if f.ToolMemory != "" {
		n, err := model.ParseSize(f.ToolMemory)
		if err != nil {
			return model.Solve{}, fmt.Errorf("--tool-memory: %w", err)
		}
		s.ToolMemory = n
	}
	// Validated as a question's meta would be, so a typo stops the run at once.
	if _, err := model.SolveFromMeta(nil, s); err != nil {
		return model.Solve{}, fmt.Errorf("--mode/--code-extract/--agent-style: %w", err)
	}
	return s, nil
}

// Sandbox is the sandbox configuration the flags ask for.
func (f *Flags) Sandbox() (sandbox.Config, error) {
	c := sandbox.Config{Backend: sandbox.Backend(f.Backend), Image: f.Image, Timeout: f.ToolTimeout, MaxInFlight: f.Sandboxes}
	if f.ToolTimeout < 0 || f.Sandboxes < 0 {
		return c, fmt.Errorf("--tool-timeout and --sandboxes must not be negative")
	}
	if f.ToolMemory != "" {
		n, err := model.ParseSize(f.ToolMemory)
		if err != nil {
			return c, fmt.Errorf("--tool-memory: %w", err)
		}
		c.Memory = n
	}
	return c, nil
}
