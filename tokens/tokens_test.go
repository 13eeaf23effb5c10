package tokens

import (
	"errors"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestPyReplace pins Python's bytes.decode("utf-8", "replace") on the cases
// where Go's own conversions disagree with it. Expected values are what
// CPython 3 prints for b"...".decode("utf-8", "replace").
func TestPyReplace(t *testing.T) {
	const R = "\uFFFD"
	tests := []struct {
		name, in, want string
	}{
		{"valid", "a€😀", "a€😀"},
		{"truncated 3-byte prefix is one", "a\xe2\x82", "a" + R},
		{"truncated 4-byte prefix is one", "\xf0\x9f\x98", R},
		{"truncated prefix then ascii", "\xf0\x9f\x98x", R + "x"},
		{"two truncated prefixes", "\xe2\x82\xe2\x82", R + R},
		{"lone continuation bytes are one each", "\x80\x80\x80", R + R + R},
		{"orphan tail of a character", "\x9f\x98\x80 ok", R + R + R + " ok"},
		{"overlong lead C0", "\xc0\xaf", R + R},
		{"E0 needs A0..BF", "\xe0\x80\x80", R + R + R},
		{"surrogate ED A0 80", "\xed\xa0\x80", R + R + R},
		{"F0 needs 90..BF", "\xf0\x80\x80\x80", R + R + R + R},
		{"F4 above U+10FFFF", "\xf4\x90\x80\x80", R + R + R + R},
		{"F5 never valid", "\xf5\x80", R + R},
		{"lead then valid char", "\xe2€", R + "€"},
		{"empty", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := pyReplace(tt.in); got != tt.want {
				t.Errorf("pyReplace(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
	// The point of the function: Go's ToValidUTF8 merges runs.
	if strings.ToValidUTF8("\x80\x80", R) == pyReplace("\x80\x80") {
		t.Error("pyReplace agrees with strings.ToValidUTF8 on a run of bad bytes; expected one U+FFFD per byte")
	}
}

func TestPySliceStart(t *testing.T) {
	tests := []struct{ n, start, want int }{
		{10, -3, 7},
		{10, -10, 0},
		{10, -11, 0},
		{10, 0, 0},
		{10, 4, 4},
		{10, 10, 10},
		{10, 12, 10},
		{0, -5, 0},
		{0, 5, 0},
	}
	for _, tt := range tests {
		if got := pySliceStart(tt.n, tt.start); got != tt.want {
			t.Errorf("pySliceStart(%d, %d) = %d, want %d", tt.n, tt.start, got, tt.want)
		}
	}
}

func TestEncodingFor(t *testing.T) {
	tests := []struct{ model, want string }{
		{"gpt-4o", O200kBase},
		{"gpt-4o-2024-05-13", O200kBase},
		{"openai/gpt-4o-mini", O200kBase},
		{"gpt-4.1-nano", O200kBase},
		{"o1", O200kBase},
		{"o3-mini", O200kBase},
		{"o4-mini-2025-04-16", O200kBase},
		{"chatgpt-4o-latest", O200kBase},
		{"gpt-5", O200kBase},
		{"ft:gpt-4o-mini:org::id", O200kBase},
		{"gpt-4", Cl100kBase},
		{"gpt-4-turbo-2024-04-09", Cl100kBase},
		{"gpt-3.5-turbo-0125", Cl100kBase},
		{"text-embedding-3-small", Cl100kBase},
		{"ft:gpt-4:org::id", Cl100kBase},
		{"azure/gpt-35-turbo-16k", Cl100kBase},
	}
	for _, tt := range tests {
		got, err := EncodingFor(tt.model)
		if err != nil || got != tt.want {
			t.Errorf("EncodingFor(%q) = %q, %v; want %q", tt.model, got, err, tt.want)
		}
	}
	for _, m := range []string{"claude-3-5-sonnet", "llama3", "text-davinci-003", "", "gpt-4o/"} {
		if got, err := EncodingFor(m); !errors.Is(err, ErrUnknownModel) {
			t.Errorf("EncodingFor(%q) = %q, %v; want ErrUnknownModel", m, got, err)
		}
	}
}

func TestContextLimit(t *testing.T) {
	tests := []struct {
		model string
		want  int
		ok    bool
	}{
		// DSBench's MODEL_LIMITS.
		{"gpt-3.5-turbo-0125", 16385, true},
		{"gpt-4-turbo-2024-04-09", 128000, true},
		{"gpt-4o-2024-05-13", 128000, true},
		// Longest key wins; a key only matches at a "-" boundary.
		{"gpt-4", 8192, true},
		{"gpt-4-0613", 8192, true},
		{"gpt-4-32k-0613", 32768, true},
		{"gpt-4-1106-preview", 128000, true},
		{"gpt-4o", 128000, true},
		{"openai/gpt-4o-mini", 128000, true},
		{"gpt-4.1-mini", 1047576, true},
		{"o1-mini", 128000, true},
		{"o1-2024-12-17", 200000, true},
		{"o3", 200000, true},
		{"gpt-3.5-turbo-0613", 4096, true},
		{"anthropic/claude-3-5-sonnet-20241022", 200000, true},
		{"claude-2.0", 100000, true},
		{"gpt-40", 0, false},
		{"llama3", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := ContextLimit(tt.model)
		if got != tt.want || ok != tt.ok {
			t.Errorf("ContextLimit(%q) = %d, %v; want %d, %v", tt.model, got, ok, tt.want, tt.ok)
		}
	}
}

// TestTruncate checks the notebook's rule against KeepLast and the raw ids,
// including the Python slice quirk for limit <= reserve.
func TestTruncate(t *testing.T) {
	text := strings.Repeat("The introduction is detailed as follows. Ünïcödé 数据 😀 12345\n", 40)
	ids, err := encode(text, Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	n := len(ids)
	if n < 200 {
		t.Fatalf("test text too short: %d tokens", n)
	}
	decodeFrom := func(from int) string {
		s, err := decode(ids[from:], Cl100kBase)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name           string
		limit, reserve int
		want           string
	}{
		{"fits", n + Reserve, Reserve, text},
		{"fits with room", 128000, Reserve, text},
		{"keeps last 50", Reserve + 50, Reserve, decodeFrom(n - 50)},
		{"keeps last 1", Reserve + 1, Reserve, decodeFrom(n - 1)},
		{"limit == reserve keeps all (slice [0:])", Reserve, Reserve, text},
		{"limit < reserve drops the first tokens", Reserve - 30, Reserve, decodeFrom(30)},
		{"limit far below reserve leaves nothing", 10, Reserve, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Truncate(text, "gpt-4-turbo-2024-04-09", tt.limit, tt.reserve)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %d bytes, want %d bytes", len(got), len(tt.want))
			}
		})
	}
	if _, err := Truncate(text, "llama3", 8000, Reserve); !errors.Is(err, ErrUnknownModel) {
		t.Errorf("unknown model: err = %v, want ErrUnknownModel", err)
	}
	// The encoding follows the model: o200k_base cuts differ from cl100k's.
	a, _ := Truncate(text, "gpt-4o", Reserve+100, Reserve)
	b, _ := Truncate(text, "gpt-4", Reserve+100, Reserve)
	if a == b {
		t.Error("gpt-4o and gpt-4 cut the same text at the same place; encoding choice not applied")
	}
}

func TestKeepLastSlice(t *testing.T) {
	text := "one two three four five"
	ids, _ := encode(text, O200kBase)
	if len(ids) != 5 {
		t.Fatalf("%q: %d tokens, want 5", text, len(ids))
	}
	tests := []struct {
		keep int
		want string
	}{
		{1, " five"},
		{2, " four five"},
		{5, text},
		{99, text},
		{0, text},                    // Python's [-0:] is the whole list
		{-1, " two three four five"}, // [1:]
		{-9, ""},
	}
	for _, tt := range tests {
		got, err := KeepLast(text, O200kBase, tt.keep)
		if err != nil || got != tt.want {
			t.Errorf("KeepLast(%d) = %q, %v; want %q", tt.keep, got, err, tt.want)
		}
	}
}

func TestErrors(t *testing.T) {
	if _, err := Count("x", "p50k_base"); err == nil {
		t.Error("Count with an unsupported encoding: no error")
	}
	if _, err := decode([]uint32{1 << 30}, Cl100kBase); err == nil {
		t.Error("Decode of an id past the vocabulary: no error")
	}
	for _, enc := range []string{Cl100kBase, O200kBase} {
		_, err := Count("before <|endoftext|> after", enc)
		if !errors.Is(err, ErrSpecialToken) {
			t.Errorf("%s: special token text: err = %v, want ErrSpecialToken", enc, err)
		}
		// Near misses are ordinary text.
		if _, err := Count("<|endoftext <| endoftext|> < |endoftext|>", enc); err != nil {
			t.Errorf("%s: near-miss special token: %v", enc, err)
		}
	}
	// <|fim_prefix|> is special in cl100k_base only.
	if _, err := Count("<|fim_prefix|>", O200kBase); err != nil {
		t.Errorf("o200k_base: <|fim_prefix|> is not special there: %v", err)
	}
	if _, err := Count("<|fim_prefix|>", Cl100kBase); !errors.Is(err, ErrSpecialToken) {
		t.Errorf("cl100k_base: <|fim_prefix|>: err = %v, want ErrSpecialToken", err)
	}
}

// TestSplitCases pins pieces of the pre-tokenizer on the constructs where a
// regex engine's backtracking decides the split.
func TestSplitCases(t *testing.T) {
	tests := []struct {
		enc, in string
		want    []string
	}{
		// \s*[\r\n]+ runs to the last newline of a white-space run (the case
		// the regexp2 port gets wrong).
		{Cl100kBase, "a.  \n \n \nThe", []string{"a", ".", "  \n \n \n", "The"}},
		// \s+(?!\S) leaves the last space for the word.
		{Cl100kBase, "x   y", []string{"x", "  ", " y"}},
		{Cl100kBase, "x   ", []string{"x", "   "}},
		{Cl100kBase, "I'm we'LL", []string{"I", "'m", " we", "'LL"}},
		{Cl100kBase, "12345", []string{"123", "45"}},
		{Cl100kBase, " ?!\n\nok", []string{" ?!\n\n", "ok"}},
		{Cl100kBase, "\tword", []string{"\tword"}},
		// o200k_base: case-shaped words and contractions inside them.
		{O200kBase, "HelloWorld", []string{"Hello", "World"}},
		{O200kBase, "ABCdef", []string{"ABCdef"}},
		{O200kBase, "HTTPServer", []string{"HTTPServer"}},
		{O200kBase, "ABC", []string{"ABC"}},
		{O200kBase, "don't", []string{"don't"}},
		{O200kBase, " a/b//\nc", []string{" a", "/b", "//\n", "c"}},
		{O200kBase, "x   y", []string{"x", "  ", " y"}},
	}
	for _, tt := range tests {
		b, err := encodingFor(tt.enc)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for i := 0; i < len(tt.in); {
			j := b.next(tt.in, i)
			got = append(got, tt.in[i:j])
			i = j
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s %q: pieces %q, want %q", tt.enc, tt.in, got, tt.want)
		}
	}
}

// TestMergeHeapMatchesScan checks the heap merge against the scan on long
// pieces made of random runs of common tokens.
func TestMergeHeapMatchesScan(t *testing.T) {
	b, err := encodingFor(Cl100kBase)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	alphabet := []string{"a", "b", "ab", "ba", "the", "er", " ", "é", "1", "aa"}
	var m merger
	for range 200 {
		var sb strings.Builder
		for sb.Len() < 60+rng.IntN(200) {
			sb.WriteString(alphabet[rng.IntN(len(alphabet))])
		}
		piece := sb.String()
		scanned := slices.Clone(m.mergeScan(piece, b.ranks))
		heaped := mergeHeap(piece, b.ranks)
		if !slices.Equal(scanned, heaped) {
			t.Fatalf("%q: scan %v, heap %v", piece, scanned, heaped)
		}
	}
}

func TestDecodeRoundTrip(t *testing.T) {
	for _, enc := range []string{Cl100kBase, O200kBase} {
		for _, s := range []string{"", "hello", "😀😀 数据\r\n\t x", strings.Repeat(" ", 300) + "end"} {
			ids, err := encode(s, enc)
			if err != nil {
				t.Fatal(err)
			}
			back, err := decode(ids, enc)
			if err != nil || back != s {
				t.Errorf("%s: %q -> %v -> %q, %v", enc, s, ids, back, err)
			}
			if n, _ := Count(s, enc); n != len(ids) {
				t.Errorf("%s: Count %d, Encode %d tokens", enc, n, len(ids))
			}
		}
	}
	// Invalid UTF-8 input is read as Python would decode it with "replace".
	got, err := KeepLast("ab\xffcd", Cl100kBase, 100)
	if err != nil || got != "ab\uFFFDcd" || !utf8.ValidString(got) {
		t.Errorf("invalid input: %q, %v", got, err)
	}
}

func TestForMeta(t *testing.T) {
	text := strings.Repeat("alpha beta gamma delta ", 50) // far more than 10 tokens
	last := func(enc string, keep int) string {
		s, err := KeepLast(text, enc, keep)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	tests := []struct {
		name, model string
		meta        map[string]string
		want        string
		err         string
	}{
		{"no meta", "gpt-4o", nil, text, ""},
		{"none", "gpt-4o", map[string]string{"truncate": "none"}, text, ""},
		{"fits", "gpt-4o", map[string]string{"truncate": "keep-last"}, text, ""},
		{"limit from meta", "gpt-4o", map[string]string{"truncate": "keep-last", "context_limit": "6010"}, last(O200kBase, 10), ""},
		{"reserve from meta", "gpt-4", map[string]string{"truncate": "keep-last", "reserve_tokens": "8182"}, last(Cl100kBase, 10), ""},
		{"encoding from meta", "llama3", map[string]string{"truncate": "keep-last", "context_limit": "6007", "encoding": "cl100k_base"}, last(Cl100kBase, 7), ""},
		{"unknown model", "llama3", map[string]string{"truncate": "keep-last"}, "", "context_limit"},
		{"unknown encoding", "llama3", map[string]string{"truncate": "keep-last", "context_limit": "9000"}, "", "encoding"},
		{"bad mode", "gpt-4o", map[string]string{"truncate": "middle"}, "", "keep-last"},
		{"bad number", "gpt-4o", map[string]string{"truncate": "keep-last", "reserve_tokens": "6k"}, "", "whole number"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ForMeta(tt.model, text, tt.meta)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("err = %v, want one mentioning %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("got %d bytes, want %d", len(got), len(tt.want))
			}
		})
	}
}

// A reserve that leaves no room would send an empty prompt: refused.
func TestCutRefusesReserveAtOrAboveLimit(t *testing.T) {
	for _, tc := range []struct {
		meta map[string]string
		l    Limits
	}{
		{map[string]string{"truncate": "keep-last", "context_limit": "4096"}, Limits{Model: "m", Encoding: Cl100kBase}},
		{map[string]string{"truncate": "keep-last", "reserve_tokens": "4096"}, Limits{Model: "m", ContextLimit: 4096, Encoding: Cl100kBase}},
	} {
		_, err := Cut("some text", tc.meta, tc.l)
		if err == nil || !strings.Contains(err.Error(), "reserve_tokens") || !strings.Contains(err.Error(), "4096") {
			t.Errorf("%v: error %v, want one naming reserve_tokens and the limit", tc.meta, err)
		}
	}
}
