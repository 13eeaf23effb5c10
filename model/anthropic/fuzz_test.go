package anthropic

import (
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// FuzzBatchResult feeds any line of a results file to the reader of a
// Message Batch's results, which reads what a server wrote: each line
// gives a result naming its request or an error, never a panic, and no
// error quotes the key.
func FuzzBatchResult(f *testing.F) {
	for _, s := range []string{
		`{"custom_id":"q1","result":{"type":"succeeded","message":{"model":"m","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"4"},{"type":"tool_use","id":"t1","name":"f","input":{"a":1}}],"stop_reason":"end_turn","usage":{"input_tokens":3}}}}`,
		`{"custom_id":"q2","result":{"type":"errored","error":{"type":"error","error":{"type":"authentication_error","message":"bad sk-fuzz-key"}}}}`,
		`{"custom_id":"q3","result":{"type":"expired"}}`,
		`{"custom_id":"q4","result":{"type":"succeeded","message":{"content":[{"type":"redacted_thinking","data":"x"}]}}}`,
		`{"custom_id":"q5","result":{"type":"errored","error":"sk-fuzz-key"}}`,
		`{"custom_id":""}`, `null`, `{}`, `{"custom_id":"q6","result":{"type":"mystery"}}`,
	} {
		f.Add([]byte(s))
	}
	m, err := newModel("anthropic/claude-sonnet-4-5", model.Options{APIKey: "sk-fuzz-key", BaseURL: "http://127.0.0.1:1"})
	if err != nil {
		f.Fatal(err)
	}
	mm := m.(*messagesModel)
	f.Fuzz(func(t *testing.T, line []byte) {
		r, err := mm.result(line)
		if err != nil {
			return
		}
		if r.CustomID == "" {
			t.Errorf("a result without a custom_id from %q", line)
		}
		if r.Err != nil && strings.Contains(r.Err.Error(), "sk-fuzz-key") {
			t.Errorf("the error quotes the key: %v", r.Err)
		}
	})
}
