package agentproto

import (
	"strings"
	"testing"
)

// FuzzParseReact: a model's reply never panics the ReAct parser; what it
// keeps never holds the stop word; an action's code is trimmed and comes
// from the reply; ReactAction (what the Inspect log writer reads) agrees
// with it.
func FuzzParseReact(f *testing.F) {
	f.Add("Thought: load it\nAction: python_code_sandbox\nAction Input: ```python\nimport pandas as pd\nprint(1)\n```\nObservation: 1")
	f.Add("Thought: done\nFinal Answer: @mean[3.5]")
	f.Add("Action: x\nAction Input:```py\nprint(2)```tail")
	f.Add("I think the final answer is 3. Observation: none")
	f.Add("Action Input: ```python\n```")
	f.Add("")
	f.Fuzz(func(t *testing.T, reply string) {
		st, err := ParseReact(reply)
		if strings.Contains(st.Raw, ReactStop) || !strings.HasPrefix(reply, st.Raw) {
			t.Fatalf("kept %q of %q", st.Raw, reply)
		}
		code, isAction := ReactAction(reply)
		switch {
		case err != nil:
			if st.Final || isAction {
				t.Fatalf("refused but final %v, action %v", st.Final, isAction)
			}
		case st.Final:
			if isAction || st.Code != "" {
				t.Fatalf("a final answer with an action %q", st.Code)
			}
		default:
			if !isAction || code != st.Code || code != strings.TrimSpace(code) || !strings.Contains(st.Raw, code) {
				t.Fatalf("action %q, ReactAction %q %v, in %q", st.Code, code, isAction, st.Raw)
			}
		}
	})
}

// FuzzReactActionRoundTrip: a reply written in the format the prompt asks
// for (a thought, an action, its code in a python fence) gives back the
// code, whatever the thought and code hold short of the words the format
// itself uses.
func FuzzReactActionRoundTrip(f *testing.F) {
	f.Add("I will load the table", "import pandas as pd\nprint(pd.read_csv('t.csv').shape)", "py")
	f.Add("", "  x = 1  ", "python")
	f.Fuzz(func(t *testing.T, thought, code, fence string) {
		if fence != "py" {
			fence = "python"
		}
		for _, s := range []string{thought, code} {
			if strings.Contains(s, "```") || strings.Contains(s, "Action") || strings.Contains(s, ReactStop) {
				return
			}
			for _, ind := range reactFinal {
				if strings.Contains(s, ind) {
					return
				}
			}
		}
		reply := "Thought: " + thought + "\nAction: python_code_sandbox\nAction Input:\n```" + fence + "\n" + code + "\n```\n"
		got, ok := ReactAction(reply)
		if !ok || got != strings.TrimSpace(code) {
			t.Fatalf("ReactAction(%q) = %q, %v; want %q", reply, got, ok, strings.TrimSpace(code))
		}
	})
}
