package tokens

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// FuzzEncode checks, for any text, that both pre-tokenizers cut it into
// contiguous non-empty pieces, that decoding the tokens gives the (cleaned)
// text back, that Count agrees with Encode, and that KeepLast's output is
// always valid UTF-8 and the tail of the text when the cut falls between
// characters.
func FuzzEncode(f *testing.F) {
	for _, s := range []string{"", "a.  \n \n \nThe", "x   y", "I'm HTTPServer's", "😀数据\r\n", "\xe2\x82", "12345/ //\n", "ſ'S"} {
		f.Add(s, 3)
	}
	f.Fuzz(func(t *testing.T, s string, keep int) {
		clean := pyReplace(s)
		for _, enc := range []string{Cl100kBase, O200kBase} {
			b, err := encodingFor(enc)
			if err != nil {
				t.Fatal(err)
			}
			for i := 0; i < len(clean); {
				j := b.next(clean, i)
				if j <= i || j > len(clean) {
					t.Fatalf("%s: piece at %d ends at %d in %q", enc, i, j, clean)
				}
				i = j
			}
			ids, err := encode(s, enc)
			if err != nil {
				if strings.Contains(clean, "<|") {
					continue // a special token's text
				}
				t.Fatal(err)
			}
			back, err := decode(ids, enc)
			if err != nil || back != clean {
				t.Fatalf("%s: round trip of %q gave %q, %v", enc, clean, back, err)
			}
			if n, _ := Count(s, enc); n != len(ids) {
				t.Fatalf("%s: Count %d, Encode %d", enc, n, len(ids))
			}
			cut, err := KeepLast(s, enc, keep)
			if err != nil {
				t.Fatal(err)
			}
			if !utf8.ValidString(cut) {
				t.Fatalf("%s: KeepLast gave invalid UTF-8 %q", enc, cut)
			}
			if !strings.ContainsRune(cut, utf8.RuneError) && !strings.HasSuffix(clean, cut) {
				t.Fatalf("%s: KeepLast(%d) = %q is not a tail of %q", enc, keep, cut, clean)
			}
		}
	})
}

// FuzzPyReplace checks the replacement keeps valid text as it is, always
// returns valid UTF-8, is idempotent, and emits at most one U+FFFD per
// invalid byte and at least one per maximal bad stretch.
func FuzzPyReplace(f *testing.F) {
	for _, s := range []string{"", "ok", "\xe2\x82", "\xf0\x9f\x98x", "\x80\x80", "\xed\xa0\x80"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got := pyReplace(s)
		if !utf8.ValidString(got) {
			t.Fatalf("pyReplace(%q) = %q, invalid", s, got)
		}
		if utf8.ValidString(s) && got != s {
			t.Fatalf("pyReplace changed valid %q to %q", s, got)
		}
		if pyReplace(got) != got {
			t.Fatalf("pyReplace not idempotent on %q", s)
		}
		bad := 0
		for i := 0; i < len(s); {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				bad++
			}
			i += n
		}
		added := strings.Count(got, "\uFFFD") - strings.Count(s, "\uFFFD")
		if added > bad || (bad > 0 && added == 0) {
			t.Fatalf("%q: %d U+FFFD added for %d bad bytes", s, added, bad)
		}
	})
}
