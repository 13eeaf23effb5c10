package tokens

import (
	"fmt"
	"strconv"

	"github.com/evalmd/evalmd/model"
)

// ForMeta cuts a user message for model as a question's meta asks (see
// Cut), with the context limit and encoding tiktoken and the providers'
// tables give the model's name.
func ForMeta(model, text string, meta map[string]string) (string, error) {
	l := Limits{Model: model}
	l.ContextLimit, _ = ContextLimit(model)
	l.Encoding, _ = EncodingFor(model)
	return Cut(text, meta, l)
}

// Cut cuts a user message as a question's meta asks (see CutRule): the
// meta's truncate, reserve_tokens, context_limit and encoding are read
// into a Rule.
func Cut(text string, meta map[string]string, l Limits) (string, error) {
	r := Rule{Truncate: meta[MetaTruncate]}
	if v, ok := meta[MetaReserve]; ok && v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", fmt.Errorf("tokens: meta %s: %q is not a whole number", MetaReserve, v)
		}
		r.Reserve = &n
	}
	if v := meta[MetaContextLimit]; v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return "", fmt.Errorf("tokens: meta %s: %q is not a whole number", MetaContextLimit, v)
		}
		r.ContextLimit = n
	}
	r.Encoding = meta[MetaEncoding]
	return CutRule(text, r, l)
}

// ContextLimit returns the context window of model (after stripping a
// "provider/" prefix) from model's table (model.ContextLimit). ok is false
// for a model the table does not know.
func ContextLimit(name string) (limit int, ok bool) {
	return model.ContextLimit(bareModel(name))
}

// KeepLast returns decode(encode(text)[-keep:]) as Python's tiktoken computes
// it: the text of the last keep tokens, with a cut inside a UTF-8 character
// decoded to U+FFFD by Python's errors="replace" rule. keep follows Python's
// slice: keep >= the token count returns the whole text, and keep <= 0 gives
// the slice [-keep:], so 0 keeps everything (Python's [-0:] is [0:]) and a
// negative keep drops the first -keep tokens.
func KeepLast(text, encoding string, keep int) (string, error) {
	return sliceFrom(text, encoding, -keep)
}

// Truncate applies DSBench's rule to a prompt for model:
// decode(encode(prompt)[reserve-limit:]), the encoding chosen by EncodingFor.
// With reserve < limit that keeps the last limit-reserve tokens, and a prompt
// that fits is returned unchanged. The slice is Python's, kept as the
// notebook wrote it: when limit <= reserve the start index is not negative,
// so the first reserve-limit tokens are dropped instead (a notebook quirk, not
// fixed here). Pass Reserve for the notebook's value.
func Truncate(prompt, model string, limit, reserve int) (string, error) {
	enc, err := EncodingFor(model)
	if err != nil {
		return "", err
	}
	return sliceFrom(prompt, enc, reserve-limit)
}
