package grade

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// regex grades by a regular expression, the "pattern" meta, in Go's RE2
// syntax (no backreferences; (?i) for case, (?s) for '.' across lines).
// By default the pattern is searched for: it may be found anywhere in the
// completion (promptfoo's regex assertion). With the "match: whole" meta
// it must match the whole completion, trimmed of surrounding white space.
//
// A pattern without a capture group decides alone: found (or matching
// the whole), the completion is right; the ground truth is recorded and
// not compared. A pattern with one is an extraction rule
// (lm-evaluation-harness' regex filter): the first group of the first
// match is the answer, compared with the ground truth (and the accepted
// answers) as the exact grader compares them.
type regex struct{}

func newRegex(Options) Grader { return regex{} }

// Name is "regex".
func (regex) Name() string { return "regex" }

// regexOf compiles a question's pattern as its "match" meta says.
func regexOf(meta map[string]string) (*regexp.Regexp, bool, error) {
	pat := meta["pattern"]
	if strings.TrimSpace(pat) == "" {
		return nil, false, errors.New("regex: no pattern meta")
	}
	whole := false
	switch m := strings.ToLower(strings.TrimSpace(meta["match"])); m {
	case "", "find", "search":
	case "whole", "full":
		whole = true
	default:
		return nil, false, metaErr("match", fmt.Errorf("regex: meta match %q is not find or whole", m))
	}
	src := pat
	if whole {
		src = `^(?:` + pat + `)$`
	}
	re, err := regexp.Compile(src)
	if err != nil {
		return nil, false, metaErr("pattern", fmt.Errorf("regex: meta pattern %q does not compile: %w", pat, err))
	}
	return re, whole, nil
}

// Check refuses a missing pattern or one that does not compile, and a
// truth the extraction would compare with that is empty.
func (regex) Check(in Input) error {
	re, _, err := regexOf(in.Meta)
	if err != nil {
		return err
	}
	if re.NumSubexp() > 0 && exactNorm(in.Truth) == "" {
		return errNoTruth
	}
	return nil
}

// Grade searches or matches the completion with the pattern.
func (g regex) Grade(ctx context.Context, in Input) (Verdict, error) {
	if err := g.Check(in); err != nil {
		return Verdict{Detail: err.Error()}, nil
	}
	re, whole, _ := regexOf(in.Meta)
	text, how, not := in.Completion, "found", "not found in the answer"
	if whole {
		text, how, not = strings.TrimSpace(text), "matches the whole answer", "does not match the whole answer"
	}
	m := re.FindStringSubmatchIndex(text)
	if m == nil {
		return Verdict{Correct: Bool(false), Detail: fmt.Sprintf("regex %s: %s", jsonClip(re.String()), not)}, nil
	}
	if re.NumSubexp() == 0 {
		return Verdict{Correct: Bool(true), Detail: fmt.Sprintf("regex %s: %s at byte %d", jsonClip(re.String()), how, m[0])}, nil
	}
	got := ""
	if m[2] >= 0 {
		got = text[m[2]:m[3]]
	}
	v, err := exact{}.Grade(ctx, Input{Completion: got, Truth: in.Truth})
	v.Detail = fmt.Sprintf("regex %s: extracted %q; %s", jsonClip(re.String()), jsonClip(got), v.Detail)
	return v, err
}
