package openai

import (
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// FuzzBatchResult feeds any line of a results file to the readers of
// the chat and Responses batches, which read what a server wrote: each
// line gives a result naming its request or an error, never a panic, and
// no error quotes the key.
func FuzzBatchResult(f *testing.F) {
	for _, s := range []string{
		`{"custom_id":"q1","response":{"status_code":200,"body":{"model":"m","choices":[{"message":{"content":"4","tool_calls":[{"id":"c","type":"function","function":{"name":"f","arguments":"{}"}}]},"finish_reason":"stop"}],"usage":{"prompt_tokens":1}}}}`,
		`{"custom_id":"q2","response":{"status_code":200,"body":{"status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[{"type":"reasoning","summary":[{"text":"s"}]},{"type":"message","content":[{"type":"refusal","refusal":"no"}]}]}}}`,
		`{"custom_id":"q3","response":{"status_code":401,"body":{"error":{"message":"bad key sk-fuzz-key","code":"invalid_api_key"}}}}`,
		`{"custom_id":"q4","error":{"code":"batch_expired","message":"sk-fuzz-key expired"}}`,
		`{"custom_id":"q5","response":{"status_code":200,"body":{"choices":[]}}}`,
		`{"custom_id":"q6","response":{"status_code":200,"body":{"output":[1,"x",null]}}}`,
		`{"custom_id":""}`, `null`, `[]`, `{"custom_id":7}`,
	} {
		f.Add([]byte(s))
	}
	var apis []*batchAPI
	for _, name := range []string{"openai/gpt-4o", "openai-responses/o3"} {
		m, err := newModel(name, model.Options{APIKey: "sk-fuzz-key", BaseURL: "http://127.0.0.1:1/v1"})
		if err != nil {
			f.Fatal(err)
		}
		api, err := m.(model.Batcher).Batch()
		if err != nil {
			f.Fatal(err)
		}
		apis = append(apis, api.(*batchAPI))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		for _, api := range apis {
			r, err := api.resultOf(line)
			if err != nil {
				continue
			}
			if r.CustomID == "" {
				t.Errorf("%s: a result without a custom_id from %q", api.endpoint, line)
			}
			if r.Err != nil && strings.Contains(r.Err.Error(), "sk-fuzz-key") {
				t.Errorf("%s: the error quotes the key: %v", api.endpoint, r.Err)
			}
		}
	})
}
