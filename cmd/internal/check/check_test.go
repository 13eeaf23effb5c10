package check

import (
	"bytes"
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
)

// silent is a server on 127.0.0.1 that accepts connections and never
// answers; it stops when the test ends.
func silent(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		var conns []net.Conn
		for {
			c, err := ln.Accept()
			if err != nil {
				break
			}
			conns = append(conns, c)
		}
		<-done
		for _, c := range conns {
			c.Close()
		}
	}()
	t.Cleanup(func() { ln.Close(); close(done) })
	return "http://" + ln.Addr().String() + "/v1"
}

// closedPort is an address nothing listens on.
func closedPort(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	return "http://" + addr + "/v1"
}

// Keys are reported present or not (never printed); local servers are
// probed: the fake server answers, a closed port and a silent server do
// not, the silent one within the probe's bound; a server the config names
// is probed too.
func TestProviders(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{})
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "evalmd.yaml"), []byte("base_urls:\n  together: "+srv.URL+"\n  vllm: "+closedPort(t)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg, err := config.Load(config.Lookup{Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	envs := map[string]string{
		"OPENAI_API_KEY":    "sk-test-secret-value",
		"OLLAMA_BASE_URL":   srv.URL,
		"LLAMACPP_BASE_URL": silent(t),
	}
	getenv := func(k string) string { return envs[k] }
	var sandboxAsked bool
	opt := Options{Registry: providers.Registry(), Getenv: getenv, Config: cfg, Probe: 200 * time.Millisecond,
		Sandbox: func(context.Context) (string, error) {
			sandboxAsked = true
			return "", errors.New("bubblewrap is missing: apt-get install -y bubblewrap")
		}}
	got := map[string]Provider{}
	for _, p := range Providers(context.Background(), opt) {
		got[p.Name] = p
	}
	for name, want := range map[string]bool{"openai": true, "anthropic": false, "ollama": true, "vllm": false, "llamacpp": false, "openai-api/together": true} {
		p, ok := got[name]
		if !ok {
			t.Errorf("%s not checked", name)
			continue
		}
		if p.Ready() != want {
			t.Errorf("%s ready %v, want %v (%+v)", name, p.Ready(), want, p)
		}
	}
	if err := got["llamacpp"].Err; err == nil || !strings.Contains(err.Error(), "no answer within") {
		t.Errorf("the silent server: %v", err)
	}
	if srv.Count() != 2 {
		t.Errorf("the fake server was probed %d times, want 2 (ollama and together)", srv.Count())
	}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, opt); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	if strings.Contains(out, "sk-test") {
		t.Fatal("the report prints a key")
	}
	for _, want := range []string{"openai               ok: OPENAI_API_KEY set", "anthropic            not configured: ANTHROPIC_API_KEY not set", "ollama               ok: reachable", "vllm                 not reachable at", "config:\n  file " + filepath.Join(dir, "evalmd.yaml") + "\n", "base_urls.together: " + srv.URL,
		"sandbox: not ready: bubblewrap is missing", "openai-api/together"} {
		if !strings.Contains(out, want) {
			t.Errorf("the report lacks %q:\n%s", want, out)
		}
	}
	if !sandboxAsked {
		t.Error("the sandbox was not checked")
	}
}

// An openai-api NAME with its key in the environment is listed: with no
// base URL, on one line saying so and how to give one (never the key);
// with NAME_BASE_URL from the environment or the config, probed. Known
// providers, names the config already lists and empty keys are not listed
// again.
func TestKeyWithoutBaseURL(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
	cfg, err := config.Parse("evalmd.yaml", []byte("base_urls:\n  my-server: "+srv.URL+"\n"))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "test-secret-value"
	for _, tc := range []struct {
		name  string
		env   map[string]string
		want  []string // lines (or parts) the report has
		never []string // names the report must not list
		ready map[string]bool
	}{
		{"key without base URL", map[string]string{"TOGETHER_API_KEY": secret},
			[]string{"openai-api/together  not configured: TOGETHER_API_KEY set but no base URL: set TOGETHER_BASE_URL, pass --base-url, or add base_urls: {together: URL} to the config\n"},
			nil, map[string]bool{"openai-api/together": false}},
		{"key and base URL in the environment", map[string]string{"TOGETHER_API_KEY": secret, "TOGETHER_BASE_URL": srv.URL},
			[]string{"openai-api/together  ok: reachable at " + srv.URL + " (TOGETHER_API_KEY set)"},
			nil, map[string]bool{"openai-api/together": true}},
		{"key and base URL in the config", map[string]string{"MY_SERVER_API_KEY": secret},
			[]string{"openai-api/my-server ok: reachable at " + srv.URL + " (MY_SERVER_API_KEY set)"},
			[]string{"openai-api/my_server"}, map[string]bool{"openai-api/my-server": true}},
		{"known providers and empty keys", map[string]string{"OPENAI_API_KEY": secret, "OLLAMA_API_KEY": secret, "EMPTY_API_KEY": "", "lower_API_KEY": secret, "_API_KEY": secret},
			[]string{"openai               ok: OPENAI_API_KEY set"},
			[]string{"openai-api/openai", "openai-api/ollama", "openai-api/empty", "openai-api/lower", "openai-api/ "}, nil},
		{"two names sorted", map[string]string{"ZED_API_KEY": secret, "ACME_API_KEY": secret},
			[]string{"openai-api/acme", "openai-api/zed", "ACME_BASE_URL", "ZED_BASE_URL"},
			nil, map[string]bool{"openai-api/acme": false, "openai-api/zed": false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			getenv := func(k string) string { return tc.env[k] }
			environ := func() []string {
				var kv []string
				for k, v := range tc.env {
					kv = append(kv, k+"="+v)
				}
				return kv
			}
			opt := Options{Registry: providers.Registry(), Getenv: getenv, Environ: environ, Config: cfg, Probe: time.Second}
			got := map[string]Provider{}
			var order []string
			for _, p := range Providers(context.Background(), opt) {
				if _, dup := got[p.Name]; dup {
					t.Errorf("%s listed twice", p.Name)
				}
				got[p.Name] = p
				order = append(order, p.Name)
			}
			for name, want := range tc.ready {
				if p, ok := got[name]; !ok || p.Ready() != want {
					t.Errorf("%s: listed %v, ready %v, want ready %v", name, ok, p.Ready(), want)
				}
			}
			for _, name := range tc.never {
				if _, ok := got[name]; ok {
					t.Errorf("%s is listed", name)
				}
			}
			var b bytes.Buffer
			if err := Write(context.Background(), &b, opt); err != nil {
				t.Fatal(err)
			}
			out := b.String()
			for _, want := range tc.want {
				if !strings.Contains(out, want) {
					t.Errorf("the report lacks %q:\n%s", want, out)
				}
			}
			if strings.Contains(out, secret) {
				t.Error("the report prints a key")
			}
			if i, j := strings.Index(out, "openai-api/acme"), strings.Index(out, "openai-api/zed"); i > j {
				t.Errorf("names not sorted: %v", order)
			}
		})
	}
}

// A provider added from a test alone, with a server of its own, is
// checked as the module's are: its key's variable and its server, probed
// when it is local; nothing in this package names it.
func TestToyProviderChecked(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2})
	r := model.NewRegistry()
	none := func(model.Ref, model.Options) (model.Model, error) { return nil, nil }
	r.Add(model.Provider{Name: "toy", New: none, Server: &model.Server{KeyVar: "TOY_KEY", URL: srv.URL, Local: true}})
	r.Add(model.Provider{Name: "toyhosted", New: none, Server: &model.Server{KeyVar: "TOYHOSTED_KEY", URL: "https://api.toy.example/v1"}})
	env := map[string]string{"TOYHOSTED_KEY": "secret"}
	var b bytes.Buffer
	if err := Write(context.Background(), &b, Options{Registry: r, Getenv: func(k string) string { return env[k] }, Probe: time.Second}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"toy                  ok: reachable at " + srv.URL + " (TOY_KEY not set)",
		"toyhosted            ok: TOYHOSTED_KEY set (https://api.toy.example/v1)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the report lacks %q:\n%s", want, b.String())
		}
	}
	if srv.Count() != 1 {
		t.Errorf("the toy's server was probed %d times, want 1", srv.Count())
	}
}

// Every provider of the registry is listed, in its order, with what check
// can say of it, and nothing in this package names one: an offline
// provider (no server) needs nothing, a Labeled one says how many of its
// servers are named, a server another provider's (Server.Name) is read
// and probed under that one's NAME.
func TestEveryProviderListed(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 2})
	none := func(model.Ref, model.Options) (model.Model, error) { return nil, nil }
	toys := func(ps ...model.Provider) func() *model.Registry {
		return func() *model.Registry {
			r := model.NewRegistry()
			for _, p := range ps {
				p.New = none
				r.Add(p)
			}
			return r
		}
	}
	for _, tc := range []struct {
		name     string
		registry func() *model.Registry
		env      map[string]string
		want     []string // lines of the report, in order
	}{
		{"offline", toys(model.Provider{Name: "toyoff"}), nil,
			[]string{"  toyoff               offline, nothing to check\n"}},
		{"labeled, no server named", toys(model.Provider{Name: "toylab", Labeled: true, Usage: "toylab/NAME/M"}), nil,
			[]string{"  toylab               servers of your own (toylab/NAME/M): none named (set NAME_BASE_URL or base_urls: {NAME: URL}, and NAME_API_KEY if it wants a key)\n"}},
		{"labeled, two servers named", toys(model.Provider{Name: "toylab", Labeled: true}, model.Provider{Name: "toyoff"}),
			map[string]string{"ACME_API_KEY": "k", "ZED_API_KEY": "k"},
			[]string{"  toylab               servers of your own (toylab/NAME/MODEL): 2 named, below\n", "  toyoff               offline, nothing to check\n",
				"  toylab/acme          not configured: ACME_API_KEY set but no base URL", "  toylab/zed           not configured"}},
		{"another's server", toys(model.Provider{Name: "toy", Server: &model.Server{KeyVar: "TOY_KEY", URL: closedPort(t), Local: true}},
			model.Provider{Name: "toyalias", Server: &model.Server{KeyVar: "TOY_KEY", URL: closedPort(t), Local: true, Name: "toy"}}),
			map[string]string{"TOY_BASE_URL": srv.URL, "TOYALIAS_BASE_URL": closedPort(t)},
			[]string{"  toy                  ok: reachable at " + srv.URL + " (TOY_KEY not set)\n", "  toyalias             ok: reachable at " + srv.URL + " (TOY_KEY not set)\n"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			environ := func() []string {
				var kv []string
				for k, v := range tc.env {
					kv = append(kv, k+"="+v)
				}
				return kv
			}
			opt := Options{Registry: tc.registry(), Getenv: func(k string) string { return tc.env[k] }, Environ: environ, Probe: time.Second}
			var b bytes.Buffer
			if err := Write(context.Background(), &b, opt); err != nil {
				t.Fatal(err)
			}
			out, at := b.String(), 0
			for _, want := range tc.want {
				i := strings.Index(out[at:], want)
				if i < 0 {
					t.Fatalf("the report lacks %q after its byte %d:\n%s", want, at, out)
				}
				at += i + len(want)
			}
		})
	}
	if srv.Count() != 2 {
		t.Errorf("the server was probed %d times, want 2 (toy and toyalias)", srv.Count())
	}
}

// The module's registry: every provider it has is on a line of the
// report, once.
func TestModuleProvidersListed(t *testing.T) {
	r := providers.Registry()
	var b bytes.Buffer
	refuse := &http.Client{Transport: roundTrip(func(*http.Request) (*http.Response, error) { return nil, errors.New("no network in this test") })}
	if err := Write(context.Background(), &b, Options{Registry: r, Client: refuse}); err != nil {
		t.Fatal(err)
	}
	for _, name := range r.Providers() {
		if n := strings.Count(b.String(), "\n  "+name+" "); n != 1 {
			t.Errorf("%s is on %d lines of the report, want 1:\n%s", name, n, b.String())
		}
	}
}

// roundTrip is an http.RoundTripper of one function.
type roundTrip func(*http.Request) (*http.Response, error)

func (f roundTrip) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }

// The server --base-url names is probed on a line of its own, answering
// or not; a base URL holding a key is refused without printing it.
func TestBaseURLProbed(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{})
	for _, tc := range []struct{ url, want string }{
		{srv.URL, "--base-url           ok: reachable at " + srv.URL + "\n"},
		{closedPort(t), "--base-url           not reachable at http://127.0.0.1:"},
		{"http://user:sk-inside@127.0.0.1:1/v1", "--base-url           refused: the base URL from --base-url "},
	} {
		var b bytes.Buffer
		if err := Write(context.Background(), &b, Options{BaseURL: tc.url, Probe: 500 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		if out := b.String(); !strings.Contains(out, tc.want) || strings.Contains(out, "sk-inside") {
			t.Errorf("--base-url %s: the report lacks %q (or prints the key):\n%s", tc.url, tc.want, out)
		}
	}
	if srv.Count() != 1 {
		t.Errorf("the server was probed %d times, want 1", srv.Count())
	}
}

// Ready says whether the provider can be used as it is.
func (p Provider) Ready() bool {
	if p.BaseURL == "" {
		return false
	}
	if p.Local {
		return p.Err == nil
	}
	return p.HasKey
}
