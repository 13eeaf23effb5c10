package inspect

// This file is a log's samples: each question's input, output,
// usage, limits and tools.

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/agentproto"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// sampleRun is what every sample of a log shares.
type sampleRun struct {
	model string          // the run's model name
	seed  string          // the task id: makes message ids and uuids unique to the run
	run   *model.Settings // the run-level settings
	stamp string          // the run's start, the timestamp of the events
	gen   generateConfig  // the run's settings as the log records them
	file  *result.File    // the output file: its sheet meta, for questions without a recorded setting
	epoch int             // the output file's epoch (1 for a run of one)
}

// buildSample turns one question record into a sample. index is its place
// in the output file. A question sent other settings than the run's has
// them in its metadata ("generate_config").
func buildSample(q *result.Question, id SampleID, index int, r sampleRun) evalSample {
	s := newSample(q, id, index, r)
	var runLevel model.Settings
	if r.run != nil {
		runLevel = *r.run
	}
	sent := r.gen
	if q.Settings != nil && !q.Settings.Equal(runLevel) {
		sent = generateConfigOf(nil, q.Settings)
		s.Metadata["generate_config"] = sent
	}
	if q.ResponseSchema != "" && json.Valid([]byte(q.ResponseSchema)) {
		// The schema the answer was asked to follow, as Inspect's
		// response_schema holds it: a JSON object, not its text.
		s.Metadata["response_schema"] = json.RawMessage(q.ResponseSchema)
	}
	s.Choices = Choices(q.Question)
	msgID := func(role string) string { return shortID("msg", r.seed, strconv.Itoa(index), role) }
	s.setInput(q, msgID)
	asked := len(s.Messages)
	usage := questionUsage(q)
	mdl := q.ModelName
	if mdl == "" {
		mdl = r.model
	}
	// The output and the answer's messages name the model that answered,
	// as the server said it (Inspect's ModelOutput.model is the reply's
	// "model"); the model events name the model asked, as Inspect's do.
	served := mdl
	if q.ServedModel != "" {
		served = q.ServedModel
	}
	s.Output = modelOutput{Model: served, Choices: []completionChoice{}}
	if len(q.Transcript) > 0 {
		// Agent mode: every turn, with its tool calls and results, so the
		// viewer shows the whole transcript; the last assistant turn is the
		// answer (the completion).
		s.Messages = append(s.Messages, transcript(q.Transcript, served, r.file.SolveSetting(q, "agent_style") == agentproto.StyleReact, msgID)...)
	}
	codeMetadata(q, s.Metadata)
	if q.Completion != nil {
		s.setAnswer(q, served, asked, msgID)
		if q.InputTokens+q.OutputTokens > 0 {
			// LIME's files record no tokens; zeros would claim a count.
			u := usage
			s.Output.Usage = &u
		}
	}
	if finite(q.EvalTime) {
		t := *q.EvalTime
		s.Output.Time = &t
		s.TotalTime = &t
		s.WorkingTime = &t
	}
	if mdl != "" && (q.InputTokens+q.OutputTokens > 0 || finite(q.Cost)) {
		s.ModelUsage[mdl] = usage
	}
	s.setError(q, r.file.Sheet.DryRun)
	s.Events = sampleEvents(q, &s, mdl, asked, sent, agentTools(q, r.file), r.stamp)
	if s.Limit != nil {
		// Inspect's transcript ends a sample stopped by a limit with a
		// sample_limit event, which its viewer shows.
		ev := &sampleLimitEvent{Event: "sample_limit", Timestamp: r.stamp, Type: s.Limit.Type, Message: limitMessage(q)}
		if lim := s.Limit.Limit; lim > 0 {
			ev.Limit = &lim
		}
		s.Events = append(s.Events, event{Limit: ev})
	}
	var edit *scoreEditEvent
	s.Scores, edit = sampleScores(q, s.WorkingTime)
	if edit != nil {
		// edit_score puts its event at the end of the transcript when the
		// sample has no scorers span, as these have not.
		s.Events = append(s.Events, event{ScoreEdit: edit})
	}
	return s
}

// newSample is the sample of a question without its messages and output:
// its id, epoch, target and metadata.
func newSample(q *result.Question, id SampleID, index int, r sampleRun) evalSample {
	s := evalSample{
		ID:          id,
		Epoch:       max(r.epoch, 1),
		Metadata:    map[string]any{},
		Store:       map[string]any{},
		Events:      []event{},
		ModelUsage:  map[string]modelUsage{},
		RoleUsage:   map[string]modelUsage{},
		UUID:        shortID("sample", r.seed, strconv.Itoa(index)),
		Attachments: map[string]string{},
	}
	if q.GroundTruth != nil {
		s.Target = *q.GroundTruth
	}
	for k, v := range q.MetaData {
		s.Metadata[k] = v
	}
	return s
}

// setError sets the sample's error (a dry run's never finished) and the
// limit that stopped it.
func (s *evalSample) setError(q *result.Question, dryRun bool) {
	switch {
	case q.Error != nil:
		s.Error = newError(*q.Error)
	case dryRun:
		s.Error = dryRunError()
	}
	if q.Limit != "" && !(q.Mode == "" && q.Limit == "max_tokens") {
		// A chat answer cut by max_tokens is no sample limit in Inspect:
		// its output's stop_reason says it.
		s.Limit = limitOf(q)
	}
}

// setInput sets the sample's input and its first messages: the question,
// after the system message when there is one and the conversation's
// turns when there are any; a question alone is Inspect's input text.
func (s *evalSample) setInput(q *result.Question, msgID func(string) string) {
	user := ChatMessage{ID: msgID("user"), Role: "user", Content: MessageContent{Text: q.Question}, Source: "input"}
	if q.System == nil && len(q.Conversation) == 0 {
		s.Input = SampleInput{Text: q.Question}
		s.Messages = []ChatMessage{user}
		return
	}
	var msgs []ChatMessage
	if q.System != nil {
		msgs = append(msgs, ChatMessage{ID: msgID("system"), Role: "system", Content: MessageContent{Text: *q.System}, Source: "input"})
	}
	for i, m := range q.Conversation {
		// Numbered: a conversation has more than one turn of a role.
		msgs = append(msgs, ChatMessage{ID: msgID("turn" + strconv.Itoa(i)), Role: m.Role, Content: MessageContent{Text: m.Content}, Source: "input"})
	}
	msgs = append(msgs, user)
	s.Input = SampleInput{Messages: msgs}
	s.Messages = slices.Clone(msgs)
}

// questionUsage is the tokens and cost a question's output file records.
func questionUsage(q *result.Question) modelUsage {
	usage := modelUsage{InputTokens: q.InputTokens, OutputTokens: q.OutputTokens, TotalTokens: q.InputTokens + q.OutputTokens,
		ReasoningTokens: q.ReasoningTokens}
	if finite(q.Cost) {
		c := float(*q.Cost)
		usage.TotalCost = &c
	}
	return usage
}

// codeMetadata adds what a code-mode question ran and gave, and the limit
// that stopped a question, to the sample's metadata.
func codeMetadata(q *result.Question, meta map[string]any) {
	if q.Mode == model.ModeCode {
		meta["code_extract"] = q.CodeExtract
		if q.Code != nil {
			meta["code"] = *q.Code
		}
		if q.Answer != nil {
			meta["answer"] = *q.Answer
		}
		if q.CodeError != "" {
			meta["code_error"] = q.CodeError
		}
	}
	if q.Limit != "" {
		meta["limit"] = q.Limit
	}
}

// setAnswer sets the output of a question that has a completion, and ends
// the messages with the answer (and in code mode the code's run); asked
// is the number of messages the question itself takes.
func (s *evalSample) setAnswer(q *result.Question, served string, asked int, msgID func(string) string) {
	asst := ChatMessage{ID: msgID("assistant"), Role: "assistant", Content: assistantContent(*q.Completion, q.Reasoning), Source: "generate", Model: served}
	s.Output.Choices = []completionChoice{{Message: asst, StopReason: stopReason(q.FinishReason)}}
	switch end := &s.Messages[len(s.Messages)-1]; {
	case len(q.Transcript) > 0 && end.Role == "assistant" && len(end.ToolCalls) == 0:
		s.Output.Choices[0].Message = *end // the transcript's last turn is the answer
	case len(q.Transcript) > 0 && q.Limit != "" && *q.Completion == "":
		// An agent stopped by a limit before it answered: its
		// messages end where it stopped, as Inspect's do, and the
		// output is its last model call's.
		s.Output.Choices = lastCall(s.Messages[asked:])
	default:
		s.Messages = append(s.Messages, asst)
	}
	s.Output.Completion = *q.Completion
	if s.Output.Completion == "" && len(s.Output.Choices) > 0 {
		// Inspect's reader fills an empty completion with its first
		// choice's text (ModelOutput's validator): a turn-limited agent's
		// last call's. Written so, the log reads back as it was written.
		s.Output.Completion = s.Output.Choices[0].Message.Content.String()
	}
	if q.Mode == model.ModeCode && q.Code != nil {
		// The code ran as Inspect's python tool would have run it: a
		// call on the answer and the tool's result after it, so the
		// viewer shows both (it hides sandbox events by default).
		call, res := codeCall(q, msgID)
		last := &s.Messages[len(s.Messages)-1]
		last.ToolCalls = append(last.ToolCalls, call)
		s.Messages = append(s.Messages, res)
	}
}

// codeCall is a code-mode answer's run as a python tool call and its
// result.
func codeCall(q *result.Question, msgID func(string) string) (toolCall, ChatMessage) {
	call := toolCall{ID: msgID("call"), Function: agentproto.PythonTool.Name, Type: "function", Arguments: map[string]any{"code": *q.Code}}
	res := ChatMessage{ID: msgID("tool"), Role: "tool", ToolCallID: call.ID, Function: call.Function}
	switch {
	case q.CodeError != "":
		res.Content.Text = q.CodeError
		res.Error = toolError(q.Limit)
		if res.Error == nil {
			res.Error = &toolCallError{Type: "unknown", Message: q.CodeError}
		}
	case q.Answer != nil:
		res.Content.Text = *q.Answer
	}
	return call, res
}

// sampleScores is a graded question's score under its grader's name; nil
// for an ungraded question: Inspect's Score.value may not be null, so it
// has no score at all (and counts in unscored_samples). A question a
// person reviewed has the grader's score edited to the person's verdict,
// and the edit's event is returned.
func sampleScores(q *result.Question, workingTime *float64) (map[string]sampleScore, *scoreEditEvent) {
	if q.Grade == nil {
		return nil, nil
	}
	graded := q.Grade
	if q.Review != nil {
		graded = q.Review.GraderGrade
	}
	sc := sampleScore{Metadata: map[string]any{"grader": scorerName(q)}, History: []scoreEdit{}}
	if graded != nil {
		sc.Value = gradeValue(*graded)
	}
	if g := q.Graded(); g != nil {
		a := *g
		sc.Answer = &a
	}
	if q.GradeDetail != "" {
		e := q.GradeDetail
		sc.Explanation = &e
	}
	if len(q.SubAnswers) > 0 {
		sc.Metadata["sub_answers"] = q.SubAnswers
	}
	if q.Grading != "" {
		// The grading mode some source set (the output's grading and
		// grading_from); absent in the default mode, as in the output.
		sc.Metadata["grading"], sc.Metadata["grading_from"] = q.Grading, q.GradingFrom
	}
	var edit *scoreEditEvent
	if q.Review != nil {
		start := 0.0
		if workingTime != nil {
			start = *workingTime
		}
		ev := applyReview(q, scorerName(q), &sc, graded == nil, start)
		edit = &ev
	}
	return map[string]sampleScore{scorerName(q): sc}, edit
}

// lastCall is the output of the last model call among an agent's turns:
// its last assistant turn, which asked for tools; none when it made none.
func lastCall(turns []ChatMessage) []completionChoice {
	for i := len(turns) - 1; i >= 0; i-- {
		if turns[i].Role == "assistant" {
			return []completionChoice{{Message: turns[i], StopReason: "tool_calls"}}
		}
	}
	return []completionChoice{}
}

// limitMessage is a sample_limit event's message: which of the question's
// limits stopped it, and its value when the output records one.
func limitMessage(q *result.Question) string {
	if q.LimitValue > 0 && finite(&q.LimitValue) {
		return fmt.Sprintf("stopped by the %s limit (%s)", q.Limit, strconv.FormatFloat(q.LimitValue, 'f', -1, 64))
	}
	return "stopped by the " + q.Limit + " limit"
}

// newError is an EvalError of a message. A Go run has no Python traceback;
// the message stands in for it, since the viewer shows a sample's error by
// its traceback alone.
func newError(msg string) *evalError {
	return &evalError{Message: msg, Traceback: msg, TracebackANSI: msg}
}

// runError is the error of a log whose status is "error": msg (the error
// that stopped the run), else, when every sample failed, the first of
// their errors. The viewer shows a run's error as its message above its
// traceback, so the traceback says what the message does not: each failed
// sample and its error, or nothing.
func runError(msg string, samples []evalSample, allFailed bool) *evalError {
	var tb strings.Builder
	if allFailed {
		for _, s := range samples {
			fmt.Fprintf(&tb, "sample %s (epoch %d): %s\n", s.ID, s.Epoch, s.Error.Message)
		}
		if msg == "" {
			msg = fmt.Sprintf("every sample failed (%d); the first: %s", len(samples), samples[0].Error.Message)
		}
	}
	if msg == "" {
		msg = "the run stopped with an error"
	}
	return &evalError{Message: msg, Traceback: tb.String(), TracebackANSI: tb.String()}
}

// dryRunError marks a dry run's sample as Inspect marks a sample that
// never finished (log/_recover: message "CancelledError()", the reason in
// the traceback): the viewer lists it as cancelled, not as a sample that
// ran and answered nothing.
func dryRunError() *evalError {
	const tb = "CancelledError: dry run (evalmd run -y): the prompt was written, the model was not asked\n"
	return &evalError{Message: "CancelledError()", Traceback: tb, TracebackANSI: tb}
}

// limitOf is the limit that ended a question, as Inspect's: max_turns
// counts model calls, Inspect's "turn" limit (its "message" limit counts
// every message); token_budget is its "token" limit and question_timeout
// its wall-clock "time" limit, as is a sandbox's time limit that ended the
// question; another sandbox limit is "custom". A file that does not record
// the value (written before limit_value) gets -1, as Inspect writes a
// limit without one.
func limitOf(q *result.Question) *sampleLimit {
	typ := "custom"
	switch q.Limit {
	case "max_turns":
		typ = "turn"
	case "token_budget":
		typ = "token"
	case "question_timeout", "tool_timeout", "timeout":
		typ = "time"
	}
	value := q.LimitValue
	if value <= 0 || !finite(&value) {
		value = -1
	}
	return &sampleLimit{Type: typ, Limit: float(value)}
}

// agentTools is what an agent-mode question offered the model: the python
// tool, unless the agent style is InfiAgent's text ReAct loop, which
// offers no tool through the API (the code is in the model's text).
func agentTools(q *result.Question, f *result.File) []toolInfo {
	if q.Mode != model.ModeAgent || f.SolveSetting(q, "agent_style") == agentproto.StyleReact {
		return []toolInfo{}
	}
	t := agentproto.PythonTool
	return []toolInfo{{Name: t.Name, Description: t.Description, Parameters: toolParams(t.Parameters)}}
}

// toolParams is a tool's arguments schema as Inspect's ToolParams: its
// JSONSchema model lists "default" as required in the schema of a
// property, so each property without one gets "default": null (which is
// what Inspect reads for a missing one).
func toolParams(raw json.RawMessage) json.RawMessage {
	var p map[string]any
	if err := json.Unmarshal(raw, &p); err != nil {
		return raw
	}
	props, _ := p["properties"].(map[string]any)
	for _, v := range props {
		if prop, ok := v.(map[string]any); ok {
			if _, has := prop["default"]; !has {
				prop["default"] = nil
			}
		}
	}
	if _, ok := p["required"]; !ok {
		p["required"] = []string{}
	}
	out, err := marshal(p)
	if err != nil {
		return raw
	}
	return out
}
