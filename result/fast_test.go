package result

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// TestParseFastTakesLIME: LIME's result files and files this tool writes
// (unknown members, null questions, code mode) are decoded by the fast
// path, to the File the walk decodes; files it must leave to the walk are.
func TestParseFastTakesLIME(t *testing.T) {
	paths, _ := filepath.Glob(filepath.Join(shared.Path(t, "corpora", "lime", "results"), "output-*.json"))
	if len(paths) == 0 {
		shared.Missing(t, "no LIME results")
	}
	inputs := map[string][]byte{
		"unknown members": []byte(`{"sheet":{"name":"s","type":"sheet","x":[1,"\""]},"questions":[{"name":"q","question_sys":null,"completion":"a\\\"b"}],"extra":{"a":[]}}`),
		"null questions":  []byte(`{"sheet":{"name":"s"},"questions":null}`),
		// A question in doubt is walked alone, the rest decoded fast.
		"question walked": []byte(`{"sheet":{"name":"s"},"questions":[{"name":"a"},{"name":"q","Grade":true,"grade":false},{"name":"b","name":"c"}]}`),
	}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		inputs[filepath.Base(p)] = data
	}
	for name, data := range inputs {
		fast, ok := parseFast(data)
		if !ok {
			t.Errorf("%s: left to the walk", name)
			continue
		}
		walked, err := parseWalk(data)
		if err != nil || !reflect.DeepEqual(fast, walked) {
			t.Errorf("%s: fast path and walk differ (walk: %v)", name, err)
		}
	}
	for name, data := range map[string]string{
		"null name":          `{"sheet":{"name":null},"questions":[]}`,
		"null run id":        `{"sheet":{"run_id":null},"questions":[]}`,
		"null question":      `{"sheet":{},"questions":[null]}`,
		"null question name": `{"sheet":{},"questions":[{"name":null}]}`,
		"repeated member":    `{"sheet":{"name":"a","name":"b"},"questions":[]}`,
		"escaped key":        `{"sheet":{"n\u0061me":"a"},"questions":[]}`,
		"key in other case":  `{"sheet":{"Name":"a"},"questions":[]}`,
		"no questions":       `{"sheet":{}}`,
		"bad epoch":          `{"sheet":{"epoch":3,"epochs":2},"questions":[]}`,
		"not an object":      `[]`,
	} {
		if _, ok := parseFast([]byte(data)); ok {
			t.Errorf("%s: taken by the fast path", name)
		}
	}
}
