// Package agentproto is what an agent's turns look like, apart from running
// them: the python tool offered in native tool calling (PythonTool) and
// InfiAgent's text ReAct format (StyleReact; ParseReact, which gives a
// ReactStep or ErrReactFormat; ReactAction).
//
// Package agent runs the loops; a log writer reads a transcript with this
// package alone, without linking the sandbox.
package agentproto

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// PythonTool is the one tool offered to the model in native tool calling.
var PythonTool = model.Tool{
	Name: "python",
	Description: "Run Python 3 code in a persistent interpreter (pandas and numpy are installed; " +
		"variables persist between calls). The question's files are in the working directory " +
		"under their base names, read-only. Returns stdout and stderr.",
	Parameters: json.RawMessage(`{"type":"object","properties":{"code":{"type":"string","description":"the Python code to run"}},"required":["code"]}`),
}

// StyleReact is the `agent_style` meta that picks InfiAgent's text ReAct
// loop over native tool calling (the default style "tools").
const StyleReact = "react"

// ReactStop is the stop word a ReAct reply is cut at.
const ReactStop = "Observation:"

// reactFinal are the texts that mark a final answer, in InfiAgent's order.
var reactFinal = []string{"Final Answer:", "[END]", "The final Answer", "final answer"}

// reactAction finds "Action: ... Action Input: ```python CODE```" (or
// ```py), as InfiAgent's two patterns do.
var reactAction = []*regexp.Regexp{
	regexp.MustCompile("(?s)^(.*?)\\n?Action:\\s*(.*?)\\n?Action\\s*Input:\\s*```python\\n(.*?)```(.*?)$"),
	regexp.MustCompile("(?s)^(.*?)\\n?Action:\\s*(.*?)\\n?Action\\s*Input:\\s*```py\\n(.*?)```(.*?)$"),
}

// ReactStep is one parsed ReAct reply.
type ReactStep struct {
	Raw    string // the reply cut at the stop word
	Final  bool
	Answer string // Final: the reply without its indicator
	Code   string // an action: the code to run
}

// ErrReactFormat is a reply that is neither an action nor a final answer.
var ErrReactFormat = errors.New("reply is neither an action nor a final answer")

// ParseReact reads a model's ReAct reply as InfiAgent does: cut at the stop
// word, a final answer when it holds an indicator, else an action.
func ParseReact(text string) (ReactStep, error) {
	if i := strings.Index(text, ReactStop); i >= 0 {
		text = strings.TrimRight(text[:i], " \t\r\n\v\f")
	}
	st := ReactStep{Raw: text}
	for _, ind := range reactFinal {
		if strings.Contains(text, ind) {
			st.Final = true
			st.Answer = strings.TrimSpace(strings.ReplaceAll(text, ind, ""))
			return st, nil
		}
	}
	for _, re := range reactAction {
		if m := re.FindStringSubmatch(text); m != nil {
			st.Code = strings.TrimSpace(m[3])
			return st, nil
		}
	}
	return st, ErrReactFormat
}

// ReactAction returns the code a ReAct reply asks to run, read as the loop
// reads it; false for a final answer or a reply that is neither. A log
// writer uses it to give each step of a ReAct transcript the tool call it
// made in text.
func ReactAction(reply string) (string, bool) {
	st, err := ParseReact(reply)
	if err != nil || st.Final {
		return "", false
	}
	return st.Code, true
}
