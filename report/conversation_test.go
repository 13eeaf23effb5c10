package report

import (
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// The question view shows a conversation's turns, each under its role,
// before the user message, and the schema an answer was asked to follow
// as a section of the answer; a question without them shows its user
// message alone, as before.
func TestConversationShown(t *testing.T) {
	q := &result.Question{Question: "Who am I?", Conversation: []model.Message{{Role: "user", Content: "I am Ada."}, {Role: "assistant", Content: "Hello Ada."}},
		ResponseSchema: `{"type":"object"}`}
	if got, want := promptText(q), "[user]\nI am Ada.\n\n[assistant]\nHello Ada.\n\n[user]\nWho am I?"; got != want {
		t.Errorf("prompt %q, want %q", got, want)
	}
	st := newStore()
	secs := sections(q, st)
	if len(secs) != 1 || secs[0].Title != SectionSchema || secs[0].Kind != "code" {
		t.Errorf("sections %+v", secs)
	}
	plain := &result.Question{Question: "2+2?"}
	if got := promptText(plain); got != "2+2?" || len(sections(plain, st)) != 0 {
		t.Errorf("plain question: prompt %q, sections %+v", got, sections(plain, st))
	}
}
