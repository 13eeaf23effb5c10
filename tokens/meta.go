package tokens

import (
	"fmt"
	"strconv"
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

// ForMeta cuts a user message for model as a question's meta asks (see
// Cut), with the context limit and encoding tiktoken and the providers'
// tables give the model's name.
func ForMeta(model, text string, meta map[string]string) (string, error) {
	l := Limits{Model: model}
	l.ContextLimit, _ = ContextLimit(model)
	l.Encoding, _ = EncodingFor(model)
	return Cut(text, meta, l)
}

// Cut cuts a user message as a question's meta asks: with truncate:
// keep-last it is decode(encode(text)[reserve-limit:]), DSBench's rule (see
// Truncate); without truncate meta the text is returned whole. The meta's
// context_limit and encoding win over l's; a limit or encoding known from
// neither is an error, as the notebook's MODEL_LIMITS[model] is a KeyError.
func Cut(text string, meta map[string]string, l Limits) (string, error) {
	switch meta[MetaTruncate] {
	case "", "none":
		return text, nil
	case "keep-last":
	default:
		return "", fmt.Errorf("tokens: meta %s: %q is not keep-last or none", MetaTruncate, meta[MetaTruncate])
	}
	reserve := Reserve
	if v, ok := meta[MetaReserve]; ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", fmt.Errorf("tokens: meta %s: %q is not a whole number", MetaReserve, v)
		}
		reserve = n
	}
	limit := l.ContextLimit
	if v := meta[MetaContextLimit]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", fmt.Errorf("tokens: meta %s: %q is not a whole number", MetaContextLimit, v)
		}
		limit = n
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
	enc := meta[MetaEncoding]
	if enc == "" {
		enc = l.Encoding
	}
	if enc == "" {
		return "", fmt.Errorf("tokens: no tiktoken encoding for model %q: %w (set meta %s or --encoding)", l.Model, ErrUnknownModel, MetaEncoding)
	}
	return sliceFrom(text, enc, reserve-limit)
}
