package result

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// FuzzParse: an output file never panics Parse; the fast path decodes
// what it takes as the walk does; a refusal is one line
// starting ":line: "; a file accepted, written back by Marshal, parses
// again, and its second writing is its first (unknown members kept).
func FuzzParse(f *testing.F) {
	for _, s := range shared.Seeds(f, 1<<14, "corpora", "lime", "results", "output-*.json") {
		f.Add(s)
	}
	f.Add([]byte(`{"sheet":{"name":"s","run_id":"ab12","model_name":"m","meta_data":{"benchmark":"x"},"type":"sheet"},` +
		`"questions":[{"name":"q","grade":true,"completion":"a\tb","served_model":"m-2024-08-06","eval_time":0.5,"meta_data":{"id":"7"},"sub_sections":[]}]}`))
	f.Add([]byte(`{"sheet":{"name":"s"},"questions":[{"name":"q","grade":null,"error":"timeout","cost":1e-7}],"extra":[1,{"a":null}]}`))
	f.Add([]byte("{\"sheet\": {\"name\": \"s\"},\n \"questions\": [{\"name\": \"q\",\n \"eval_time\": NaN}]}"))
	f.Add([]byte(`{"sheet":{"name":"s","totals":{"questions":-1}},"questions":[{"name":"q"}]}`))
	f.Add([]byte(`{"sheet":{"name":"s","totals":{"questions":1000000000000,"answered":-5}},"questions":[]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// The fast path takes a file only to decode it as the walk does.
		if fast, ok := parseFast(data); ok {
			walked, err := parseWalk(data)
			if err != nil {
				t.Fatalf("fast path took a file the walk refuses: %v", err)
			}
			if !reflect.DeepEqual(fast, walked) {
				t.Fatalf("fast path and walk differ:\n%#v\n%#v", fast, walked)
			}
		}
		file, err := Parse(data)
		if err != nil {
			if msg := err.Error(); !strings.HasPrefix(msg, ":") || strings.Contains(msg, "\n") {
				t.Fatalf("refusal is not one line starting :line: %q", msg)
			}
			return
		}
		checkHint(t, file, int64(len(data)))
		first, err := file.Marshal()
		if err != nil {
			t.Fatalf("Marshal of a parsed file: %v", err)
		}
		again, err := Parse(first)
		if err != nil {
			t.Fatalf("written back, it does not parse: %v\n%s", err, first)
		}
		second, err := again.Marshal()
		if err != nil || !bytes.Equal(first, second) {
			t.Fatalf("written twice, it differs: %v\n%s\n%s", err, first, second)
		}
		if len(again.Questions) != len(file.Questions) {
			t.Fatalf("%d questions written back as %d", len(file.Questions), len(again.Questions))
		}
	})
}
