// Package tokens counts and cuts prompts in OpenAI tokens the way Python's
// tiktoken does, so that prompts truncated here equal the ones the original
// benchmark notebooks sent. It supports the two encodings current models use,
// cl100k_base and o200k_base, offline (the vocabularies are compiled in via
// github.com/tiktoken-go/tokenizer).
//
// The one rule it exists for is DSBench's eval_GPT.ipynb:
//
//	cut_text = encoding.decode(encoding.encode(prompt)[tokens4generation - MODEL_LIMITS[model]:])
//
// with tokens4generation = 6000: keep the last limit-6000 tokens. Truncate
// reproduces that line including Python's slice semantics; KeepLast is the
// plain decode(encode(text)[-keep:]).
//
// Count, KeepLast and Truncate take an encoding (Cl100kBase or O200kBase);
// EncodingFor names a model's, or fails with ErrUnknownModel. A text holding
// a special token's literal text fails with ErrSpecialToken, as tiktoken
// does. ForMeta and Cut cut as a question's meta asks (MetaTruncate,
// MetaReserve, MetaContextLimit, MetaEncoding).
package tokens

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"unicode/utf8"
)

// The encodings this package supports, by tiktoken's names.
const (
	Cl100kBase = "cl100k_base"
	O200kBase  = "o200k_base"
)

// Reserve is DSBench's tokens4generation: the number of tokens the notebook
// leaves for the answer, subtracted from the model's context limit.
const Reserve = 6000

// ErrUnknownModel is returned (wrapped) by EncodingFor for a model whose
// encoding tiktoken would not know either; callers may fall back to an
// encoding of their choice.
var ErrUnknownModel = errors.New("unknown model")

// ErrSpecialToken is returned (wrapped) when a text contains the literal
// text of one of the encoding's special tokens. tiktoken's encode() raises
// ValueError in that case (disallowed_special="all"), so the notebook would
// have stopped there; this package refuses too instead of guessing.
var ErrSpecialToken = errors.New("text contains a special token")

// encodings holds one lazily built table per encoding. Building one reads
// about 100k or 200k tokens out of the tokenizer package (tens of
// milliseconds), so it is done once, on first use; afterwards the tables are
// only read, by any number of goroutines.
var encodings = map[string]func() (*bpe, error){
	Cl100kBase: sync.OnceValues(func() (*bpe, error) { return loadBPE(Cl100kBase, nextCl100k) }),
	O200kBase:  sync.OnceValues(func() (*bpe, error) { return loadBPE(O200kBase, nextO200k) }),
}

// specialTokens are the special-token texts of each encoding, as tiktoken
// lists them; encode() refuses text containing any of them.
var specialTokens = map[string][]string{
	Cl100kBase: {"<|endoftext|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|endofprompt|>"},
	O200kBase:  {"<|endoftext|>", "<|endofprompt|>"},
}

func encodingFor(name string) (*bpe, error) {
	get, ok := encodings[name]
	if !ok {
		return nil, fmt.Errorf("tokens: encoding %q not supported (want %s or %s)", name, Cl100kBase, O200kBase)
	}
	return get()
}

// prepare readies text for encoding as tiktoken's encoding.encode(text)
// would see it. Text that is not valid UTF-8 (which a Python str cannot be)
// is first cleaned the way Python decodes bytes with errors="replace"; text
// holding a special token is refused, as encode() refuses it.
func prepare(text, encoding string) (string, *bpe, error) {
	b, err := encodingFor(encoding)
	if err != nil {
		return "", nil, err
	}
	text = pyReplace(text)
	if err := checkSpecial(text, encoding); err != nil {
		return "", nil, err
	}
	return text, b, nil
}

// encode returns the token ids tiktoken's encoding.encode(text) gives.
func encode(text, encoding string) ([]uint32, error) {
	text, b, err := prepare(text, encoding)
	if err != nil {
		return nil, err
	}
	ids := make([]uint32, 0, len(text)/3)
	b.encode(text, func(id uint32) { ids = append(ids, id) })
	return ids, nil
}

// decode returns tiktoken's encoding.decode(ids): the tokens' bytes joined
// and read as UTF-8 with errors="replace".
func decode(ids []uint32, encoding string) (string, error) {
	b, err := encodingFor(encoding)
	if err != nil {
		return "", err
	}
	raw, err := b.decode(ids)
	if err != nil {
		return "", err
	}
	return pyReplace(raw), nil
}

func checkSpecial(text, encoding string) error {
	if !strings.Contains(text, "<|") {
		return nil
	}
	for _, s := range specialTokens[encoding] {
		if i := strings.Index(text, s); i >= 0 {
			return fmt.Errorf("tokens: %w %s at byte %d (tiktoken's encode refuses it)", ErrSpecialToken, s, i)
		}
	}
	return nil
}

// Count returns the number of tokens tiktoken's encode gives for text.
func Count(text, encoding string) (int, error) {
	text, b, err := prepare(text, encoding)
	if err != nil {
		return 0, err
	}
	n := 0
	b.encode(text, func(uint32) { n++ })
	return n, nil
}

// sliceFrom returns decode(encode(text)[start:]) with Python's slice rules.
func sliceFrom(text, encoding string, start int) (string, error) {
	ids, err := encode(text, encoding)
	if err != nil {
		return "", err
	}
	from := pySliceStart(len(ids), start)
	if from == 0 {
		// Byte-pair encoding is lossless, so decoding every token gives the
		// (cleaned) text back; skip the work.
		return pyReplace(text), nil
	}
	return decode(ids[from:], encoding)
}

// pySliceStart is the index Python's seq[start:] begins at for a sequence of
// length n: a negative start counts from the end and clamps at 0, a start
// past the end clamps at n.
func pySliceStart(n, start int) int {
	if start < 0 {
		start += n
		if start < 0 {
			return 0
		}
		return start
	}
	return min(start, n)
}

// pyReplace returns s with every invalid UTF-8 sequence replaced as Python's
// bytes.decode("utf-8", errors="replace") does, which is what tiktoken's
// decode uses. Python follows Unicode's "maximal subpart" practice: a
// truncated but so far valid multi-byte prefix (E2 82, F0 9F 98) becomes ONE
// U+FFFD, while every byte that cannot start or continue a sequence (a stray
// continuation byte, C0, F5..FF, an E0 followed by 80..9F, an ED followed by
// A0..BF, ...) becomes one U+FFFD each. Go's strings.ToValidUTF8 would merge a
// whole run of bad bytes into one replacement, and ranging over the string
// would give one per byte; neither matches.
func pyReplace(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 8)
	for len(s) > 0 {
		r, n := utf8.DecodeRuneInString(s)
		if r == utf8.RuneError && n == 1 {
			b.WriteRune(utf8.RuneError)
			n = maximalSubpart(s)
		} else {
			b.WriteString(s[:n])
		}
		s = s[n:]
	}
	return b.String()
}

// maximalSubpart returns the length of the longest prefix of s (at least 1)
// that is the start of some well-formed UTF-8 sequence, for an s that does
// not begin with a complete one. The second-byte ranges are those of the
// Unicode table of well-formed sequences (and of CPython's decoder).
func maximalSubpart(s string) int {
	need, lo, hi := 0, byte(0x80), byte(0xBF)
	switch c := s[0]; {
	case c >= 0xC2 && c <= 0xDF:
		need = 1
	case c == 0xE0:
		need, lo = 2, 0xA0
	case c == 0xED:
		need, hi = 2, 0x9F
	case c >= 0xE1 && c <= 0xEF:
		need = 2
	case c == 0xF0:
		need, lo = 3, 0x90
	case c >= 0xF1 && c <= 0xF3:
		need = 3
	case c == 0xF4:
		need, hi = 3, 0x8F
	default:
		return 1
	}
	i := 1
	for ; i <= need && i < len(s); i++ {
		c := s[i]
		if i == 1 && (c < lo || c > hi) || i > 1 && (c < 0x80 || c > 0xBF) {
			break
		}
	}
	return i
}
