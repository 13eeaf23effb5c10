package aggcmd

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"time"

	"github.com/evalmd/evalmd/agg"
	"github.com/evalmd/evalmd/agg/gate"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/outfile"
)

// gateFlags are agg's flags of the comparison with a baseline, the gate,
// and the files a CI reads; the baseline's folder goes to opt.Baseline.
type gateFlags struct {
	rules     gate.Rules
	failOn    string
	comment   string
	junit     string
	reportURL string
}

// bindGate declares the gate's flags on fs.
func bindGate(fs *flag.FlagSet, opt *agg.Options) *gateFlags {
	g := &gateFlags{}
	fs.StringVar(&opt.Baseline, "baseline", "", "compare each model's answers with those of the output files below this `dir` (or glob), question by question: accuracy before and after, the paired difference, McNemar's p, the questions that flipped")
	fs.StringVar(&g.failOn, "fail-on", "", "with --baseline: exit 4 when a model got significantly worse (`regression`); values: "+gate.FailOnNames)
	fs.Float64Var(&g.rules.Alpha, "alpha", 0.05, "significance level of the comparison's tests (its intervals are at 1 - alpha)")
	fs.Float64Var(&g.rules.MinDrop, "min-drop", 0, "a regression must also lose at least this much accuracy (0..1; 0.02 is 2 points)")
	fs.Float64Var(&g.rules.FailUnder, "fail-under", 0, "exit 4 when a model's accuracy interval starts below this (0..1)")
	fs.StringVar(&g.comment, "comment", "", "write the comparison as a pull request comment (markdown) to this `file`, for the CI to post")
	fs.StringVar(&g.junit, "junit", "", "write JUnit XML to this `file`: a test case per model and question, a failure per wrong answer, an error per failed call")
	fs.StringVar(&g.reportURL, "report-url", "", "the `URL` where the HTML report (-html) can be read, linked from the comment and the step summary")
	return g
}

// check reads the gate's flags into opt.Gate and refuses what does not go
// together.
func (g *gateFlags) check(opt *agg.Options) error {
	var err error
	if g.rules.FailOn, err = gate.ParseFailOn(g.failOn); err != nil {
		return cli.Usagef("--fail-on %v", err)
	}
	if g.rules.Alpha == 0 { // gate.Rules' zero value is its default, 0.05
		return cli.Usagef("--alpha 0: a significance level above 0, such as 0.05")
	}
	if err := g.rules.Check(); err != nil {
		return cli.Usagef("%v", err)
	}
	if g.rules.FailOn != gate.FailNever && opt.Baseline == "" {
		return cli.Usagef("--fail-on compares with a baseline: give --baseline DIR")
	}
	if g.comment != "" && opt.Baseline == "" && g.rules.FailUnder == 0 {
		return cli.Usagef("--comment writes the comparison with a baseline: give --baseline DIR (or a floor, --fail-under)")
	}
	if g.reportURL != "" {
		if u, err := url.Parse(g.reportURL); err != nil || u.Scheme != "http" && u.Scheme != "https" {
			return cli.Usagef("--report-url %q: an http or https address", g.reportURL)
		}
	}
	return nil
}

// gated says whether anything of the gate's was asked.
func (g *gateFlags) gated(opt *agg.Options) bool {
	return opt.Baseline != "" || g.rules.FailUnder > 0
}

// compare is the comparison with the baseline Read read, or the floor
// alone; nil when neither was asked.
func (g *gateFlags) compare(opt *agg.Options, d *agg.Data) *gate.Comparison {
	if !g.gated(opt) {
		return nil
	}
	return gate.Compare(folders(d), g.rules)
}

// folders are what the gate reads of d.
func folders(d *agg.Data) gate.Folders {
	base, dir := d.Baseline()
	return gate.Folders{Current: d.Data, Baseline: base, BaselineDir: dir, Reducer: d.Reducer}
}

// report writes what the CI reads: the comparison appended to the step
// summary (GITHUB_STEP_SUMMARY, when getenv has it), the pull request
// comment, the JUnit XML; says each model's verdict on stderr; and
// returns a *cli.GateError when the gate failed.
func (g *gateFlags) report(stderr io.Writer, opt agg.Options, d *agg.Data, c *gate.Comparison, htmlOut string, getenv func(string) string, now time.Time) error {
	wopt := outfile.Options{Force: opt.Force, Inputs: d.Inputs()}
	if g.junit != "" {
		err := outfile.WriteFunc(g.junit, wopt, func(w io.Writer) error { return gate.JUnit(w, folders(d), now) })
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", g.junit)
	}
	if c == nil {
		return nil
	}
	md, err := c.Markdown(0, g.link(htmlOut))
	if err != nil {
		return err
	}
	if p := getenv("GITHUB_STEP_SUMMARY"); p != "" {
		if err := outfile.Append(p, []byte(md+"\n"), outfile.Options{Inputs: wopt.Inputs}); err != nil {
			return fmt.Errorf("GITHUB_STEP_SUMMARY: %w", err)
		}
	}
	if g.comment != "" {
		if err := outfile.Write(g.comment, []byte(md), wopt); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "wrote %s\n", g.comment)
	}
	for _, line := range c.Lines() {
		fmt.Fprintf(stderr, "agg: %s\n", line)
	}
	if f := c.Failures(); len(f) > 0 {
		return &cli.GateError{Reasons: f}
	}
	if g.rules.FailOn != gate.FailNever || g.rules.FailUnder > 0 {
		fmt.Fprintln(stderr, "agg: gate passed")
	}
	return nil
}

// link is the comment's line linking the HTML report, or "".
func (g *gateFlags) link(htmlOut string) string {
	switch {
	case g.reportURL != "" && htmlOut != "":
		return fmt.Sprintf("[The full report](%s) (`%s`: every question, answer and grade).", g.reportURL, filepath.Base(htmlOut))
	case g.reportURL != "":
		return fmt.Sprintf("[The full report](%s).", g.reportURL)
	}
	return ""
}

// joinGate returns the gate's error and the unread files' together: the
// gate's exit status wins.
func joinGate(gate, unread error) error {
	if gate == nil {
		return unread
	}
	return errors.Join(gate, unread)
}
