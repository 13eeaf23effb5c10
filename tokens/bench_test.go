package tokens

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// benchText is about 1 MB of real prompt-like text: the DSBench
// introductions and a DABench table from the reference corpus, repeated.
func benchText(b *testing.B) string {
	dir := shared.Path(b, "reference", "tokenizer", "texts")
	var buf []byte
	for _, name := range []string{"00000001.txt", "00000013.txt", "00000022.txt", "dabench--abalone.head200.csv", "stress02-cjk.txt"} {
		data, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		buf = append(buf, data...)
	}
	unit := buf
	for len(buf) < 1<<20 {
		buf = append(buf, unit...)
	}
	return string(buf[:1<<20])
}

func benchmarkCount(b *testing.B, enc string) {
	text := benchText(b)
	if _, err := Count("warm up", enc); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Count(text, enc); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCountCl100k1MB(b *testing.B) { benchmarkCount(b, Cl100kBase) }
func BenchmarkCountO200k1MB(b *testing.B)  { benchmarkCount(b, O200kBase) }

// BenchmarkTruncate1MB is the notebook's cut of a 1 MB prompt to a
// 16385-token model (encode, slice, decode).
func BenchmarkTruncate1MB(b *testing.B) {
	text := benchText(b)
	if _, err := Count("warm up", Cl100kBase); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := Truncate(text, "gpt-3.5-turbo-0125", 16385, Reserve); err != nil {
			b.Fatal(err)
		}
	}
}
