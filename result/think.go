package result

import (
	"strings"

	"github.com/evalmd/evalmd/model"
)

// SetChatReply records a chat reply r as the think_tags rule gives it:
// the answer as its completion, the reasoning apart, and ThinkBlocks the
// leading text the rule took out of r's text, so that a rerun under
// another rule (Resplit) can give the reply as the server sent it.
func (q *Question) SetChatReply(r model.Response, rule string) {
	split := model.SplitThink(r, rule)
	text := split.Text
	q.Completion = &text
	q.Reasoning = split.Reasoning
	q.ThinkBlocks = removed(r.Text, split.Text)
}

// removed is what of raw leads the answer split from it: raw but for
// the answer and the white space around it; "" when nothing was taken.
func removed(raw, answer string) string {
	if raw == answer {
		return ""
	}
	body := strings.TrimRight(raw, " \t\r\n")
	if answer == "" || !strings.HasSuffix(body, answer) {
		return raw
	}
	return body[:len(body)-len(answer)]
}

// Resplit gives q, a chat answer recorded under the think_tags rule from
// and reused under the rule to, the completion and reasoning the rule to
// gives its reply: the reply is put back together from ThinkBlocks and
// the completion, the reasoning the server returned apart kept. It does
// nothing where the rules are one, or for code and agent answers (each
// of their replies was split as it came).
func (q *Question) Resplit(from, to string) {
	from, to = ruleOf(from), ruleOf(to)
	if from == to || q.Mode != "" || q.ReformatModel != "" || q.Completion == nil {
		return
	}
	server := q.Reasoning
	if from == model.ThinkAuto && q.ThinkBlocks != "" {
		if thought := model.SplitThink(model.Response{Text: q.ThinkBlocks}, model.ThinkAuto).Reasoning; thought != "" {
			server = strings.TrimSuffix(strings.TrimSuffix(server, thought), "\n\n")
		}
	}
	raw := q.ThinkBlocks + *q.Completion
	q.SetChatReply(model.Response{Text: raw, Reasoning: server}, to)
}

func ruleOf(rule string) string {
	if rule == "" {
		return model.ThinkAuto
	}
	return rule
}
