package model

import (
	"errors"
	"strings"
	"testing"
)

func TestRegistryNamesMissingProvider(t *testing.T) {
	r := NewRegistry()
	r.Register("mock", func(Ref, Options) (Model, error) { return nil, nil })
	if _, err := r.New("openai/gpt-4o", Options{}); err == nil || !strings.Contains(err.Error(), "mock/MODEL") {
		t.Errorf("openai/gpt-4o in a registry without openai: error %v, want one listing the registered providers", err)
	}
}

// The naming rule is the registry's; which names are whose, the
// providers': a prefix, a Labeled provider's servers, names a provider
// claims, and the Fallback under a base URL.
func TestParseByProviders(t *testing.T) {
	none := func(Ref, Options) (Model, error) { return nil, nil }
	r := NewRegistry()
	r.Add(Provider{Name: "toy", New: none, Usage: "toy/MODEL, a bare t-*", Claim: func(name string, withBaseURL bool) (string, bool, error) {
		return name, !withBaseURL && strings.HasPrefix(name, "t-"), nil
	}})
	r.Add(Provider{Name: "lab", New: none, Labeled: true, Fallback: true})
	r.Add(Provider{Name: "fixed", New: none, Claim: func(name string, _ bool) (string, bool, error) {
		if name == "fixed:" {
			return "", true, errors.New("want fixed:FILE")
		}
		m, ok := strings.CutPrefix(name, "fixed:")
		return m, ok, nil
	}})
	for _, tc := range []struct {
		name, base            string
		provider, label, want string
		err                   string
	}{
		{name: "toy/a/b", provider: "toy", want: "a/b"},
		{name: "t-1", provider: "toy", want: "t-1"},
		{name: "t-1", base: "http://h/v1", provider: "lab", want: "t-1"},
		{name: "lab/srv/m/x", provider: "lab", label: "srv", want: "m/x"},
		{name: "fixed:f.jsonl", base: "http://h/v1", provider: "fixed", want: "f.jsonl"},
		{name: "other/m", base: "http://h/v1", provider: "lab", want: "other/m"},
		{name: "", err: "empty"},
		{name: "toy/", err: "no model"},
		{name: "lab/srv", err: "lab/NAME/MODEL"},
		{name: "fixed:", err: "want fixed:FILE"},
		{name: "zzz", err: "want one of toy/MODEL, a bare t-*, lab/MODEL, fixed/MODEL"},
	} {
		ref, err := r.Parse(tc.name, Options{BaseURL: tc.base})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error = %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		want := Ref{Name: tc.name, Provider: tc.provider, Label: tc.label, Model: tc.want}
		if err != nil || ref != want {
			t.Errorf("Parse(%q, base %q) = %+v, %v; want %+v", tc.name, tc.base, ref, err, want)
		}
	}
	if i := r.Describe("t-1", Options{}); i.Provider != "toy" || i.Model != "t-1" {
		t.Errorf("Describe without a describer = %+v", i)
	}
}

// A provider's own options travel in Options.Provider as values of its
// own type: each provider finds its own, and the zero value (its
// defaults) when the program gave none.
func TestProviderOption(t *testing.T) {
	type mine struct{ Reply string }
	type theirs struct{ Reply string }
	opt := Options{Provider: []any{theirs{"no"}, mine{"yes"}, mine{"second"}}}
	if got := ProviderOption[mine](opt); got.Reply != "yes" {
		t.Errorf("ProviderOption[mine] = %+v, want the first of its type", got)
	}
	if got := ProviderOption[mine](Options{}); got != (mine{}) {
		t.Errorf("without one: %+v, want the zero value", got)
	}
}

// Register adds a provider known by its factory alone.
func (r *Registry) Register(provider string, f Factory) { r.Add(Provider{Name: provider, New: f}) }
