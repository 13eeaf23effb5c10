package solve

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/codemode"
	"github.com/evalmd/evalmd/model"
)

// code answers a code-mode request: one completion, the code taken out of
// it by the request's rule, run once on the question's table in a fresh
// interpreter. The completion stays the model's text; the Work holds the
// code, the answer string graders read, and the error if any. A completion
// with no code is not an error of the run: its answer is the
// "__CODE_ERROR__" string the original would have saved.
func (m *Model) code(ctx context.Context, req model.Request) (model.Response, error) {
	s := req.Solve
	rule, err := codemode.ParseRule(s.Extract)
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: %w", req.Question.Name, err)
	}
	table, load, err := tableOf(s.Files)
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: code mode: %w", req.Question.Name, err)
	}
	resp, err := m.Inner.Complete(ctx, req)
	if err != nil || resp.Work != nil {
		return resp, err // an offline model that answered without code (the oracle)
	}
	w := &model.Work{Mode: model.ModeCode, Extract: string(rule)}
	resp.Work = w
	prompt := ""
	if n := len(req.Messages); n > 0 {
		prompt = req.Messages[n-1].Content
	}
	code, err := codemode.Extract(rule, prompt, resp.Text)
	if err != nil {
		o := codemode.Failure(err)
		w.Answer, w.Error = &o.Answer, o.Error
		return resp, nil
	}
	w.Code = code
	res, err := m.Sandbox.Run(ctx, []string{table}, codemode.Program(code, load))
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: sandbox: %w", req.Question.Name, err)
	}
	if res.Limit != "" {
		// The original had no limits; a run stopped by one has no answer.
		w.Limit = string(res.Limit)
		w.Error = "stopped by the sandbox's " + string(res.Limit) + " limit"
		return resp, nil
	}
	o, err := codemode.ParseOutput(res.Output)
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: %w", req.Question.Name, err)
	}
	w.Answer, w.Error = &o.Answer, o.Error
	return resp, nil
}

// tableOf picks the question's table: its one .csv file. The code sees it
// under its base name in the working directory.
func tableOf(files []string) (string, codemode.Loader, error) {
	var tables []string
	for _, f := range files {
		switch strings.ToLower(filepath.Ext(f)) {
		case ".csv", ".parquet":
			tables = append(tables, f)
		}
	}
	if len(tables) != 1 {
		return "", codemode.Loader{}, fmt.Errorf("want one table file (.csv) among the question's files, found %d", len(tables))
	}
	t := tables[0]
	if strings.EqualFold(filepath.Ext(t), ".parquet") {
		return "", codemode.Loader{}, fmt.Errorf("%s: parquet tables need the table hand-over, not in this build yet", filepath.Base(t))
	}
	return t, codemode.CSVLoader(filepath.Base(t)), nil
}
