package agent

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/agentproto"
	"github.com/evalmd/evalmd/model"
)

// InfiAgent's ReAct loop, as its DABench numbers were made: the
// ZeroShotReactPrompt with one tool, python_code_sandbox; the model's text
// is cut at the stop word "Observation:"; a text holding a final-answer
// indicator ends the question; otherwise an Action Input code block is run
// and its output appended to the scratchpad. A reply that is neither is
// asked again (3 more times) before the question is given up.
const (
	reactToolName    = "python_code_sandbox"
	reactToolDesc    = "this tool can help to run python script with python code as input"
	reactSysPrefix   = "[SYSTEM NOTIFICATION]"
	reactObsPrefix   = reactSysPrefix + " Running the above tool with the following response: "
	reactFailed      = reactSysPrefix + " Sorry Agent unable to answer this question due to LLM fail.\n"
	reactParseRetrys = 3
)

// reactPrompt is InfiAgent's ZeroShotReactPrompt with its one tool.
func reactPrompt(instruction, scratchpad string) string {
	return "Answer the following questions as best you can." +
		"You have access to the following tools:\n" +
		reactToolName + "[input]: " + reactToolDesc + "\n" + ".\n" +
		"Use the following format:\n\n" +
		"Question: the input question you must answer\n" +
		"Thought: you should always think about what to do\n\n" +
		"Action: the action to take, should be one of [" + reactToolName + "]\n\n" +
		"Action Input:\n```python\n[the input to the action]\n```\n" +
		"Observation: the result of the action\n\n" +
		"... (this Thought/Action/Action Input/Observation can repeat N times)\n" +
		"Thought: I now know the final answer\n" +
		"Final Answer: the final answer to the original input question\n" +
		"If you have any files outputted write them to \"./\"\n" +
		"Do not use things like plot.show() as it will not work instead write them out \"./\"\n" +
		"Begin!\n\n" +
		"Question: " + instruction + "\nThought:\n" +
		scratchpad + "\n"
}

// reactObservation formats a run's output as InfiAgent's sandbox tool and
// agent did: STDOUT or STDERR in a python fence (an error's text cut to
// its first and last 500 characters by line when over 1,000), or a
// failure note when a limit stopped the run.
func reactObservation(out string, limited bool) string {
	var msg string
	switch {
	case limited:
		msg = "\nCode execution error\nWhat happened: " + out
	case strings.Contains(out, "Traceback (most recent call last)"):
		msg = "\nSTDERR:\n```python\n" + out + "\n```\n"
	default:
		msg = "\nSTDOUT:\n```python\n" + out + "\n```\n"
	}
	if strings.Contains(msg, "STDERR") {
		msg = trimMiddle(msg)
	}
	return reactObsPrefix + "\n" + msg + "\n"
}

// trimMiddle keeps about the first and last 500 characters of s by whole
// lines, with "......" between, when s is over 1,000 characters.
func trimMiddle(s string) string {
	if len([]rune(s)) <= 1000 {
		return s
	}
	rows := strings.Split(s, "\n")
	var top, bottom []string
	n := 0
	for _, r := range rows {
		if n+len([]rune(r)) > 500 {
			break
		}
		top = append(top, r)
		n += len([]rune(r))
	}
	n = 0
	for i := len(rows) - 1; i >= 0; i-- {
		if n+len([]rune(rows[i])) > 500 {
			break
		}
		bottom = append([]string{rows[i]}, bottom...)
		n += len([]rune(rows[i]))
	}
	return strings.Join(append(append(top, "......"), bottom...), "\n")
}

// RunReact answers the question with InfiAgent's ReAct loop. The question
// is the text of req's user messages; each model call is one user message
// holding the whole prompt with the scratchpad so far, and the images of
// req's user messages (the prompt builder attached them only for a model
// that takes images). The transcript keeps each reply (assistant) and each
// observation (tool).
func RunReact(ctx context.Context, m model.Model, req model.Task, interp Interpreter, opt Options) (model.Response, error) {
	opt = opt.withDefaults()
	qctx, cancel := opt.questionContext(ctx)
	defer cancel()
	var parts []string
	var images []model.Image
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			parts = append(parts, msg.Content)
			images = append(images, msg.Images...)
		}
	}
	instruction := strings.Join(parts, "\n")
	req.Settings.Stop = append(append([]string(nil), req.Settings.Stop...), agentproto.ReactStop)
	// Each step sends a prompt of its own making: the prefix the
	// question's message shared is not where it was.
	req.Prefix = model.Prefix{}
	work := &model.ToolRun{Mode: model.ModeAgent}
	out := model.Response{Work: work}
	var scratch strings.Builder
	timedOut := func() bool { return ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) }
	for iter := 1; ; iter++ {
		if iter > opt.MaxTurns {
			work.Limit, work.LimitValue = limitMaxTurns, opt.limitValue(limitMaxTurns)
			return out, nil
		}
		var st agentproto.ReactStep
		var perr error
		for try := 0; try <= reactParseRetrys; try++ {
			if opt.TokenBudget > 0 && out.InputTokens+out.OutputTokens >= opt.TokenBudget {
				work.Limit, work.LimitValue = limitTokenBudget, opt.limitValue(limitTokenBudget)
				return out, nil
			}
			req.Messages = []model.Message{{Role: "user", Content: reactPrompt(instruction, scratch.String()), Images: images}}
			resp, err := model.Ask(qctx, m, req)
			if err != nil {
				if timedOut() {
					work.Limit, work.LimitValue = limitQuestionTimeout, opt.limitValue(limitQuestionTimeout)
					return out, nil
				}
				return model.Response{}, fmt.Errorf("agent step %d: %w", iter, err)
			}
			work.Turns++
			resp = model.SplitThink(resp, opt.ThinkTags)
			out.InputTokens += resp.InputTokens
			out.OutputTokens += resp.OutputTokens
			out.ReasoningTokens += resp.ReasoningTokens
			out.CacheReadTokens += resp.CacheReadTokens
			out.CacheWriteTokens += resp.CacheWriteTokens
			out.Model, out.FinishReason, out.Reasoning = resp.Model, resp.FinishReason, resp.Reasoning
			work.Transcript = append(work.Transcript, model.Message{Role: "assistant", Content: resp.Text, Reasoning: resp.Reasoning})
			if st, perr = agentproto.ParseReact(resp.Text); perr == nil {
				break
			}
		}
		if perr != nil {
			out.Text = reactFailed
			return out, nil
		}
		if st.Final {
			out.Text = st.Answer
			return out, nil
		}
		res, err := interp.Exec(qctx, st.Code)
		if err != nil {
			if timedOut() {
				work.Limit, work.LimitValue = limitQuestionTimeout, opt.limitValue(limitQuestionTimeout)
				return out, nil
			}
			return model.Response{}, fmt.Errorf("agent step %d: python: %w", iter, err)
		}
		obs := reactObservation(res.Output, res.Limit != "")
		work.Transcript = append(work.Transcript, model.Message{Role: "tool", Content: obs, ToolLimit: string(res.Limit)})
		scratch.WriteString(st.Raw)
		scratch.WriteString("\n" + agentproto.ReactStop + "\n" + obs + "\n\nThought:\n")
	}
}
