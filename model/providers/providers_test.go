package providers_test

import (
	"errors"
	"fmt"
	"math"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
)

// describe is what the commands' registry knows of a name alone.
func describe(name string) model.Info { return providers.Registry().Describe(name, model.Options{}) }

func fmtPrice(p *model.Price) string {
	if p == nil {
		return "unknown"
	}
	return strings.TrimSpace(strings.Join(strings.Fields(fmtFloat(p.In)+" "+fmtFloat(p.Out)), " "))
}

func fmtFloat(f float64) string { return strconv.FormatFloat(f, 'g', -1, 64) }

func TestCost(t *testing.T) {
	override := &model.Price{In: 1, Out: 2}
	for _, tc := range []struct {
		info     model.Info
		u        model.Usage
		override *model.Price
		want     float64
		ok       bool
	}{
		{describe("openai/gpt-4o"), model.Usage{In: 1_000_000, Out: 1_000_000}, nil, 12.5, true},
		{describe("gpt-4o-2024-08-06"), model.Usage{In: 1_000_000, Out: 0}, nil, 2.5, true},
		{describe("openai/gpt-4o-mini"), model.Usage{In: 2_000_000, Out: 1_000_000}, nil, 0.3 + 0.6, true},
		{describe("gpt-4"), model.Usage{In: 1000, Out: 1000}, nil, 0.03 + 0.06, true},
		{describe("gpt-4-0613"), model.Usage{In: 1000, Out: 0}, nil, 0.03, true},
		{describe("gpt-4-turbo-2024-04-09"), model.Usage{In: 1_000_000, Out: 0}, nil, 10, true},
		{describe("anthropic/claude-3-5-sonnet-20241022"), model.Usage{In: 1_000_000, Out: 1_000_000}, nil, 18, true},
		{describe("anthropic/claude-sonnet-4-5-20250929"), model.Usage{In: 0, Out: 1_000_000}, nil, 15, true},
		{describe("Claude-3-Haiku-20240307"), model.Usage{In: 1_000_000, Out: 0}, nil, 0, false}, // not a name the providers know
		{describe("mock"), model.Usage{In: 100, Out: 100}, nil, 0, true},
		{describe("replay:x.jsonl"), model.Usage{In: 100, Out: 100}, nil, 0, true},
		{describe("ollama/llama3"), model.Usage{In: 100, Out: 100}, nil, 0, true},
		{describe("openai-api/together/meta-llama/Llama-3"), model.Usage{In: 100, Out: 100}, nil, 0, false},
		{describe("gpt-4oops"), model.Usage{In: 100, Out: 100}, nil, 0, false},
		{model.Info{Model: "gpt-4", Provider: "openai-api"}, model.Usage{In: 100, Out: 100}, nil, 0, false}, // a local server named gpt-4
		{describe("unknown-model"), model.Usage{In: 1_000_000, Out: 1_000_000}, override, 3, true},
		{describe("openai/gpt-4o"), model.Usage{In: 1_000_000, Out: 1_000_000}, override, 3, true},
		// OpenAI counts cached tokens in prompt_tokens: 600k at $2.50 and
		// 400k at gpt-4o's cached $1.25 = 1.50 + 0.50.
		{describe("openai/gpt-4o"), model.Usage{In: 1_000_000, CacheRead: 400_000}, nil, 2, true},
		// gpt-4 has no cached price: cached tokens cost the input price.
		{describe("gpt-4"), model.Usage{In: 1_000_000, CacheRead: 500_000}, nil, 30, true},
		// Anthropic's reply leaves the cache out of input_tokens; the
		// Response counts it in: 1M plain at $3 + 300k read at $0.30 +
		// 100k written at $3.75 = 3 + 0.09 + 0.375.
		{describe("anthropic/claude-sonnet-4-5"), model.Usage{In: 1_400_000, CacheRead: 300_000, CacheWrite: 100_000}, nil, 3.465, true},
		// --price IN,OUT on an Anthropic model: the cache rates are 0.1x
		// and 1.25x of IN: 1M read at $0.10 + 1M written at $1.25.
		{describe("anthropic/claude-sonnet-4-5"), model.Usage{In: 2_000_000, CacheRead: 1_000_000, CacheWrite: 1_000_000}, override, 1.35, true},
		// --price IN,OUT,CACHED_IN: 1M read at $0.50.
		{describe("openai/gpt-4o"), model.Usage{In: 1_000_000, CacheRead: 1_000_000}, &model.Price{In: 1, Out: 2, CachedIn: 0.5}, 0.5, true},
		// elsewhere a cache rate not given is IN.
		{describe("unknown-model"), model.Usage{In: 1_000_000, CacheRead: 1_000_000}, override, 1, true},
		// more cached than input (a server's miscount) is never negative.
		{describe("openai/gpt-4o"), model.Usage{In: 100, CacheRead: 1_000_000}, nil, 1.25, true},
	} {
		got, ok := model.Cost(tc.info, tc.u, tc.override)
		if ok != tc.ok || math.Abs(got-tc.want) > 1e-9 {
			t.Errorf("Cost(%+v, %+v) = %v, %v; want %v, %v", tc.info, tc.u, got, ok, tc.want, tc.ok)
		}
	}
	// LookupPrice itself is case-blind.
	if p, ok := model.LookupPrice("Claude-3-Haiku-20240307"); !ok || p.In != 0.25 {
		t.Errorf("model.LookupPrice(Claude-3-Haiku-20240307) = %v, %v", p, ok)
	}
}

func TestParseNames(t *testing.T) {
	r := providers.Registry()
	for _, tc := range []struct {
		name, base      string
		provider, label string
		model           string
		err             string
	}{
		{name: "openai/gpt-4o", provider: "openai", model: "gpt-4o"},
		{name: "gpt-4", provider: "openai", model: "gpt-4"},
		{name: "o3-mini", provider: "openai", model: "o3-mini"},
		{name: "chatgpt-4o-latest", provider: "openai", model: "chatgpt-4o-latest"},
		{name: "anthropic/claude-sonnet-4-5", provider: "anthropic", model: "claude-sonnet-4-5"},
		{name: "claude-3-opus-20240229", provider: "anthropic", model: "claude-3-opus-20240229"},
		{name: "ollama/llama3:8b", provider: "ollama", model: "llama3:8b"},
		{name: "vllm/Qwen/Qwen2.5-7B", provider: "vllm", model: "Qwen/Qwen2.5-7B"},
		{name: "openai-api/together/meta-llama/Llama-3-8b", provider: "openai-api", label: "together", model: "meta-llama/Llama-3-8b"},
		{name: "meta-llama/Llama-3-8b", base: "http://h/v1", provider: "openai-api", model: "meta-llama/Llama-3-8b"},
		{name: "gpt-4", base: "http://h/v1", provider: "openai-api", model: "gpt-4"},
		{name: "anthropic/claude-3-haiku", base: "http://h", provider: "anthropic", model: "claude-3-haiku"},
		{name: "mock", base: "http://h/v1", provider: "mock", model: "mock"},
		{name: "random", provider: "random", model: "random"},
		{name: "replay:r.jsonl", provider: "replay", model: "r.jsonl"},
		{name: "", err: "empty"},
		{name: "llama3", err: "unknown model"},
		{name: "foo/bar", err: "unknown model"},
		{name: "openai/", err: "no model"},
		{name: "openai-api/x", err: "openai-api/NAME/MODEL"},
		{name: "openai-api/x/", err: "openai-api/NAME/MODEL"},
		{name: "replay:", err: "replay:FILE"},
	} {
		ref, err := r.Parse(tc.name, model.Options{BaseURL: tc.base})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("Parse(%q) error = %v, want one containing %q", tc.name, err, tc.err)
			}
			continue
		}
		want := model.Ref{Name: tc.name, Provider: tc.provider, Label: tc.label, Model: tc.model}
		if err != nil || ref != want {
			t.Errorf("Parse(%q, base %q) = %+v, %v; want %+v", tc.name, tc.base, ref, err, want)
		}
	}
}

func TestDescribe(t *testing.T) {
	gpt4, _ := model.LookupPrice("gpt-4")
	for _, tc := range []struct {
		name    string
		want    model.Info
		noPrice bool
	}{
		{name: "gpt-4", want: model.Info{Provider: "openai", Model: "gpt-4", BaseURL: "https://api.openai.com/v1", Vision: true, Price: &gpt4}},
		{name: "openai-responses/gpt-4", want: model.Info{Provider: "openai-responses", Model: "gpt-4", BaseURL: "https://api.openai.com/v1", Vision: true, Price: &gpt4}},
		{name: "openai/gpt-3.5-turbo", want: model.Info{Provider: "openai", Model: "gpt-3.5-turbo", BaseURL: "https://api.openai.com/v1", Price: &model.Price{In: 0.5, Out: 1.5}}},
		{name: "claude-3-haiku", want: model.Info{Provider: "anthropic", Model: "claude-3-haiku", BaseURL: "https://api.anthropic.com", Vision: true, Price: &model.Price{In: 0.25, Out: 1.25}}},
		{name: "ollama/gpt-4", want: model.Info{Provider: "ollama", Model: "gpt-4", BaseURL: "http://localhost:11434/v1", Price: &model.Price{}}},
		{name: "mock", want: model.Info{Provider: "mock", Model: "mock", Offline: true, Price: &model.Price{}}},
		{name: "replay:x.jsonl", want: model.Info{Provider: "replay", Model: "x.jsonl", Offline: true, Price: &model.Price{}}},
		{name: "openai-api/local/gpt-4", want: model.Info{Provider: "openai-api", Label: "local", Model: "gpt-4"}},
		{name: "some-local-model", want: model.Info{Model: "some-local-model"}},
	} {
		got := describe(tc.name)
		if got.Provider != tc.want.Provider || got.Label != tc.want.Label || got.Model != tc.want.Model || got.BaseURL != tc.want.BaseURL ||
			got.Vision != tc.want.Vision || got.Offline != tc.want.Offline || fmtPrice(got.Price) != fmtPrice(tc.want.Price) {
			t.Errorf("Describe(%q) = %+v (price %s), want %+v (price %s)", tc.name, got, fmtPrice(got.Price), tc.want, fmtPrice(tc.want.Price))
		}
	}
}

// DSBench's rule: images for every model but gpt-3.5; local servers and
// built-ins get none.
func TestDescribeVision(t *testing.T) {
	for name, want := range map[string]bool{
		"openai/gpt-4o": true, "gpt-4": true, "gpt-3.5-turbo": false, "openai/gpt-3.5-turbo-0125": false,
		"anthropic/claude-3-5-sonnet": true, "ollama/llama3": false, "oracle": false, "replay:x.jsonl": false,
	} {
		if got := describe(name).Vision; got != want {
			t.Errorf("describe(%q).Vision = %v", name, got)
		}
	}
}

// modelsPage lists the model names each provider takes, in a table whose
// first column holds names.
const modelsPage = "../../docs/models.md"

// pageProviders returns the providers of the model names in the first
// column of the page's table headed "| name | what |", by r's reading.
func pageProviders(r *model.Registry, page string) (map[string]bool, error) {
	_, table, ok := strings.Cut(page, "\n| name | what |\n")
	if !ok {
		return nil, fmt.Errorf("no table headed | name | what |")
	}
	cell := regexp.MustCompile("`([^`]+)`")
	got := map[string]bool{}
	for _, line := range strings.Split(table, "\n")[1:] { // after its rule
		if !strings.HasPrefix(line, "|") {
			break
		}
		for _, m := range cell.FindAllStringSubmatch(strings.Split(line, "|")[1], -1) {
			if ref, err := r.Parse(m[1], model.Options{}); err == nil {
				got[ref.Provider] = true
			}
		}
	}
	return got, nil
}

// docs/models.md's table of names has a name of every provider of the
// commands' registry: a provider added (here "toy") or a row dropped
// fails.
func TestModelsPageNamesEveryProvider(t *testing.T) {
	data, err := os.ReadFile(modelsPage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	toy := model.Provider{Name: "toy", New: func(model.Ref, model.Options) (model.Model, error) { return nil, nil }}
	for _, tc := range []struct {
		name        string
		page        string
		more        []model.Provider
		wantMissing []string
		wantErr     string
	}{
		{name: "the page", page: page},
		{name: "a provider the page lacks", page: page, more: []model.Provider{toy}, wantMissing: []string{"toy"}},
		{name: "a row dropped", page: strings.Replace(page, "| `replay:FILE.jsonl` |", "| replay |", 1), wantMissing: []string{"replay"}},
		{name: "no table", page: "# Models\n", wantErr: "no table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := providers.Registry()
			for _, p := range tc.more {
				r.Add(p)
			}
			named, err := pageProviders(r, tc.page)
			if (err != nil) != (tc.wantErr != "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("%s: %v, want an error with %q", modelsPage, err, tc.wantErr)
			}
			var missing []string
			for _, p := range r.Providers() {
				if err == nil && !named[p] {
					missing = append(missing, p)
				}
			}
			if !slices.Equal(missing, tc.wantMissing) {
				t.Errorf("%s: no name of providers %q, want %q", modelsPage, missing, tc.wantMissing)
			}
		})
	}
}

// Options.SendKey is asked before any key goes to a server BaseURLs names,
// whatever variable holds the key (the provider's, --api-key-env's), by
// every hosted provider; a server from --base-url or NAME_BASE_URL, and a
// model sent no key, never ask it.
func TestSendKeyGuardsBaseURLs(t *testing.T) {
	urls := map[string]string{"together": "http://127.0.0.1:1/v1", "vllm": "http://127.0.0.1:2/v1", "anthropic": "http://127.0.0.1:3", "openai": "http://127.0.0.1:4/v1"}
	for _, tc := range []struct {
		model  string
		env    map[string]string
		keyEnv string
		asked  string // the member SendKey is asked about, and the key's variable; "" = not asked
	}{
		{"openai-api/together/llama", map[string]string{"MY_TOGETHER": "k"}, "MY_TOGETHER", "together MY_TOGETHER"},
		{"openai-api/together/llama", map[string]string{"TOGETHER_API_KEY": "k"}, "", "together TOGETHER_API_KEY"},
		{"vllm/x", map[string]string{"OPENAI_API_KEY": "k"}, "OPENAI_API_KEY", "vllm OPENAI_API_KEY"},
		{"anthropic/claude-x", map[string]string{"ANTHROPIC_API_KEY": "k"}, "", "anthropic ANTHROPIC_API_KEY"},
		{"openai-responses/gpt-4o", map[string]string{"OPENAI_API_KEY": "k"}, "", "openai OPENAI_API_KEY"},
		{"vllm/x", nil, "", ""}, // no key to send
		{"openai-api/together/llama", map[string]string{"MY_TOGETHER": "k", "TOGETHER_BASE_URL": "http://127.0.0.1:5/v1"}, "MY_TOGETHER", ""},
	} {
		var asked []string
		refuse := errors.New("refused")
		opt := model.Options{BaseURLs: urls, APIKeyEnv: tc.keyEnv, Getenv: func(k string) string { return tc.env[k] },
			SendKey: func(name, from string) error { asked = append(asked, name+" "+from); return refuse }}
		_, err := providers.New(tc.model, opt)
		if got := strings.Join(asked, ","); got != tc.asked || (tc.asked != "") != errors.Is(err, refuse) {
			t.Errorf("%s %v: SendKey asked %q (err %v), want %q", tc.model, tc.env, got, err, tc.asked)
		}
	}
}
