package inspect

import (
	"encoding/json"
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// A question asked after a conversation's turns has them in its sample's
// input, between the system message and the question, as Inspect keeps a
// sample's input messages; its messages then end with the answer.
func TestConversationInput(t *testing.T) {
	f := syntheticOutput()
	f.Questions = f.Questions[:1]
	q := &f.Questions[0]
	q.Settings, q.ResponseSchema = &model.Settings{ResponseFormat: model.ResponseSchema}, `{"type":"object"}`
	q.Conversation = []model.Message{{Role: "user", Content: "2+2?"}, {Role: "assistant", Content: "4"}, {Role: "user", Content: "3+3?"}, {Role: "assistant", Content: "6"}}
	for _, system := range []*string{q.System, nil} {
		q.System = system
		path, err := WriteLog(t.TempDir(), f, LogOptions{Version: "v1"})
		if err != nil {
			t.Fatal(err)
		}
		CheckSchema(t, path)
		lg, err := ReadLog(path)
		if err != nil {
			t.Fatal(err)
		}
		s := lg.Samples[0]
		if got, _ := json.Marshal(s.Metadata["response_schema"]); string(got) != `{"type":"object"}` {
			t.Errorf("metadata response_schema %s", got)
		}
		wantIn, roles := "user assistant user assistant user", "user assistant user assistant user assistant"
		if system != nil {
			wantIn, roles = "system "+wantIn, "system "+roles
		}
		in := s.Input.Messages
		if got := msgRoles(in); got != wantIn {
			t.Errorf("input roles %q, want %q", got, wantIn)
		}
		if last := in[len(in)-1]; last.Role != "user" || last.Content.Text != q.Question || in[len(in)-2].Content.Text != "6" {
			t.Errorf("input %+v: want the turns, then the question", in)
		}
		if got := msgRoles(s.Messages); got != roles {
			t.Errorf("messages %q, want %q", got, roles)
		}
		ids := map[string]bool{}
		for _, m := range s.Messages {
			if ids[m.ID] {
				t.Errorf("message id %s twice", m.ID)
			}
			ids[m.ID] = true
		}
	}
}

// Without turns nor a system message, the input is the question's text,
// as before turns existed.
func TestNoConversationInputIsText(t *testing.T) {
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m"}, Questions: []result.Question{{Name: "q", Question: "2+2?", ModelName: "m"}}}
	path, err := WriteLog(t.TempDir(), f, LogOptions{})
	if err != nil {
		t.Fatal(err)
	}
	lg, err := ReadLog(path)
	if err != nil {
		t.Fatal(err)
	}
	if in := lg.Samples[0].Input; in.Text != "2+2?" || in.Messages != nil {
		t.Errorf("input %+v, want the text alone", in)
	}
}
