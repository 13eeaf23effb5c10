package batch

import (
	"bytes"
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/jsonl"
)

// FuzzReadJournal: the batch journal reader never panics; an error names
// the journal and line; what it accepts is the part of the input up to its
// last newline (a torn last line is a crash's), which reads the same
// records again; and the records it returns, written back as the journal
// writes them, read back equal.
func FuzzReadJournal(f *testing.F) {
	var seed bytes.Buffer
	for _, r := range []record{
		{T: recTag, Tag: "r1a2"},
		{T: recIntent, N: 1, Time: "2026-01-02T03:04:05Z", File: "file-1", IDs: map[string]string{"r0": "0:a"}, FPs: map[string]string{"r0": "ab"}},
		{T: recCreated, N: 1, Batch: "batch_1"},
		{T: recAnswer, N: 1, Batch: "batch_1", ID: "r0", Key: "0:a", FP: "ab", Text: "answer\n\"quoted\"", InputTokens: 3, OutputTokens: 1, Model: "m", FinishReason: "stop"},
		{T: recFailed, N: 2, Msg: "validation"},
		{T: recCollected, N: 1},
	} {
		b, _ := json.Marshal(r)
		seed.Write(append(b, '\n'))
	}
	f.Add(seed.Bytes())
	f.Add(seed.Bytes()[:seed.Len()-7])
	f.Add([]byte("\n\n{\"t\":\"tag\"}\n"))
	f.Add([]byte("{\"t\":\"\"}\n"))
	f.Add([]byte("{\"t\":\"answer\",\"text\":\"\\u0000\"}\nnot json\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, good, err := readJournal(bytes.NewReader(data), "fuzz")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "batch journal fuzz:") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("error is not one line naming the journal and line: %q", err)
			}
			return
		}
		if good < 0 || good > int64(len(data)) || (good > 0 && data[good-1] != '\n') {
			t.Fatalf("good %d of %d is not a line boundary", good, len(data))
		}
		if tail := data[good:]; bytes.IndexByte(tail, '\n') >= 0 {
			t.Fatalf("accepted %d bytes, but a whole line follows", good)
		}
		again, good2, err := readJournal(bytes.NewReader(data[:good]), "fuzz")
		if err != nil || good2 != good || !reflect.DeepEqual(again, recs) {
			t.Fatalf("the accepted part reads differently: %v, %d", err, good2)
		}
		var out bytes.Buffer
		for _, r := range recs {
			if r.T == "" {
				t.Fatalf("record without a kind accepted: %+v", r)
			}
			b, err := json.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			out.Write(append(b, '\n'))
		}
		written := out.String()
		back, _, err := readJournal(&out, "fuzz")
		if err != nil || len(back) != len(recs) {
			t.Fatalf("written back, the records do not read: %v\n%s", err, written)
		}
		for i := range back {
			b1, _ := json.Marshal(recs[i])
			b2, _ := json.Marshal(back[i])
			if !bytes.Equal(b1, b2) {
				t.Fatalf("record %d written back reads differently:\n%s\n%s", i+1, b1, b2)
			}
		}
	})
}

func readJournal(r io.Reader, name string) (recs []record, good int64, err error) {
	good, _, err = jsonl.Read(r, "batch journal "+name, takeRecord(&recs, name))
	if err != nil {
		return nil, 0, err
	}
	return recs, good, nil
}
