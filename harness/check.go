package harness

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/harness/internal/prepare"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/sheet"
)

// Problem is a problem Check found in a sheet: where (Line 0 when no line
// is known), what, and whether a run says it and goes on (Warning) or
// stops at it.
type Problem struct {
	Path    string
	Line    int
	Msg     string
	Warning bool
}

// String is "FILE:LINE: MESSAGE", or "FILE:LINE: warning: MESSAGE", as
// compilers and editors' problem matchers write them.
func (p Problem) String() string {
	w := ""
	if p.Warning {
		w = "warning: "
	}
	switch {
	case p.Path == "":
		return w + p.Msg
	case p.Line == 0:
		return p.Path + ": " + w + p.Msg
	}
	return fmt.Sprintf("%s:%d: %s%s", p.Path, p.Line, w, p.Msg)
}

// Check reads cfg's sheets as a run's plan step does, with its code, and
// gathers every problem of every sheet and question where a run stops at
// the first: a sheet that does not parse; what keeps one from being run
// (no question, a question without its question or its answer); the
// parser's warnings (a header that is no section, an empty section, a
// duplicate question name...); meta keys nothing reads; settings that are
// not one of their values, over their ceilings or from a source that may
// not set them; files and templates that cannot be read or rendered;
// graders that do not exist. cfg's Settings are the run's own (config
// files, flags); its Models, DryRun, OutDir, Batch and the like are not
// read: no model is made or asked and nothing is written. The problems
// come by file and line, each once.
func Check(ctx context.Context, cfg Config) ([]Problem, error) {
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Models, cfg.DryRun, cfg.Subset, cfg.Shard = nil, false, Subset{}, Shard{}
	graders := regrade.NewGraders(cfg.Graders, grade.Options{JudgeOptions: cfg.Judge, Scripts: cfg.Sandbox.RunScript}, "")
	ms := models{names: []string{"dry-run"}, made: map[string]model.Model{}, infos: map[string]model.Info{}}
	var found prepare.Problems
	if _, err := cfg.plan(ctx, &Summary{}, ms, "check", graders, nil, &found); err != nil {
		return nil, err
	}
	var out []Problem
	seen := map[string]bool{}
	refused := map[string]bool{} // the places of the problems that stop a run
	add := func(key string, p Problem) {
		if !seen[key] {
			seen[key] = true
			out = append(out, p)
			if !p.Warning {
				refused[fmt.Sprint(p.Path, ":", p.Line)] = true
			}
		}
	}
	var errs []error
	for _, err := range found.Errors {
		if j, ok := err.(interface{ Unwrap() []error }); ok { // a question's settings, each bad value
			errs = append(errs, j.Unwrap()...)
		} else {
			errs = append(errs, err)
		}
	}
	for _, err := range errs {
		var ue *regrade.UngradedError
		if errors.As(err, &ue) { // each question that cannot be graded
			for _, u := range ue.Questions {
				p := located(fmt.Sprintf("%s: question %q cannot be graded: %s", u.At, u.Name, u.Why))
				if !refused[fmt.Sprint(p.Path, ":", p.Line)] { // no answer section: said once
					add(p.String(), p)
				}
			}
			continue
		}
		p := problemOf(err)
		key := p.String()
		var se *setting.Error
		if errors.As(err, &se) { // a sheet's value, said again by each question
			key = fmt.Sprint(se.Origin, se.Name, se.Value, se.Why)
		}
		add(key, p)
	}
	for _, w := range found.Warnings {
		p := located(w)
		p.Warning = true
		add("w"+p.String(), p)
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Path != out[j].Path {
			return out[i].Path < out[j].Path
		}
		return out[i].Line < out[j].Line
	})
	return out, nil
}

// problemOf is the problem an error says: a sheet's *Error's place, a
// setting's value's (a sheet's or a config file's), else the FILE:LINE
// its message starts with.
func problemOf(err error) Problem {
	var se *sheet.Error
	if errors.As(err, &se) {
		return Problem{Path: se.Path, Line: se.Line, Msg: se.Msg}
	}
	var ve *setting.Error
	if errors.As(err, &ve) && ve.Origin.Line > 0 {
		text, at := err.Error(), ve.Origin.String()+": "
		if i := strings.Index(text, at); i >= 0 {
			return Problem{Path: ve.Origin.File, Line: ve.Origin.Line, Msg: text[i+len(at):]}
		}
	}
	return located(err.Error())
}

// fileLine is a message that starts with its place.
var fileLine = regexp.MustCompile(`^(.+?):([0-9]+): ((?s).*)$`)

// located is the problem msg says, its FILE:LINE taken apart.
func located(msg string) Problem {
	m := fileLine.FindStringSubmatch(msg)
	if m == nil {
		return Problem{Msg: msg}
	}
	line, _ := strconv.Atoi(m[2])
	return Problem{Path: m[1], Line: line, Msg: m[3]}
}
