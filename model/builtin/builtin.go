// Package builtin holds the offline models, which answer without any
// server: "mock" for trying the pipeline, "oracle" to check that grading
// reads 100%, "random" (random.go) as a chance baseline, and
// "replay:FILE.jsonl" (replay.go) for answers made elsewhere. Register
// wires them into a model.Registry.
package builtin

import (
	"context"
	"fmt"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// Options are this package's own options, given in model.Options.Provider.
type Options struct {
	// MockReply is the reply of the "mock" model; "" means its default.
	MockReply string
	// Seed seeds the "random" model's picks.
	Seed int64
}

// Register adds mock, random, oracle and replay to r.
func Register(r *model.Registry) {
	for _, b := range []struct {
		name         string
		fromQuestion bool
		new          model.Factory
	}{
		{"mock", false, func(ref model.Ref, opt model.Options) (model.Model, error) { return newMock(ref.Name, opt), nil }},
		{"random", true, func(ref model.Ref, opt model.Options) (model.Model, error) { return newRandom(ref.Name, opt), nil }},
		{"oracle", true, func(ref model.Ref, _ model.Options) (model.Model, error) { return newOracle(ref.Name), nil }},
	} {
		describe := func(ref model.Ref) model.Info { return info(b.name, ref.Name, b.fromQuestion) }
		if b.name == "random" {
			describe = func(ref model.Ref) model.Info { return randomInfo(ref.Name) }
		}
		r.Add(model.Provider{Name: b.name, New: b.new, Claim: claimName(b.name), Usage: b.name, Describe: describe})
	}
	r.Add(model.Provider{Name: "replay", Claim: claimReplay, Usage: "replay:FILE.jsonl",
		New:      func(ref model.Ref, _ model.Options) (model.Model, error) { return newReplay(ref.Name, ref.Model) },
		Describe: func(ref model.Ref) model.Info { return info("replay", ref.Model, true) }})
}

// claimName takes the name itself ("mock"), with or without a base URL.
func claimName(name string) func(string, bool) (string, bool, error) {
	return func(n string, _ bool) (string, bool, error) { return name, n == name, nil }
}

// claimReplay takes "replay:FILE.jsonl": the model is the file.
func claimReplay(name string, _ bool) (string, bool, error) {
	file, ok := strings.CutPrefix(name, "replay:")
	if ok && file == "" {
		return "", true, fmt.Errorf("want replay:FILE.jsonl")
	}
	return file, ok, nil
}

// info is the Info of every built-in: offline, free, no images;
// fromQuestion for those that answer from the question beside the request.
func info(provider, name string, fromQuestion bool) model.Info {
	return model.Info{Provider: provider, Model: name, Offline: true, FromQuestion: fromQuestion, Price: &model.Price{}}
}

// defaultMockReply is what "mock" answers when Options.MockReply is empty.
const defaultMockReply = "mock reply"

// mockModel answers every request with the same text.
type mockModel struct {
	name  string
	reply string
}

func newMock(name string, opt model.Options) *mockModel {
	reply := model.ProviderOption[Options](opt).MockReply
	if reply == "" {
		reply = defaultMockReply
	}
	return &mockModel{name: name, reply: reply}
}

// Name returns "mock".
func (m *mockModel) Name() string { return m.name }

// Info says the mock is offline and free.
func (m *mockModel) Info() model.Info { return info("mock", m.name, false) }

// ReuseBasis is what mock's answers depend on beyond the request: its
// reply (see harness/internal/reuse).
func (m *mockModel) ReuseBasis(model.QuestionRef) string { return "reply " + m.reply }

// Complete returns the fixed reply, unless ctx is already done.
func (m *mockModel) Complete(ctx context.Context, _ model.Request) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, fmt.Errorf("model %s: %w", m.name, err)
	}
	return model.Response{Text: m.reply}, nil
}

// oracleModel answers each question's ground truth.
type oracleModel struct{ name string }

func newOracle(name string) *oracleModel { return &oracleModel{name: name} }

// Name returns "oracle".
func (m *oracleModel) Name() string { return m.name }

// Info says the oracle is offline, free, and answers from the question.
func (m *oracleModel) Info() model.Info { return info("oracle", m.name, true) }

// Complete has no question to answer: a request alone carries no ground
// truth.
func (m *oracleModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return m.Answer(ctx, model.Task{Request: req})
}

// Answer returns the question's ground truth, or model.ErrNoAnswer
// (wrapped) when the question has none.
func (m *oracleModel) Answer(ctx context.Context, req model.Task) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, fmt.Errorf("model %s, question %q: %w", m.name, req.Question.Name, err)
	}
	if req.Question.GroundTruth == nil {
		return model.Response{}, fmt.Errorf("model %s, question %q has no ground truth: %w", m.name, req.Question.Name, model.ErrNoAnswer)
	}
	resp := model.Response{Text: *req.Question.GroundTruth}
	if req.Solve != nil && req.Solve.Mode == model.ModeCode {
		// The oracle checks the pipeline, not the sandbox: its answer is
		// the ground truth, and no code is run for it.
		truth := *req.Question.GroundTruth
		resp.Work = &model.ToolRun{Mode: model.ModeCode, Extract: req.Solve.Extract, Answer: &truth}
	}
	return resp, nil
}
