package model_test

import (
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// toy is a provider written outside this package, as a program would add
// one: it needs only the model package's interface and a registry.
type toy struct{ ref model.Ref }

func (t toy) Name() string     { return t.ref.Name }
func (t toy) Info() model.Info { return toyInfo(t.ref) }

// toyInfo is what the toy provider knows of a model from its name: its
// price and its context limit, which no table in package model holds.
func toyInfo(ref model.Ref) model.Info {
	return model.Info{Provider: ref.Provider, Model: ref.Model, BaseURL: "http://127.0.0.1:9/v1", Price: &model.Price{In: 1, Out: 2}, ContextLimit: 4096}
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
	if c, ok := model.Cost(m.Info(), model.Usage{In: 1_000_000, Out: 1_000_000}, nil); !ok || c != 3 {
		t.Errorf("Cost = %v, %v; want a known 3", c, ok)
	}
}

// A toy provider that claims bare names and describes its models is
// known by name alone (a dry run, a file recording only a name): its
// price and its context limit come from it.
func TestToyProviderDescribed(t *testing.T) {
	r := model.NewRegistry()
	r.Add(model.Provider{Name: "toy", New: func(ref model.Ref, _ model.Options) (model.Model, error) { return toy{ref}, nil },
		Describe: toyInfo,
		Claim:    func(name string, _ bool) (string, bool, error) { return name, strings.HasPrefix(name, "toy-"), nil }})
	for _, name := range []string{"toy/small", "toy-large"} {
		i := r.Describe(name, model.Options{})
		if i.Provider != "toy" || i.ContextLimit != 4096 {
			t.Errorf("Describe(%q) = %+v", name, i)
		}
		if c, ok := model.Cost(i, model.Usage{In: 1_000_000}, nil); !ok || c != 1 {
			t.Errorf("Describe(%q): cost %v, %v; want a known 1", name, c, ok)
		}
	}
}
