package tokens

import (
	"fmt"
)

// The question meta keys ForMeta reads. A sheet opts into truncation with
// "truncate: keep-last"; the other keys are optional.
const (
	MetaTruncate     = "truncate"       // "keep-last": the DSBench rule; "" or "none": no cut
	MetaReserve      = "reserve_tokens" // tokens left for the answer; default Reserve (6000)
	MetaContextLimit = "context_limit"  // the model's context in tokens; default ContextLimit(model)
	MetaEncoding     = "encoding"       // tiktoken encoding; default EncodingFor(model)
)

// Limits are what a cut falls back on where a question's meta is silent:
// the model's context window and tiktoken encoding, from the model's Info
// or the command line.
type Limits struct {
	Model        string // named in errors
	ContextLimit int    // tokens; 0 when unknown
	Encoding     string // "" when unknown
}

// Rule is how a prompt is cut, as a question's settings say (the
// truncate, reserve_tokens, context_limit and encoding settings).
type Rule struct {
	Truncate     string // "keep-last": the DSBench rule; "" or "none": no cut
	Reserve      *int   // tokens left for the answer; nil: Reserve (6000)
	ContextLimit int    // the model's context in tokens, over l's; 0: l's
	Encoding     string // the tiktoken encoding, over l's; "": l's
}

// Cuts says whether r cuts at all: truncate is neither "" nor none.
func (r Rule) Cuts() bool { return r.Truncate != "" && r.Truncate != "none" }

// CutRule cuts a user message as r asks: with truncate keep-last it is
// decode(encode(text)[reserve-limit:]), DSBench's rule (see Truncate);
// without it the text is returned whole. r's context limit and encoding
// win over l's; a limit or encoding known from neither is an error, as
// the notebook's MODEL_LIMITS[model] is a KeyError.
func CutRule(text string, r Rule, l Limits) (string, error) {
	if !r.Cuts() {
		return text, nil
	}
	if r.Truncate != "keep-last" {
		return "", fmt.Errorf("tokens: meta %s: %q is not keep-last or none", MetaTruncate, r.Truncate)
	}
	reserve := Reserve
	if r.Reserve != nil {
		reserve = *r.Reserve
	}
	limit := l.ContextLimit
	if r.ContextLimit != 0 {
		limit = r.ContextLimit
	}
	if limit <= 0 {
		return "", fmt.Errorf("tokens: no context limit known for model %q (set meta %s or --context-limit)", l.Model, MetaContextLimit)
	}
	if reserve >= limit {
		// decode(encode(p)[-(limit-reserve):]) would keep nothing (or,
		// for a negative count, everything but the start).
		return "", fmt.Errorf("tokens: %s %d >= %s %d leaves no room for the prompt (lower %s or raise the limit)",
			MetaReserve, reserve, MetaContextLimit, limit, MetaReserve)
	}
	enc := r.Encoding
	if enc == "" {
		enc = l.Encoding
	}
	if enc == "" {
		return "", fmt.Errorf("tokens: no tiktoken encoding for model %q: %w (set meta %s or --encoding)", l.Model, ErrUnknownModel, MetaEncoding)
	}
	return sliceFrom(text, enc, reserve-limit)
}
