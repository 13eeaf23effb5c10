package agentproto

import "testing"

func TestParseReact(t *testing.T) {
	for _, tc := range []struct {
		name, text   string
		final        bool
		answer, code string
		bad          bool
		raw          string
	}{
		{name: "action", text: "I will load it.\nAction: python_code_sandbox\nAction Input:\n```python\nimport pandas as pd\nprint(1)\n```\n", code: "import pandas as pd\nprint(1)"},
		{name: "py fence", text: "Action: python_code_sandbox\nAction Input: ```py\nprint(2)```", code: "print(2)"},
		{name: "cut at the stop word", text: "Action: x\nAction Input:\n```python\nprint(3)\n```\nObservation: 3\nFinal Answer: 3", code: "print(3)",
			raw: "Action: x\nAction Input:\n```python\nprint(3)\n```"},
		{name: "final", text: "I now know.\nFinal Answer: @mean[3.5]", final: true, answer: "I now know.\n @mean[3.5]"},
		{name: "lowercase indicator", text: "the final answer is 7", final: true, answer: "the  is 7"},
		{name: "neither", text: "Let me think about it.", bad: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st, err := ParseReact(tc.text)
			if (err != nil) != tc.bad {
				t.Fatalf("err = %v", err)
			}
			if st.Final != tc.final || st.Answer != tc.answer || st.Code != tc.code {
				t.Errorf("got final=%v answer=%q code=%q", st.Final, st.Answer, st.Code)
			}
			if tc.raw != "" && st.Raw != tc.raw {
				t.Errorf("raw = %q, want %q", st.Raw, tc.raw)
			}
		})
	}
}
