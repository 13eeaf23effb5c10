package agent

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// StyleReact is the `agent_style` meta that picks InfiAgent's text ReAct
// loop (RunReact) over native tool calling (Run, the default style "tools").
const StyleReact = "react"

// InfiAgent's ReAct loop, as its DABench numbers were made: the
// ZeroShotReactPrompt with one tool, python_code_sandbox; the model's text
// is cut at the stop word "Observation:"; a text holding a final-answer
// indicator ends the question; otherwise an Action Input code block is run
// and its output appended to the scratchpad. A reply that is neither is
// asked again (3 more times) before the question is given up.
const (
	reactToolName    = "python_code_sandbox"
	reactToolDesc    = "this tool can help to run python script with python code as input"
	reactStop        = "Observation:"
	reactSysPrefix   = "[SYSTEM NOTIFICATION]"
	reactObsPrefix   = reactSysPrefix + " Running the above tool with the following response: "
	reactFailed      = reactSysPrefix + " Sorry Agent unable to answer this question due to LLM fail.\n"
	reactParseRetrys = 3
)

// reactFinal are the texts that mark a final answer, in InfiAgent's order.
var reactFinal = []string{"Final Answer:", "[END]", "The final Answer", "final answer"}

// reactAction finds "Action: ... Action Input: ```python CODE```" (or
// ```py), as InfiAgent's two patterns do.
var reactAction = []*regexp.Regexp{
	regexp.MustCompile("(?s)^(.*?)\\n?Action:\\s*(.*?)\\n?Action\\s*Input:\\s*```python\\n(.*?)```(.*?)$"),
	regexp.MustCompile("(?s)^(.*?)\\n?Action:\\s*(.*?)\\n?Action\\s*Input:\\s*```py\\n(.*?)```(.*?)$"),
}

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

// reactStep is one parsed model reply.
type reactStep struct {
	raw    string // the reply cut at the stop word
	final  bool
	answer string // final: the reply without its indicator
	code   string // action: the code to run
}

var errReactFormat = errors.New("reply is neither an action nor a final answer")

func parseReact(text string) (reactStep, error) {
	if i := strings.Index(text, reactStop); i >= 0 {
		text = strings.TrimRight(text[:i], " \t\r\n\v\f")
	}
	st := reactStep{raw: text}
	for _, ind := range reactFinal {
		if strings.Contains(text, ind) {
			st.final = true
			st.answer = strings.TrimSpace(strings.ReplaceAll(text, ind, ""))
			return st, nil
		}
	}
	for _, re := range reactAction {
		if m := re.FindStringSubmatch(text); m != nil {
			st.code = strings.TrimSpace(m[3])
			return st, nil
		}
	}
	return st, errReactFormat
}

// ReactAction returns the code a ReAct reply asks to run, read as RunReact
// reads it; false for a final answer or a reply that is neither. A log
// writer uses it to give each step of a ReAct transcript the tool call it
// made in text.
func ReactAction(reply string) (string, bool) {
	st, err := parseReact(reply)
	if err != nil || st.final {
		return "", false
	}
	return st.code, true
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
// holding the whole prompt with the scratchpad so far. The transcript keeps
// each reply (assistant) and each observation (tool).
func RunReact(ctx context.Context, m model.Model, req model.Request, interp Interpreter, opt Options) (model.Response, error) {
	if opt.MaxTurns <= 0 {
		opt.MaxTurns = defaultMaxTurns
	}
	qctx := ctx
	if opt.QuestionTimeout > 0 {
		var cancel context.CancelFunc
		qctx, cancel = context.WithTimeout(ctx, opt.QuestionTimeout)
		defer cancel()
	}
	var parts []string
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			parts = append(parts, msg.Content)
		}
	}
	instruction := strings.Join(parts, "\n")
	req.Settings.Stop = append(append([]string(nil), req.Settings.Stop...), reactStop)
	work := &model.Work{Mode: model.ModeAgent}
	out := model.Response{Work: work}
	var scratch strings.Builder
	timedOut := func() bool { return ctx.Err() == nil && errors.Is(qctx.Err(), context.DeadlineExceeded) }
	for iter := 1; ; iter++ {
		if iter > opt.MaxTurns {
			work.Limit, work.LimitValue = limitMaxTurns, opt.limitValue(limitMaxTurns)
			return out, nil
		}
		var st reactStep
		var perr error
		for try := 0; try <= reactParseRetrys; try++ {
			if opt.TokenBudget > 0 && out.InputTokens+out.OutputTokens >= opt.TokenBudget {
				work.Limit, work.LimitValue = limitTokenBudget, opt.limitValue(limitTokenBudget)
				return out, nil
			}
			req.Messages = []model.Message{{Role: "user", Content: reactPrompt(instruction, scratch.String())}}
			resp, err := m.Complete(qctx, req)
			if err != nil {
				if timedOut() {
					work.Limit, work.LimitValue = limitQuestionTimeout, opt.limitValue(limitQuestionTimeout)
					return out, nil
				}
				return model.Response{}, fmt.Errorf("agent step %d: %w", iter, err)
			}
			work.Turns++
			out.InputTokens += resp.InputTokens
			out.OutputTokens += resp.OutputTokens
			out.Model, out.FinishReason = resp.Model, resp.FinishReason
			work.Transcript = append(work.Transcript, model.Message{Role: "assistant", Content: resp.Text})
			if st, perr = parseReact(resp.Text); perr == nil {
				break
			}
		}
		if perr != nil {
			out.Text = reactFailed
			return out, nil
		}
		if st.final {
			out.Text = st.answer
			return out, nil
		}
		res, err := interp.Exec(qctx, st.code)
		if err != nil {
			if timedOut() {
				work.Limit, work.LimitValue = limitQuestionTimeout, opt.limitValue(limitQuestionTimeout)
				return out, nil
			}
			return model.Response{}, fmt.Errorf("agent step %d: python: %w", iter, err)
		}
		obs := reactObservation(res.Output, res.Limit != "")
		work.Transcript = append(work.Transcript, model.Message{Role: "tool", Content: obs, ToolLimit: string(res.Limit)})
		scratch.WriteString(st.raw)
		scratch.WriteString("\n" + reactStop + "\n" + obs + "\n\nThought:\n")
	}
}
