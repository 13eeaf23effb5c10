package tokens

import (
	"fmt"
	"strings"
)

// modelEncodings is tiktoken's MODEL_TO_ENCODING (tiktoken/model.py) for the
// models whose encoding this package supports: exact names.
var modelEncodings = map[string]string{
	"gpt-5":                  O200kBase,
	"gpt-4.1":                O200kBase,
	"o1":                     O200kBase,
	"o3":                     O200kBase,
	"o4-mini":                O200kBase,
	"gpt-4o":                 O200kBase,
	"gpt-4":                  Cl100kBase,
	"gpt-3.5-turbo":          Cl100kBase,
	"gpt-3.5":                Cl100kBase,
	"gpt-35-turbo":           Cl100kBase,
	"davinci-002":            Cl100kBase,
	"babbage-002":            Cl100kBase,
	"text-embedding-ada-002": Cl100kBase,
	"text-embedding-3-small": Cl100kBase,
	"text-embedding-3-large": Cl100kBase,
}

// modelPrefixEncodings is tiktoken's MODEL_PREFIX_TO_ENCODING in its order:
// tiktoken returns the first prefix that matches, which matters where one
// prefix extends another ("ft:gpt-4o" must be tried before "ft:gpt-4").
var modelPrefixEncodings = []struct{ prefix, encoding string }{
	{"o1-", O200kBase},
	{"o3-", O200kBase},
	{"o4-mini-", O200kBase},
	{"gpt-5-", O200kBase},
	{"gpt-4.5-", O200kBase},
	{"gpt-4.1-", O200kBase},
	{"chatgpt-4o-", O200kBase},
	{"gpt-4o-", O200kBase},
	{"gpt-4-", Cl100kBase},
	{"gpt-3.5-turbo-", Cl100kBase},
	{"gpt-35-turbo-", Cl100kBase},
	{"ft:gpt-4o", O200kBase},
	{"ft:gpt-4", Cl100kBase},
	{"ft:gpt-3.5-turbo", Cl100kBase},
	{"ft:davinci-002", Cl100kBase},
	{"ft:babbage-002", Cl100kBase},
}

// bareModel strips a "provider/" prefix ("openai/gpt-4o" -> "gpt-4o"): the
// tool names models provider/model, tiktoken knows only the model part.
func bareModel(model string) string {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		return model[i+1:]
	}
	return model
}

// EncodingFor returns the encoding tiktoken.encoding_for_model picks for
// model (after stripping a "provider/" prefix): an exact name first, then the
// first matching prefix. Models tiktoken maps to encodings this package does
// not carry (p50k_base, r50k_base, o200k_harmony) and models it does not know
// give an error wrapping ErrUnknownModel; the caller may fall back.
func EncodingFor(model string) (string, error) {
	name := bareModel(model)
	if enc, ok := modelEncodings[name]; ok {
		return enc, nil
	}
	for _, p := range modelPrefixEncodings {
		if strings.HasPrefix(name, p.prefix) {
			return p.encoding, nil
		}
	}
	return "", fmt.Errorf("tokens: no tiktoken encoding for model %q: %w", model, ErrUnknownModel)
}

// contextLimits are context windows in tokens (input plus output), from the
// providers' model pages. A key matches the model name itself or the name
// followed by "-..." (a dated or variant suffix); the longest matching key
// wins, so "gpt-4-turbo-2024-04-09" takes gpt-4-turbo's limit and
// "gpt-4-0613" takes gpt-4's. The first three are DSBench's MODEL_LIMITS.
var contextLimits = map[string]int{
	"gpt-3.5-turbo-0125":     16385,
	"gpt-4-turbo-2024-04-09": 128000,
	"gpt-4o-2024-05-13":      128000,

	"gpt-3.5-turbo":          16385,
	"gpt-3.5-turbo-16k":      16385,
	"gpt-3.5-turbo-0301":     4096,
	"gpt-3.5-turbo-0613":     4096,
	"gpt-3.5-turbo-instruct": 4096,
	"gpt-4":                  8192,
	"gpt-4-32k":              32768,
	"gpt-4-turbo":            128000,
	"gpt-4-1106-preview":     128000,
	"gpt-4-0125-preview":     128000,
	"gpt-4-vision-preview":   128000,
	"gpt-4o":                 128000,
	"gpt-4o-mini":            128000,
	"chatgpt-4o-latest":      128000,
	"gpt-4.1":                1047576,
	"gpt-4.5-preview":        128000,
	"gpt-5":                  400000,
	"o1":                     200000,
	"o1-mini":                128000,
	"o1-preview":             128000,
	"o3":                     200000,
	"o3-mini":                200000,
	"o4-mini":                200000,
	"claude":                 200000,
	"claude-2.0":             100000,
	"claude-instant":         100000,
}

// ContextLimit returns the context window of model (after stripping a
// "provider/" prefix) from a built-in table, matching the longest key that
// equals the name or is followed in it by "-". ok is false for a model the
// table does not know.
func ContextLimit(model string) (limit int, ok bool) {
	name := bareModel(model)
	best := -1
	for key, v := range contextLimits {
		if (name == key || strings.HasPrefix(name, key+"-")) && len(key) > best {
			best, limit = len(key), v
		}
	}
	return limit, best >= 0
}
