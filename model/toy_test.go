package model_test

import (
	"context"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// toy is a provider written outside this package, as a program would add
// one: it needs only the model package's interface and a registry.
type toy struct{ ref model.Ref }

func (t toy) Name() string { return t.ref.Name }
func (t toy) Info() model.Info {
	return model.Info{Provider: t.ref.Provider, Model: t.ref.Model, BaseURL: "toy://local", Price: &model.Price{}}
}
func (t toy) Complete(_ context.Context, req model.Request) (model.Response, error) {
	return model.Response{Text: "toy says " + req.Messages[0].Content}, nil
}

func TestToyProvider(t *testing.T) {
	r := model.NewRegistry()
	r.Register("toy", func(ref model.Ref, _ model.Options) (model.Model, error) { return toy{ref}, nil })
	m, err := r.New("toy/small", model.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if i := m.Info(); i.Provider != "toy" || i.Model != "small" {
		t.Errorf("Info() = %+v", i)
	}
	resp, err := m.Complete(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}})
	if err != nil || resp.Text != "toy says hi" {
		t.Errorf("Complete = %q, %v", resp.Text, err)
	}
	if c, ok := model.Cost(m.Info(), 1000, 1000, nil); !ok || c != 0 {
		t.Errorf("Cost = %v, %v; want a known 0", c, ok)
	}
}
