// Package agent answers a question with a model that calls a Python tool:
// the `agent` answer mode of DABench's and DSBench's agent settings.
//
// One tool, python, takes one argument, code. Calls within a question run
// in one interpreter (an Interpreter, normally a sandbox session), so
// variables and imports persist between them, as in InfiAgent's Jupyter
// kernel. The final answer is the last assistant message without tool
// calls. Limits end a question with the reason kept: max_turns (model
// calls), question_timeout, token_budget (input + output tokens over all
// turns). Per-call limits (time, memory, output) are the interpreter's: it
// reports them in the tool result, the model sees that, and the question
// goes on.
//
// Run is a loop over model.Model, so retries, the cache and the journal of
// the runner see one agent question as one request: a finished question is
// never asked again on resume, and its transcript is kept with its answer.
package agent

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/evalmd/evalmd/agentproto"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sandbox"
)

// Limits a question can stop at; recorded as the output's "limit".
const (
	limitMaxTurns        = "max_turns"
	limitQuestionTimeout = "question_timeout"
	limitTokenBudget     = "token_budget"
)

// Options bound one question. The zero value means the defaults.
type Options struct {
	MaxTurns        int           // model calls per question; 10
	QuestionTimeout time.Duration // wall time of the whole question; 0 none
	TokenBudget     int           // input+output tokens over all turns; 0 none
	// ThinkTags is the think_tags rule applied to each reply before it is
	// read ("" is model.ThinkAuto): the loop acts on the answer alone.
	ThinkTags string
}

// limitValue is the value of the named limit: model calls, tokens or
// seconds; 0 for none.
func (o Options) limitValue(limit string) float64 {
	switch limit {
	case limitMaxTurns:
		return float64(o.MaxTurns)
	case limitTokenBudget:
		return float64(o.TokenBudget)
	case limitQuestionTimeout:
		return o.QuestionTimeout.Seconds()
	}
	return 0
}

// defaultMaxTurns is InfiAgent's max_iterations.
const defaultMaxTurns = 10

// withDefaults is o with its unset turn limit at InfiAgent's.
func (o Options) withDefaults() Options {
	if o.MaxTurns <= 0 {
		o.MaxTurns = defaultMaxTurns
	}
	return o
}

// questionContext is the context one question's turns run under: ctx,
// ended after QuestionTimeout when one is set. Both loops tell the
// question's own timeout from ctx's end by comparing the two.
func (o Options) questionContext(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.QuestionTimeout > 0 {
		return context.WithTimeout(ctx, o.QuestionTimeout)
	}
	return ctx, func() {}
}

// Interpreter runs code with state kept between calls.
type Interpreter interface {
	Exec(ctx context.Context, code string) (sandbox.Result, error)
}

// Run asks m the question in req, running every python call in interp,
// until the model answers without a tool call or a limit is reached. The
// response carries the final answer as Text, the tokens of all turns, and
// the transcript in Work. An error is returned only when a model call
// failed (the transcript so far is lost with it, as a failed chat request
// loses nothing worth keeping) or ctx ended.
func Run(ctx context.Context, m model.Model, req model.Task, interp Interpreter, opt Options) (model.Response, error) {
	opt = opt.withDefaults()
	qctx, cancel := opt.questionContext(ctx)
	defer cancel()
	req.Tools = []model.Tool{agentproto.PythonTool}
	msgs := append([]model.Message(nil), req.Messages...)
	asked := len(msgs) // the transcript is what comes after the question
	work := &model.ToolRun{Mode: "agent"}
	var out model.Response
	out.Work = work
	finish := func(limit string) (model.Response, error) {
		work.Limit, work.LimitValue = limit, opt.limitValue(limit)
		work.Transcript = msgs[asked:]
		return out, nil
	}
	for turn := 1; ; turn++ {
		if turn > opt.MaxTurns {
			return finish(limitMaxTurns)
		}
		if opt.TokenBudget > 0 && out.InputTokens+out.OutputTokens >= opt.TokenBudget {
			return finish(limitTokenBudget)
		}
		req.Messages = msgs
		resp, err := model.Ask(qctx, m, req)
		if err != nil {
			if ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
				return finish(limitQuestionTimeout)
			}
			return model.Response{}, fmt.Errorf("agent turn %d: %w", turn, err)
		}
		work.Turns = turn
		resp = model.SplitThink(resp, opt.ThinkTags)
		out.InputTokens += resp.InputTokens
		out.OutputTokens += resp.OutputTokens
		out.ReasoningTokens += resp.ReasoningTokens
		out.CacheReadTokens += resp.CacheReadTokens
		out.CacheWriteTokens += resp.CacheWriteTokens
		out.Model = resp.Model
		out.FinishReason = resp.FinishReason
		// The reasoning goes back with the turn, as Anthropic's thinking
		// and the Responses API require when tools are called.
		msgs = append(msgs, model.Message{Role: "assistant", Content: resp.Text, ToolCalls: resp.ToolCalls, Reasoning: resp.Reasoning,
			ReasoningBlocks: resp.ReasoningBlocks})
		if len(resp.ToolCalls) == 0 {
			out.Text, out.Reasoning = resp.Text, resp.Reasoning
			return finish("")
		}
		for _, call := range resp.ToolCalls {
			result, err := runCall(qctx, interp, call)
			if err != nil {
				if ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) {
					return finish(limitQuestionTimeout)
				}
				return model.Response{}, fmt.Errorf("agent turn %d: python: %w", turn, err)
			}
			msgs = append(msgs, model.Message{Role: "tool", ToolCallID: call.ID, Content: result.Output, ToolLimit: string(result.Limit)})
		}
	}
}

// runCall runs one tool call. A call the model got wrong (another tool, bad
// arguments) is answered with a result saying so, as a kernel would answer
// a syntax error: the model can correct itself.
func runCall(ctx context.Context, interp Interpreter, call model.ToolCall) (sandbox.Result, error) {
	if call.Name != agentproto.PythonTool.Name {
		return sandbox.Result{Output: fmt.Sprintf("error: no tool named %q; the only tool is python(code)", call.Name)}, nil
	}
	code, err := codeArgument(call.Arguments)
	if err != nil {
		return sandbox.Result{Output: "error: " + err.Error()}, nil
	}
	return interp.Exec(ctx, code)
}

// codeArgument returns the code of a python call's JSON arguments
// ({"code": "..."}). A bare string, as some models send, is taken as code.
func codeArgument(args string) (string, error) {
	var a struct {
		Code *string `json:"code"`
	}
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		var s string
		if json.Unmarshal([]byte(args), &s) == nil {
			return s, nil
		}
		return "", fmt.Errorf("the arguments are not JSON: %w", err)
	}
	if a.Code == nil || strings.TrimSpace(*a.Code) == "" {
		return "", errors.New(`the arguments have no "code"`)
	}
	return *a.Code, nil
}
