// Package judgeflag binds the judge's flags, which run and grade share,
// and builds the judge from them over the config files' settings. The
// judge has its own server, key and settings: nothing is taken from the
// model under test.
package judgeflag

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/runner"
)

// Flags are the judge's command-line flags.
type Flags struct {
	Model     string
	BaseURL   string
	KeyEnv    string
	MaxTokens int
	Template  string
}

// Bind registers --judge, --judge-base-url, --judge-api-key-env,
// --judge-max-tokens and --judge-template on fs.
func Bind(fs *flag.FlagSet) *Flags {
	f := &Flags{}
	fs.StringVar(&f.Model, "judge", "", "model for the judge grader")
	fs.StringVar(&f.BaseURL, "judge-base-url", "", "base URL of the judge's server (not the run's --base-url)")
	fs.StringVar(&f.KeyEnv, "judge-api-key-env", "", "environment variable holding the judge's API key (default: its provider's)")
	fs.IntVar(&f.MaxTokens, "judge-max-tokens", 0, "max_tokens of a judge request (default: DSBench's 256, or 1024 with Inspect's template)")
	fs.StringVar(&f.Template, "judge-template", "", "judge prompt: dsbench, inspect, or a template text (default: dsbench for DSBench sheets, else inspect)")
	return f
}

// Options builds the judge from the flags over the config c (nil: none),
// flags first: c's judge when --judge is not given, and c's base_urls as
// the judge's server where neither --judge-base-url nor the environment's
// NAME_BASE_URL names one. Judge is nil when neither names a judge. opt is
// the base of the judge's model options (environment, HTTP client,
// timeout); its server and key settings are replaced by the judge's own.
// The judge is called outside the runner's jobs (as a question is graded),
// so it retries on its own with retry's rules (runner.Retrying: the
// runner's retry classes, MaxAttempts, backoff, Retry-After capped at
// MaxWait): a passing 429 or 503 does not fail the grade, a fatal error (a
// refused key) is returned at once. A judge only the config names that cannot be built (no key) is a
// warning on warn, not an error: the command may grade nothing with it;
// one refused a key (config.ErrKeyAway) is an error.
func (f *Flags) Options(opt model.Options, retry runner.Options, c *config.Config, warn io.Writer) (grade.JudgeOptions, error) {
	if f.MaxTokens < 0 {
		return grade.JudgeOptions{}, fmt.Errorf("-judge-max-tokens %d: want a number >= 0", f.MaxTokens)
	}
	switch t := strings.ToLower(strings.TrimSpace(f.Template)); {
	case t == "", t == "dsbench", t == "inspect", strings.Contains(f.Template, "{"):
	default:
		return grade.JudgeOptions{}, fmt.Errorf("-judge-template %q: want dsbench, inspect, or a template text with {question}, {answer}, {criterion}", f.Template)
	}
	jo := grade.JudgeOptions{JudgeTemplate: f.Template, JudgeMaxTokens: f.MaxTokens}
	name := f.Model
	if name == "" && c != nil {
		name = c.Judge
	}
	if name == "" {
		if f.BaseURL != "" || f.KeyEnv != "" {
			return jo, fmt.Errorf("-judge-base-url and -judge-api-key-env need -judge MODEL or a judge in the config")
		}
		return jo, nil
	}
	if c != nil {
		opt.BaseURLs, opt.SendKey = c.BaseURLs, c.SendKey
	}
	opt.BaseURL, opt.APIKey, opt.APIKeyEnv = f.BaseURL, "", f.KeyEnv
	m, err := providers.New(name, opt)
	if err != nil && f.Model == "" && !errors.Is(err, config.ErrKeyAway) {
		fmt.Fprintf(warn, "warning: config's judge: judge model %s: %v\n", name, err)
		return jo, nil
	}
	if err != nil {
		return jo, fmt.Errorf("judge model %s: %w", name, err)
	}
	jo.Judge = runner.Retrying(m, retry)
	return jo, nil
}
