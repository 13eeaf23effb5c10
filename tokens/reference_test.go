package tokens

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// readTSV returns the rows of a tab-separated file with a header line, each
// as a map from column name to value.
func readTSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	var header []string
	var rows []map[string]string
	for line := 1; sc.Scan(); line++ {
		cols := strings.Split(sc.Text(), "\t")
		if header == nil {
			header = cols
			continue
		}
		if len(cols) != len(header) {
			t.Fatalf("%s:%d: %d columns, header has %d", path, line, len(cols), len(header))
		}
		row := map[string]string{}
		for i, h := range header {
			row[h] = cols[i]
		}
		rows = append(rows, row)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestCountsReference checks every line of reference/tokenizer/counts.tsv:
// the token count tiktoken gave for each text in each encoding.
func TestCountsReference(t *testing.T) {
	dir := shared.Path(t, "reference", "tokenizer")
	rows := readTSV(t, filepath.Join(dir, "counts.tsv"))
	if len(rows) == 0 {
		t.Fatal("counts.tsv has no rows")
	}
	texts := map[string]string{}
	seen := map[string]bool{}
	for _, r := range rows {
		name, enc := r["file"], r["encoding"]
		text, ok := texts[name]
		if !ok {
			b, err := os.ReadFile(filepath.Join(dir, "texts", name))
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
			texts[name] = text
		}
		seen[name] = true
		if got, want := len(text), atoi(t, r["bytes"]); got != want {
			t.Errorf("%s: %d bytes, counts.tsv says %d", name, got, want)
		}
		got, err := Count(text, enc)
		if err != nil {
			t.Errorf("%s %s: %v", name, enc, err)
			continue
		}
		if want := atoi(t, r["tokens"]); got != want {
			t.Errorf("%s %s: %d tokens, tiktoken gives %d", name, enc, got, want)
		}
	}
	// Every text in the folder must have been counted.
	entries, err := os.ReadDir(filepath.Join(dir, "texts"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !seen[e.Name()] {
			t.Errorf("texts/%s has no line in counts.tsv", e.Name())
		}
	}
	t.Logf("%d counts checked over %d texts", len(rows), len(texts))
}

// TestTruncateReference checks every cut text in reference/tokenizer/truncate
// (decode(encode(text)[-keep:]) by tiktoken), byte for byte, and that every
// file in the folder is covered by its INDEX.tsv.
func TestTruncateReference(t *testing.T) {
	dir := shared.Path(t, "reference", "tokenizer")
	rows := readTSV(t, filepath.Join(dir, "truncate", "INDEX.tsv"))
	covered := map[string]bool{"INDEX.tsv": true}
	texts := map[string]string{}
	encoded := map[string][]uint32{}
	const bigText = 256 << 10
	fffd := 0
	for _, r := range rows {
		name, enc, keep := r["file"], r["encoding"], atoi(t, r["keep"])
		covered[r["out_file"]] = true
		want, err := os.ReadFile(filepath.Join(dir, "truncate", r["out_file"]))
		if err != nil {
			t.Fatal(err)
		}
		// The file name encodes the same case; check it agrees with the row.
		if wantName := name + "." + enc + "." + strconv.Itoa(keep) + ".txt"; r["out_file"] != wantName {
			t.Errorf("INDEX row names %s, expected %s", r["out_file"], wantName)
		}
		text, ok := texts[name]
		if !ok {
			b, err := os.ReadFile(filepath.Join(dir, "texts", name))
			if err != nil {
				t.Fatal(err)
			}
			text = string(b)
			texts[name] = text
		}
		var got string
		if len(text) < bigText {
			got, err = KeepLast(text, enc, keep)
		} else {
			// KeepLast is Encode, Python's slice and Decode; for the large
			// texts the encoding is done once per encoding, not per cut.
			key := name + "\x00" + enc
			ids, ok := encoded[key]
			if !ok {
				if ids, err = encode(text, enc); err != nil {
					t.Fatal(err)
				}
				encoded[key] = ids
			}
			got, err = decode(ids[pySliceStart(len(ids), -keep):], enc)
		}
		if err != nil {
			t.Errorf("%s: %v", r["out_file"], err)
			continue
		}
		if got != string(want) {
			t.Errorf("%s: cut text differs (got %d bytes %q..., want %d bytes %q...)",
				r["out_file"], len(got), head(got), len(want), head(string(want)))
		}
		if r["fffd_at_cut"] != "0" {
			fffd++
		}
	}
	entries, err := os.ReadDir(filepath.Join(dir, "truncate"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !covered[e.Name()] {
			t.Errorf("truncate/%s is not in INDEX.tsv", e.Name())
		}
	}
	if fffd == 0 {
		t.Error("no reference case cuts inside a character; the U+FFFD rule is untested here")
	}
	t.Logf("%d cut texts checked (%d with U+FFFD at the cut)", len(rows), fffd)
}

func head(s string) string {
	if len(s) > 40 {
		return s[:40]
	}
	return s
}
