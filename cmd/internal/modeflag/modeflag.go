// Package modeflag binds run's answer-mode and sandbox flags: every
// setting a flag may set (--mode, --code-extract, --agent-style,
// --max-turns, --tool-timeout, ...: see package setting, which declares
// them), the reformat model, and where Python runs.
package modeflag

import (
	"flag"
	"fmt"

	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/sandbox"
)

// Flags are the answer-mode and sandbox flags.
type Flags struct {
	// Settings are the settings given as flags, over every sheet's meta.
	Settings *setting.Layer

	// Reformat names the model of InfiAgent's reformat step, at
	// ReformatBaseURL when set.
	Reformat, ReformatBaseURL string
	// Sandboxes caps the sandboxes in flight (0: the number of cores).
	Sandboxes int
}

// Bind registers the flags on fs.
func Bind(fs *flag.FlagSet) *Flags {
	f := &Flags{Settings: setting.Bind(fs)}
	fs.StringVar(&f.Reformat, "reformat", "", "agent mode: rewrite each final answer into the @name[value] format with this model, as InfiAgent's reformat.py (gpt-3.5-turbo-16k there); sheets with reformat: required need it")
	fs.StringVar(&f.ReformatBaseURL, "reformat-base-url", "", "OpenAI-compatible server of the --reformat model (default: the provider's)")
	fs.IntVar(&f.Sandboxes, "sandboxes", 0, "sandboxes in flight at once, apart from -c (default: the number of cores)")
	return f
}

// Sandbox is the sandbox configuration of run, the run's own settings
// (config and flags): the sandbox and its image (never a sheet's or a
// workspace file's), and the pool's default tool_timeout and tool_memory.
func (f *Flags) Sandbox(run setting.Values) (sandbox.Config, error) {
	c := sandbox.Config{Backend: sandbox.Backend(run.Sandbox), Image: run.SandboxImage, Timeout: run.Solve.ToolTimeout,
		Memory: run.Solve.ToolMemory, MaxInFlight: f.Sandboxes}
	if f.Sandboxes < 0 {
		return c, fmt.Errorf("--sandboxes must not be negative")
	}
	return c, nil
}
