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
