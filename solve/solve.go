// Package solve makes answers that are more than one completion: it wraps
// a model.Model so that a task (model.Task) whose Solve asks for code or
// agent mode is answered by running Python in a sandbox (package sandbox).
//
// The wrapper is itself a model.Model, so the runner's retries, cache and
// journal treat a code- or agent-mode question like any other: it is asked
// once, and a resumed run keeps its answer and its work (the code that ran,
// the transcript) without running it again. Tasks without Solve pass
// straight through.
//
// An offline model that answers with its Work already filled in (the
// oracle: the ground truth, nothing executed) is passed through as well.
package solve

import (
	"context"
	"fmt"
	"sync"

	"github.com/evalmd/evalmd/agent"
	"github.com/evalmd/evalmd/agentproto"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
)

// limits are the per-call limits a request asks for (its tool_timeout and
// tool_memory), over the sandbox's.
func limits(s *model.Solve) sandbox.Limits {
	return sandbox.Limits{Timeout: s.ToolTimeout, Memory: s.ToolMemory}
}

// Model answers code- and agent-mode requests by running code.
type Model struct {
	Inner   model.Model
	Sandbox *sandbox.Pool // nil: code and agent requests fail with a clear error
	// Reformat rewrites the final answer of agent requests that ask for
	// it (Solve.Reformat: InfiAgent's reformat step); nil: such requests
	// fail with a clear error.
	Reformat model.Model
	// Retry are the runner's options (its Options, as given to
	// runner.Run). An agent question is one job of many model calls, its
	// turns and its reformat call: each retries on its own with Retry's
	// rules (runner.Retrying), so a passing failure costs that call again,
	// not the question's earlier turns and code runs. The job's context
	// (the runner's per-attempt timeout) and the agent's own limits still
	// bound the retries.
	Retry runner.Options

	mu        sync.Mutex
	tmp       string            // hand-over files of parquet tables, removed by Close
	handovers map[string]string // table path -> its hand-over file
}

// Name is the inner model's name: outputs name the model, not the mode.
func (m *Model) Name() string { return m.Inner.Name() }

// Info is the inner model's.
func (m *Model) Info() model.Info { return m.Inner.Info() }

// Complete answers a request that asks for no code: one completion.
func (m *Model) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return m.Answer(ctx, model.Task{Request: req})
}

// Answer answers t: one completion, or by running code when t.Solve says
// so. The inner model is asked the whole task (model.Ask), so a model
// that answers from the question still gets it.
func (m *Model) Answer(ctx context.Context, t model.Task) (model.Response, error) {
	return m.solve(ctx, t, func() (model.Response, error) { return model.Ask(ctx, m.Inner, t) })
}

// Answered does for a completion made elsewhere (a batch's result) what
// Complete does after its model call: a code-mode request's code is taken
// out and run, by the same code. A chat request's completion is returned
// as is; an agent request, many calls, cannot be answered so.
func (m *Model) Answered(ctx context.Context, req model.Task, resp model.Response) (model.Response, error) {
	if s := req.Solve; s != nil && s.Mode == model.ModeAgent {
		return model.Response{}, fmt.Errorf("question %q: agent mode takes many model calls; it cannot be answered from one completion", req.Question.Name)
	}
	return m.solve(ctx, req, func() (model.Response, error) { return resp, nil })
}

// solve answers req, getting its completion from complete.
func (m *Model) solve(ctx context.Context, req model.Task, complete func() (model.Response, error)) (model.Response, error) {
	s := req.Solve
	if s == nil || s.Mode == "" || s.Mode == model.ModeChat {
		return complete()
	}
	if m.Sandbox == nil {
		return model.Response{}, fmt.Errorf("question %q: %s mode needs a sandbox", req.Question.Name, s.Mode)
	}
	var (
		resp model.Response
		err  error
	)
	switch s.Mode {
	case model.ModeAgent:
		resp, err = m.agent(ctx, req)
	case model.ModeCode:
		resp, err = m.code(ctx, req, complete)
	default:
		return model.Response{}, fmt.Errorf("question %q: unknown mode %q (want chat, code or agent)", req.Question.Name, s.Mode)
	}
	if err != nil {
		return resp, err
	}
	if resp.Work != nil && resp.Work.Env == nil {
		v := m.Sandbox.Versions()
		resp.Work.Env = map[string]string{"sandbox": v.Sandbox, "python": v.Python, "pandas": v.Pandas, "numpy": v.Numpy}
	}
	return resp, nil
}

func (m *Model) agent(ctx context.Context, req model.Task) (model.Response, error) {
	s := req.Solve
	sess := &lazySession{open: func(ctx context.Context) (*sandbox.Session, error) {
		sess, err := m.Sandbox.OpenWith(ctx, s.Files, limits(s))
		if err != nil {
			return nil, fmt.Errorf("question %q: sandbox: %w", req.Question.Name, err)
		}
		return sess, nil
	}}
	defer sess.Close()
	opt := agent.Options{MaxTurns: s.MaxTurns, QuestionTimeout: s.QuestionTimeout, TokenBudget: s.TokenBudget, ThinkTags: s.ThinkTags}
	run := agent.Run
	if s.Style == agentproto.StyleReact {
		run = agent.RunReact
	}
	resp, err := run(ctx, runner.Retrying(m.Inner, m.Retry), req, sess, opt)
	if err != nil || s.Reformat == nil || resp.Work == nil || resp.Work.Limit != "" {
		return resp, err // a question a limit ended has no answer to rewrite
	}
	return m.reformat(ctx, req, resp)
}

// reformat has the Reformat model rewrite the agent's final answer: the
// completion stays the agent's, the rewrite becomes the answer graded.
func (m *Model) reformat(ctx context.Context, req model.Task, resp model.Response) (model.Response, error) {
	if m.Reformat == nil {
		return model.Response{}, fmt.Errorf("question %q: reformat: required, and no reformat model (evalmd run --reformat MODEL)", req.Question.Name)
	}
	r, err := agent.Reformat(ctx, runner.Retrying(m.Reformat, m.Retry), *req.Solve.Reformat, resp.Text)
	if err != nil {
		return model.Response{}, fmt.Errorf("question %q: %w", req.Question.Name, err)
	}
	text := r.Text
	resp.Work.Answer = &text
	resp.Work.ReformatModel = m.Reformat.Name()
	return resp, nil
}

// lazySession opens the question's sandbox at the agent's first python
// call: a model that answers without one (the offline models, a model
// that answers at once) starts no interpreter, which is most of a
// question's time for the oracle (0.85 s each on a 2-core machine).
type lazySession struct {
	open func(context.Context) (*sandbox.Session, error)
	sess *sandbox.Session
	err  error
}

// Exec runs code in the session, opening it first; a session that could
// not be opened fails every call.
func (l *lazySession) Exec(ctx context.Context, code string) (sandbox.Result, error) {
	if l.sess == nil && l.err == nil {
		l.sess, l.err = l.open(ctx)
	}
	if l.err != nil {
		return sandbox.Result{}, l.err
	}
	return l.sess.Exec(ctx, code)
}

// Close closes the session if it was opened.
func (l *lazySession) Close() {
	if l.sess != nil {
		l.sess.Close()
	}
}
