package agent

import (
	"context"
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// InfiAgent's reformat step (examples/DA-Agent/reformat.py in
// InfiAgent/InfiAgent): its eval prompt has no format line, so a second
// model rewrites each answer into the @name[value] lines the closed-form
// grader reads. It is shown the question (its "question" field only), the
// answer as its own earlier reply, and a request built from the template
// below with the question's "format" field, at temperature 0 with
// max_tokens 2048.

// reformatExamples is the script's demons string as the model receives it:
// it is inserted into the template by str.format, so its doubled braces
// stay doubled, and "\F" and "\A" are not Python escapes, so the
// backslashes stay. The trailing spaces after two answers are the script's.
const reformatExamples = `\Format{{
@shapiro_wilk_statistic[test_statistic]
@shapiro_wilk_p_value[p_value]
where "test_statistic" is a number between 0 and 1 representing the Shapiro-Wilk test statistic. Rounding off the answer to two decimal places.
where "p_value" is a number between 0 and 1 representing the p-value from the Shapiro-Wilk test. Rounding off the answer to four decimal places.
}}
\Answer{{
@shapiro_wilk_statistic[0.56]
@shapiro_wilk_p_value[0.0002]   
}}

\Format{{
@total_votes_outliers_num[outlier_num]
where "outlier_num" is an integer representing the number of values considered outliers in the 'total_votes' column.
}}
\Answer{{
@total_votes_outliers[10]   
}}
`

// ReformatModel and reformatMaxTokens are the script's defaults.
const (
	ReformatModel     = "gpt-3.5-turbo-16k"
	reformatMaxTokens = 2048
)

// ReformatRequest is the request of InfiAgent's reformat step for one
// answer: the question, the answer, then the format request.
func ReformatRequest(r model.Reformat, answer string) model.Request {
	ask := "You should strictly follow the output requirements in the Format part. Here're some examples: \n" +
		reformatExamples + ". \n" +
		"Your answer should contain all the \"@answer_name[answer]\" in the order mentioned, each \"answer\" should be in the range of value as required. \n" +
		"The format requirements of this question is:\n" +
		r.Format + ". Please give your answer:"
	zero := 0.0
	return model.Request{
		Messages: []model.Message{
			{Role: "user", Content: r.Question},
			{Role: "assistant", Content: answer},
			{Role: "user", Content: ask},
		},
		Settings: model.Settings{Temperature: &zero, MaxTokens: reformatMaxTokens},
	}
}

// Reformat asks m to rewrite answer as InfiAgent's reformat step does and
// returns its reply.
func Reformat(ctx context.Context, m model.Model, r model.Reformat, answer string) (model.Response, error) {
	resp, err := m.Complete(ctx, ReformatRequest(r, answer))
	if err != nil {
		return resp, fmt.Errorf("reformat with %s: %w", m.Name(), err)
	}
	// A reasoning model's thinking is not its rewrite: the rewrite is
	// graded. (Its temperature of 0 is left out for the models that
	// refuse it, by their provider.)
	resp = model.SplitThink(resp, model.ThinkAuto)
	if strings.TrimSpace(resp.Text) == "" {
		return resp, fmt.Errorf("reformat with %s: empty reply", m.Name())
	}
	return resp, nil
}
