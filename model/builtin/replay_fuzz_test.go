package builtin

import (
	"bytes"
	"encoding/json"
	"maps"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// FuzzReadReplay: a replay file never panics the reader; a refusal is one
// line naming the file (and the line, when one is at fault); the answers
// read, written back as a replay file, read back the same; and a file read
// twice over answers as once (the first non-empty response counts).
func FuzzReadReplay(f *testing.F) {
	for _, s := range shared.Seeds(f, 1<<12, "reference", "dabench", "*.responses.jsonl") {
		f.Add(s)
	}
	f.Add([]byte("{\"name\": \"q1\", \"response\": \"42\"}\n{\"id\": 7, \"response\": \"@x[1]\"}\n{\"id\": \"7\", \"response\": null}\n"))
	f.Add([]byte("\ufeff{\"id\": 1.50, \"response\": \"\"}\n\n{\"id\": 1.5, \"response\": \"a\"}"))
	f.Add([]byte("{\"name\": \"\", \"response\": \"x\"}\n"))
	f.Add([]byte("{\"id\": [1], \"response\": \"x\"}\n{} {}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := readReplay(bytes.NewReader(data), "r.jsonl")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "r.jsonl:") || strings.Contains(err.Error(), "\n") {
				t.Fatalf("refusal is not one line naming the file: %q", err)
			}
			return
		}
		// Written back: names and string ids as strings, numeric ids as
		// JSON numbers (their text is a JSON number as read).
		var out bytes.Buffer
		enc := json.NewEncoder(&out)
		for name, resp := range m.byName {
			enc.Encode(map[string]any{"name": name, "response": resp})
		}
		for id, resp := range m.byID {
			if num, ok := m.byNum[id]; ok && num == resp {
				enc.Encode(map[string]any{"id": json.Number(id), "response": resp})
			} else {
				enc.Encode(map[string]any{"id": id, "response": resp})
			}
		}
		back, err := readReplay(&out, "back.jsonl")
		if err != nil {
			t.Fatalf("written back, it does not read: %v\n%s", err, out.String())
		}
		if !maps.Equal(back.byName, m.byName) || !maps.Equal(back.byID, m.byID) {
			t.Fatalf("written back, it answers differently:\n%q\n%q\n%q\n%q", m.byName, back.byName, m.byID, back.byID)
		}
		again := bytes.TrimPrefix(bytes.TrimLeft(data, " \t\r"), []byte("\ufeff")) // a BOM only starts a file
		twice, err := readReplay(bytes.NewReader(append(append(append([]byte(nil), data...), '\n'), again...)), "r.jsonl")
		if err != nil || !maps.Equal(twice.byName, m.byName) || !maps.Equal(twice.byID, m.byID) || !maps.Equal(twice.byNum, m.byNum) {
			t.Fatalf("read twice over, it answers differently: %v", err)
		}
	})
}
