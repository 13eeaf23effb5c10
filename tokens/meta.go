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

// ForMeta cuts a user message for model as a question's meta asks: with
// truncate: keep-last it is decode(encode(text)[reserve-limit:]), DSBench's
// rule (see Truncate); without truncate meta the text is returned whole.
// The limit and encoding come from the model's name unless the meta gives
// context_limit or encoding, so models this package does not know can still
// be cut (with a stated tokenizer); an unknown model without them is an
// error, as the notebook's MODEL_LIMITS[model] is a KeyError.
func ForMeta(model, text string, meta map[string]string) (string, error) {
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
	limit, ok := ContextLimit(model)
	if v := meta[MetaContextLimit]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", fmt.Errorf("tokens: meta %s: %q is not a whole number", MetaContextLimit, v)
		}
		limit, ok = n, true
	}
	if !ok {
		return "", fmt.Errorf("tokens: no context limit known for model %q (set meta %s)", model, MetaContextLimit)
	}
	enc := meta[MetaEncoding]
	if enc == "" {
		var err error
		if enc, err = EncodingFor(model); err != nil {
			return "", fmt.Errorf("%w (set meta %s)", err, MetaEncoding)
		}
	}
	return sliceFrom(text, enc, reserve-limit)
}
