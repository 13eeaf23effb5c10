package agent

import (
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// The format request is reformat.py's template after str.format: the
// examples keep their doubled braces, backslashes and trailing spaces.
func TestReformatRequest(t *testing.T) {
	req := ReformatRequest(model.Reformat{Question: "What is the mean?", Format: "@mean[value]\nwhere value is a number"}, "It is 3.")
	m := req.Messages
	if len(m) != 3 || m[0].Role != "user" || m[0].Content != "What is the mean?" ||
		m[1].Role != "assistant" || m[1].Content != "It is 3." || m[2].Role != "user" {
		t.Fatalf("messages %+v", req.Messages)
	}
	ask := req.Messages[2].Content
	for _, want := range []string{
		"Here're some examples: \n\\Format{{\n@shapiro_wilk_statistic[test_statistic]\n",
		"@shapiro_wilk_p_value[0.0002]   \n}}\n\n\\Format{{\n",
		"\\Answer{{\n@total_votes_outliers[10]   \n}}\n. \nYour answer should contain all the \"@answer_name[answer]\" in the order mentioned, each \"answer\" should be in the range of value as required. \n",
		"The format requirements of this question is:\n@mean[value]\nwhere value is a number. Please give your answer:",
	} {
		if !strings.Contains(ask, want) {
			t.Errorf("the request lacks %q:\n%s", want, ask)
		}
	}
	if strings.HasSuffix(ask, "\n") || req.Settings.Temperature == nil || *req.Settings.Temperature != 0 || req.Settings.MaxTokens != 2048 {
		t.Errorf("settings %+v", req.Settings)
	}
}
