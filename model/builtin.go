package model

import (
	"context"
	"fmt"
)

// The offline built-ins answer without any server: "mock" for trying the
// pipeline, "oracle" to check that grading reads 100%, and "random" (in
// builtin_random.go) as a chance baseline.

// DefaultMockReply is what "mock" answers when Options.MockReply is empty.
const DefaultMockReply = "mock reply"

// mockModel answers every request with the same text.
type mockModel struct {
	name  string
	reply string
}

func newMock(name string, opt Options) *mockModel {
	reply := opt.MockReply
	if reply == "" {
		reply = DefaultMockReply
	}
	return &mockModel{name: name, reply: reply}
}

// Name returns "mock".
func (m *mockModel) Name() string { return m.name }

// Complete returns the fixed reply, unless ctx is already done.
func (m *mockModel) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, fmt.Errorf("model %s, question %q: %w", m.name, req.Question.Name, err)
	}
	return Response{Text: m.reply, Model: m.name}, nil
}

// oracleModel answers each question's ground truth.
type oracleModel struct{ name string }

func newOracle(name string) *oracleModel { return &oracleModel{name: name} }

// Name returns "oracle".
func (m *oracleModel) Name() string { return m.name }

// Complete returns the question's ground truth, or ErrNoAnswer (wrapped)
// when the question has none.
func (m *oracleModel) Complete(ctx context.Context, req Request) (Response, error) {
	if err := ctx.Err(); err != nil {
		return Response{}, fmt.Errorf("model %s, question %q: %w", m.name, req.Question.Name, err)
	}
	if req.Question.GroundTruth == nil {
		return Response{}, fmt.Errorf("model %s, question %q has no ground truth: %w", m.name, req.Question.Name, ErrNoAnswer)
	}
	return Response{Text: *req.Question.GroundTruth, Model: m.name}, nil
}
