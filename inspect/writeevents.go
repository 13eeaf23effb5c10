package inspect

// This file is a sample's events and its transcript as Inspect's
// viewer shows them.

import (
	"encoding/json"
	"strconv"

	"github.com/evalmd/evalmd/agentproto"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// sampleEvents is the transcript Inspect's viewer shows for a sample: a
// model event for every model call, with the messages it was sent and
// the output it gave; in agent mode a tool event for every python call
// (with its result); in code mode a sandbox event for the code run and
// the answer it gave. A failed question has one model event carrying the
// error; a question never asked (a dry run, a replay without an answer)
// has none. The output file records when the run started, not when each
// call was made: every event takes the run's start. Each model event names
// mdl, the model asked; its output names the model that answered.
func sampleEvents(q *result.Question, s *evalSample, mdl string, asked int, cfg generateConfig, tools []toolInfo, stamp string) []event {
	if q.Completion == nil && q.Error == nil {
		return []event{}
	}
	choice := "none"
	if len(tools) > 0 {
		choice = "auto"
	}
	ev := &eventMaker{model: mdl, cfg: cfg, tools: tools, choice: choice, stamp: stamp, args: map[string]map[string]any{}}
	var events []event
	if len(q.Transcript) == 0 {
		events = ev.chatEvents(q, s, asked)
	} else {
		events = ev.agentEvents(q, s, asked)
	}
	if q.Mode == model.ModeCode && (q.Code != nil || q.CodeError != "") {
		events = append(events, event{Sandbox: sandboxRun(q, stamp)})
	}
	return events
}

// eventMaker makes a sample's events; args are the arguments of the tool
// calls seen so far, by call id.
type eventMaker struct {
	model  string
	cfg    generateConfig
	tools  []toolInfo
	choice string
	stamp  string
	args   map[string]map[string]any
}

// call is the model event of a call sent input that gave out.
func (e *eventMaker) call(input []ChatMessage, out modelOutput) *modelEvent {
	return &modelEvent{Event: "model", Timestamp: e.stamp, Model: e.model,
		Input: append([]ChatMessage{}, input...), Tools: e.tools, ToolChoice: e.choice, Config: e.cfg, Output: out}
}

// calls records the arguments of the tool calls of m.
func (e *eventMaker) calls(m ChatMessage) {
	for _, c := range m.ToolCalls {
		e.args[c.ID] = c.Arguments
	}
}

// toolCalled is the tool event of the tool message m.
func (e *eventMaker) toolCalled(m ChatMessage) event {
	a := e.args[m.ToolCallID]
	if a == nil {
		a = map[string]any{}
	}
	return event{Tool: &toolEvent{Event: "tool", Timestamp: e.stamp, Type: "function",
		ID: m.ToolCallID, Function: m.Function, Arguments: a, Result: m.Content.String(), Error: m.Error,
		Events: []json.RawMessage{}}}
}

// chatEvents are the events of a question answered in one call: its model
// event and, in code mode, the code's run as a call of the answer.
func (e *eventMaker) chatEvents(q *result.Question, s *evalSample, asked int) []event {
	ev := e.call(s.Messages[:asked], s.Output)
	if q.Error != nil {
		ev.Error = *q.Error
	}
	ev.WorkingTime = s.WorkingTime
	events := []event{{Model: ev}}
	for _, m := range s.Messages[asked:] {
		e.calls(m)
		if m.Role == "tool" {
			events = append(events, e.toolCalled(m))
		}
	}
	return events
}

// agentEvents are the events of an agent's turns, the messages after the
// question: each assistant turn is a model call on everything before it.
func (e *eventMaker) agentEvents(q *result.Question, s *evalSample, asked int) []event {
	events := []event{}
	for i := asked; i < len(s.Messages); i++ {
		m := s.Messages[i]
		switch m.Role {
		case "assistant":
			reason := "tool_calls"
			switch {
			case len(m.ToolCalls) == 0:
				reason = stopReason(q.FinishReason)
			case len(e.tools) == 0:
				reason = "stop" // a ReAct step: its call is text, cut at the stop word
			}
			out := modelOutput{Model: s.Output.Model, Choices: []completionChoice{{Message: m, StopReason: reason}}, Completion: m.Content.String()}
			events = append(events, event{Model: e.call(s.Messages[:i], out)})
			e.calls(m)
		case "tool":
			if m.ToolCallID == "" {
				continue // answers no call
			}
			events = append(events, e.toolCalled(m))
		}
	}
	if q.Error != nil {
		ev := e.call(s.Messages, modelOutput{Model: s.Output.Model, Choices: []completionChoice{}})
		ev.Error = *q.Error
		events = append(events, event{Model: ev})
	}
	return events
}

// sandboxRun is the sandbox event of a code-mode question's run.
func sandboxRun(q *result.Question, stamp string) *sandboxEvent {
	sb := &sandboxEvent{Event: "sandbox", Timestamp: stamp, Action: "exec", Cmd: "python3"}
	status := 0
	if q.Code != nil {
		sb.Input = *q.Code
	}
	switch {
	case q.CodeError != "":
		status = 1
		sb.Output = q.CodeError
	case q.Answer != nil:
		sb.Output = *q.Answer
	}
	sb.Result = &status
	return sb
}

// turnContent is an agent turn's content: as assistantContent, but when
// the turn kept its reasoning as its API returned it (Anthropic's thinking
// blocks, the Responses API's reasoning items), one ContentReasoning part
// per block, as Inspect records them: a thinking block with its
// signature, a redacted one as its encrypted data marked redacted, a
// reasoning item as its summary (redacted when it has none).
func turnContent(t model.Message) MessageContent {
	if len(t.ReasoningBlocks) == 0 {
		return assistantContent(t.Content, t.Reasoning)
	}
	var parts []contentPart
	for _, b := range t.ReasoningBlocks {
		p := contentPart{Type: "reasoning", Reasoning: b.Text}
		switch b.Type {
		case model.ThinkingBlock:
			p.Signature = b.Signature
		case model.RedactedThinkingBlock:
			p.Reasoning, p.Redacted = b.Data, true
		default:
			p.Redacted = b.Text == ""
		}
		parts = append(parts, p)
	}
	return MessageContent{Parts: append(parts, contentPart{Type: "text", Text: t.Content})}
}

// transcript is an agent's turns as Inspect messages; id makes an id from
// a name unique in the sample. A ReAct agent (react) asks for its code in
// its text, and its observations answer no API call: each step gets the
// python call it made in text, and its observation that call's id, so
// Inspect's viewer pairs them (it drops a tool message that answers no
// call).
func transcript(turns []model.Message, mdl string, react bool, id func(string) string) []ChatMessage {
	var out []ChatMessage
	reactCall := func(i int) string { return id("call" + strconv.Itoa(i)) }
	for i, t := range turns {
		m := ChatMessage{ID: id("t" + strconv.Itoa(i)), Role: t.Role, Content: MessageContent{Text: t.Content}}
		switch t.Role {
		case "assistant":
			m.Source, m.Model = "generate", mdl
			m.Content = turnContent(t)
			for _, c := range t.ToolCalls {
				tc := toolCall{ID: c.ID, Function: c.Name, Type: "function", Arguments: map[string]any{}}
				if err := json.Unmarshal([]byte(c.Arguments), &tc.Arguments); err != nil || tc.Arguments == nil {
					tc.Arguments, tc.ParseError = map[string]any{}, "arguments are not a JSON object: "+c.Arguments
				}
				m.ToolCalls = append(m.ToolCalls, tc)
			}
			if react && len(t.ToolCalls) == 0 && i+1 < len(turns) && turns[i+1].Role == "tool" && turns[i+1].ToolCallID == "" {
				tc := toolCall{ID: reactCall(i), Function: agentproto.PythonTool.Name, Type: "function", Arguments: map[string]any{}}
				if code, ok := agentproto.ReactAction(t.Content); ok {
					tc.Arguments["code"] = code
				} else {
					tc.ParseError = "no Action Input code block in the reply"
				}
				m.ToolCalls = append(m.ToolCalls, tc)
			}
		case "tool":
			m.ToolCallID, m.Function = t.ToolCallID, agentproto.PythonTool.Name
			if react && m.ToolCallID == "" && i > 0 && turns[i-1].Role == "assistant" && len(turns[i-1].ToolCalls) == 0 {
				m.ToolCallID = reactCall(i - 1)
			}
			m.Error = toolError(t.ToolLimit)
		}
		out = append(out, m)
	}
	return out
}

// toolError is why a python call failed when a sandbox limit stopped it
// (Inspect's ToolCallError types); nil for no limit.
func toolError(limit string) *toolCallError {
	if limit == "" {
		return nil
	}
	typ := "limit"
	switch limit {
	case "tool_timeout", "timeout": // "timeout": files written before the rename
		typ = "timeout"
	case "output":
		typ = "output_limit"
	}
	return &toolCallError{Type: typ, Message: "stopped by the sandbox's " + limit + " limit"}
}
