package batch

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// An answer's response survives the batch journal, reasoning included:
// every field but those of code and agent modes (Work, ToolCalls,
// ReasoningBlocks), which batches never carry.
func TestAnswerRecordKeepsResponse(t *testing.T) {
	want := model.Response{Text: "A", InputTokens: 9, OutputTokens: 9, Model: "m", FinishReason: "length",
		Reasoning: "hmm", ReasoningTokens: 8, CacheReadTokens: 5, CacheWriteTokens: 2}
	rv := reflect.ValueOf(want)
	for i := 0; i < rv.NumField(); i++ {
		if f := rv.Type().Field(i); f.Name != "Work" && f.Name != "ToolCalls" && f.Name != "ReasoningBlocks" && rv.Field(i).IsZero() {
			t.Errorf("Response.%s is zero in the test value", f.Name)
		}
	}
	b, err := json.Marshal(answerRecord(want))
	if err != nil {
		t.Fatal(err)
	}
	var rec record
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatal(err)
	}
	if got := rec.response(); !reflect.DeepEqual(got, want) {
		t.Errorf("response after the journal = %+v, want %+v", got, want)
	}
}
