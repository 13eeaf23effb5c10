package solve

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/codemode"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sandbox"
	"github.com/evalmd/evalmd/table"
)

// code answers a code-mode request: one completion, the code taken out of
// it by the request's rule, run once on the question's table in a fresh
// interpreter. The completion stays the model's text; the Work holds the
// code, the answer string graders read, and the error if any. A completion
// with no code is not an error of the run: its answer is the
// "__CODE_ERROR__" string the original would have saved.
func (m *Model) code(ctx context.Context, req model.Task, complete func() (model.Response, error)) (model.Response, error) {
	s := req.Solve
	rule, err := codemode.ParseRule(s.Extract)
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: %w", req.Question.Name, err)
	}
	table, load, err := m.tableOf(ctx, s.Files)
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: code mode: %w", req.Question.Name, err)
	}
	resp, err := complete()
	if err != nil || resp.Work != nil {
		return resp, err // an offline model that answered without code (the oracle)
	}
	// The code is taken from the answer alone, never from the thinking
	// before it.
	resp = model.SplitThink(resp, s.ThinkTags)
	w := &model.ToolRun{Mode: model.ModeCode, Extract: string(rule)}
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
	res, err := m.Sandbox.RunWith(ctx, []string{table}, codemode.Program(code, load), limits(s))
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: sandbox: %w", req.Question.Name, err)
	}
	if res.Limit != "" {
		// The original had no limits; a run stopped by one has no answer.
		w.Limit, w.LimitValue = string(res.Limit), res.LimitValue
		w.Error = "stopped by the sandbox's " + string(res.Limit) + " limit"
		return resp, nil
	}
	o, err := codemode.ParseOutput(res.Output)
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: %w", req.Question.Name, err)
	}
	w.Answer, w.Error = &o.Answer, o.Error
	if o.Failed() && w.Error == "" {
		w.Error = o.ErrorType // a bare MemoryError has no message
	}
	if w.Limit = caughtLimit(o); w.Limit != "" {
		w.LimitValue = float64(s.ToolMemory) // 0, unknown, when the pool's applied
	}
	return resp, nil
}

// caughtLimit is the sandbox limit behind an exception the program caught
// (it saves "__CODE_ERROR__: ..." as DataBench does, so the call itself
// was not stopped), or "": the memory limit, for a MemoryError, a mapping
// refused (ENOMEM) or a full tmpfs (ENOSPC), the errors the sandbox
// reports as that limit when they reach the top of a call.
func caughtLimit(o codemode.Outcome) string {
	switch {
	case o.ErrorType == "MemoryError",
		strings.HasPrefix(o.Error, "[Errno 12] "), strings.HasPrefix(o.Error, "[Errno 28] "):
		return string(sandbox.LimitMemory)
	}
	return ""
}

// tableOf picks the question's table, its one .csv or .parquet file, and
// how the program loads it. The code sees the file under its base name in
// the working directory. Debian's pandas cannot read parquet (no pyarrow),
// so a parquet table is handed over (package table): converted once per
// run into a file the embedded loader reads as pyarrow's to_pandas() would.
func (m *Model) tableOf(ctx context.Context, files []string) (string, codemode.Loader, error) {
	var tables []string
	for _, f := range files {
		switch strings.ToLower(filepath.Ext(f)) {
		case ".csv", ".parquet":
			tables = append(tables, f)
		}
	}
	if len(tables) != 1 {
		return "", codemode.Loader{}, fmt.Errorf("want one table file (.csv or .parquet) among the question's files, found %d", len(tables))
	}
	t := tables[0]
	if !table.NeedsHandover(t) {
		return t, codemode.CSVLoader(filepath.Base(t)), nil
	}
	h, err := m.handover(ctx, t)
	if err != nil {
		return "", codemode.Loader{}, err
	}
	return h, codemode.TableLoader(filepath.Base(h)), nil
}

// handover converts a parquet table once per run (questions share their
// dataset's table) and returns the hand-over file.
func (m *Model) handover(ctx context.Context, path string) (string, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if h, ok := m.handovers[abs]; ok {
		return h, nil
	}
	if m.tmp == "" {
		if m.tmp, err = os.MkdirTemp("", "evalmd-handover-"); err != nil {
			return "", err
		}
	}
	// One folder per table: two datasets' tables share base names
	// (all.parquet), and the loader finds a hand-over by its base name.
	dir := filepath.Join(m.tmp, strconv.Itoa(len(m.handovers)))
	if err := outfile.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	hs, err := table.WriteHandoverDir(ctx, dir, []string{abs}, table.Options{})
	if err != nil {
		return "", err
	}
	if m.handovers == nil {
		m.handovers = map[string]string{}
	}
	m.handovers[abs] = hs[0].File
	return hs[0].File, nil
}

// Close removes the hand-over files the run made.
func (m *Model) Close() error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.tmp == "" {
		return nil
	}
	err := os.RemoveAll(m.tmp)
	m.tmp, m.handovers = "", nil
	return err
}
