// Package check says what this machine can run (run --check): whether each
// model provider of the registry is configured (an API key present in the
// environment, a local server answering a short probe; an offline one needs
// nothing), the Python sandbox's state, and the config files in force. It
// never prints a key, only the name of the variable that holds one.
package check

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"time"

	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/model"
)

// DefaultProbe bounds one probe of a local server.
const DefaultProbe = 2 * time.Second

// Options say what is checked and how.
type Options struct {
	// Getenv reads keys' presence and base URLs (wrap it with the
	// config's Getenv so that its base URLs count); nil reads none.
	Getenv func(string) string
	// Environ lists the environment as NAME=VALUE lines (os.Environ):
	// every NAME_API_KEY in it that Getenv reads as set names an
	// openai-api server. nil lists none.
	Environ func() []string
	// Registry holds the providers to check: every one, in its order,
	// then the servers of its Labeled one (base_urls, NAME_API_KEY); nil
	// checks none.
	Registry *model.Registry
	// Config is the config in force; nil for none.
	Config *config.Config
	// BaseURL is the server --base-url names, where every model of the
	// run is sent: probed as a line of its own ("" for none).
	BaseURL string
	// Client sends the probes; nil uses a fresh client.
	Client *http.Client
	// Probe bounds each probe; 0 means DefaultProbe.
	Probe time.Duration
	// Sandbox checks the sandbox and says its versions ("python 3.11.2,
	// pandas 1.5.3, ..."); nil skips it.
	Sandbox func(ctx context.Context) (string, error)
}

// Provider is one provider's or server's state.
type Provider struct {
	Name    string // the provider's name, or LABELED/NAME for a server of its Labeled provider
	KeyVar  string // the variable its key is read from
	HasKey  bool
	BaseURL string // "" for a server NAME with a key and no base URL
	Local   bool   // a server probed (local, or named by base URL)
	Err     error  // the probe's failure, nil when it answered
	// Refused says why the base URL the environment gives is not used
	// (one holding a key, user:sk-...@); the URL is then "" and never
	// printed.
	Refused error
	// Offline says a provider has no server: nothing to check.
	Offline bool
	// Labeled says a provider's servers are the user's, one a NAME
	// (Usage says how its models are named); Servers counts those
	// listed, after it.
	Labeled bool
	Usage   string
	Servers int

	server string // the NAME its base URL is read under; "" for none
}

// Providers checks the registry's providers (a server of its own probed
// or its key looked for, an offline one said to need nothing), every
// server the config names (base_urls) and every NAME whose NAME_API_KEY is
// set (with or without its NAME_BASE_URL), these two as servers of the
// registry's Labeled provider (openai-api/NAME). Servers are probed at
// once, each bounded by opt.Probe.
func Providers(ctx context.Context, opt Options) []Provider {
	getenv := opt.Getenv
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	l := &lister{opt: opt, getenv: getenv}
	if opt.BaseURL != "" {
		l.ps = append(l.ps, Provider{Name: "--base-url", BaseURL: opt.BaseURL, Local: true})
	}
	l.registry()
	l.configServers()
	l.environServers()
	l.countServers()
	l.cleanBaseURLs()
	probeAll(ctx, opt, l.ps)
	return l.ps
}

// lister lists the providers and servers Providers checks.
type lister struct {
	opt     Options
	getenv  func(string) string
	labeled string // the provider whose names are LABELED/NAME/MODEL, a server each
	ps      []Provider
}

// server is the environment's NAME_BASE_URL, else the config's.
func (l *lister) server(name string) string {
	if u := l.getenv(model.EnvName(name) + "_BASE_URL"); u != "" || l.opt.Config == nil {
		return u
	}
	return model.BaseURLOf(l.opt.Config.BaseURLs, name)
}

// registry lists the registry's providers, and finds its Labeled one.
func (l *lister) registry() {
	if l.opt.Registry == nil {
		return
	}
	for _, pv := range l.opt.Registry.All() {
		if pv.Labeled && l.labeled == "" {
			l.labeled = pv.Name
		}
		s := pv.Server
		if s == nil {
			l.ps = append(l.ps, Provider{Name: pv.Name, Offline: !pv.Labeled, Labeled: pv.Labeled, Usage: pv.Usage})
			continue
		}
		p := Provider{Name: pv.Name, KeyVar: s.KeyVar, Local: s.Local, server: cmp.Or(s.Name, pv.Name)}
		p.BaseURL = l.server(p.server)
		p.HasKey = l.getenv(p.KeyVar) != ""
		if p.BaseURL == "" {
			p.BaseURL = s.URL
		} else if !s.Local && !sameHost(p.BaseURL, s.URL) {
			p.Local = true // another server under a hosted provider's name
		}
		l.ps = append(l.ps, p)
	}
}

// configServers lists the servers the config's base_urls name that are
// not providers, in name order.
func (l *lister) configServers() {
	if l.opt.Config == nil || l.labeled == "" {
		return
	}
	var names []string
	for name := range l.opt.Config.BaseURLs {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		known := false
		for _, p := range l.ps {
			known = known || p.server == name
		}
		if known {
			continue
		}
		p := Provider{Name: l.labeled + "/" + name, KeyVar: model.EnvName(name) + "_API_KEY", BaseURL: l.server(name), Local: true, server: name}
		p.HasKey = l.getenv(p.KeyVar) != ""
		l.ps = append(l.ps, p)
	}
}

// environServers lists each NAME whose NAME_API_KEY is set, not yet
// listed, in name order.
func (l *lister) environServers() {
	if l.opt.Environ == nil || l.labeled == "" {
		return
	}
	listed := map[string]bool{}
	for _, p := range l.ps {
		if p.server != "" {
			listed[model.EnvName(p.server)] = true
		}
	}
	var names []string
	for _, kv := range l.opt.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		name, ok := strings.CutSuffix(k, "_API_KEY")
		// A name evalmd would spell so (TOGETHER, MY_SERVER), not yet
		// listed, its key set.
		if ok && name != "" && model.EnvName(name) == name && !listed[name] && l.getenv(k) != "" {
			listed[name] = true
			names = append(names, name)
		}
	}
	sort.Strings(names)
	for _, name := range names {
		p := Provider{Name: l.labeled + "/" + strings.ToLower(name), KeyVar: name + "_API_KEY", HasKey: true, BaseURL: l.getenv(name + "_BASE_URL"),
			server: strings.ToLower(name)}
		p.Local = p.BaseURL != ""
		l.ps = append(l.ps, p)
	}
}

// countServers counts the Labeled provider's servers listed.
func (l *lister) countServers() {
	for i := range l.ps {
		if l.ps[i].Labeled {
			for _, p := range l.ps {
				if strings.HasPrefix(p.Name, l.ps[i].Name+"/") {
					l.ps[i].Servers++
				}
			}
		}
	}
}

// cleanBaseURLs cleans every base URL listed; one that holds a key is
// refused, never probed or printed.
func (l *lister) cleanBaseURLs() {
	for i := range l.ps {
		p := &l.ps[i]
		if p.BaseURL == "" {
			continue
		}
		clean, err := model.CleanBaseURL(p.BaseURL)
		if err != nil {
			from := model.EnvName(p.server) + "_BASE_URL"
			if p.Name == "--base-url" {
				from = "--base-url"
			}
			p.BaseURL, p.Local, p.Refused = "", false, fmt.Errorf("the base URL from %s (or the config's base_urls) %w", from, err)
			continue
		}
		p.BaseURL = clean
	}
}

// probeAll probes the local servers of ps at once, each bounded by
// opt.Probe, and sets each one's Err.
func probeAll(ctx context.Context, opt Options, ps []Provider) {
	client := opt.Client
	if client == nil {
		client = &http.Client{}
	}
	bound := opt.Probe
	if bound <= 0 {
		bound = DefaultProbe
	}
	done := make(chan struct{})
	n := 0
	for i := range ps {
		if !ps[i].Local {
			continue
		}
		n++
		go func(p *Provider) {
			defer func() { done <- struct{}{} }()
			p.Err = probe(ctx, client, bound, p)
		}(&ps[i])
	}
	for ; n > 0; n-- {
		<-done
	}
}

// sameHost reports whether two base URLs name one host.
func sameHost(a, b string) bool {
	ua, err1 := url.Parse(a)
	ub, err2 := url.Parse(b)
	return err1 == nil && err2 == nil && strings.EqualFold(ua.Hostname(), ub.Hostname())
}

// probe asks a server for its models (GET BASE/models) and says whether it
// answered at all: any HTTP status below 500 is an answer (a server that
// wants a key answers 401; no key is sent), a refused connection or no
// answer in time is not.
func probe(ctx context.Context, client *http.Client, bound time.Duration, p *Provider) error {
	ctx, cancel := context.WithTimeout(ctx, bound)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, strings.TrimRight(p.BaseURL, "/")+"/models", nil)
	if err != nil {
		return err
	}
	resp, err := client.Do(req)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("no answer within %v", bound)
		}
		var ue interface{ Unwrap() error }
		if errors.As(err, &ue) && ue.Unwrap() != nil {
			return ue.Unwrap()
		}
		return err
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("answers HTTP %d", resp.StatusCode)
	}
	return nil
}

// Write runs every check and writes the report on w. It returns an error
// only when writing fails: what is missing is reported, not failed.
func Write(ctx context.Context, w io.Writer, opt Options) error {
	var b strings.Builder
	b.WriteString("config:\n")
	if opt.Config == nil || len(opt.Config.Files) == 0 {
		b.WriteString("  no file (evalmd.yaml in this folder or above, or ~/.config/evalmd/config.yaml)\n")
	} else {
		for _, f := range opt.Config.Files {
			fmt.Fprintf(&b, "  file %s\n", f)
		}
		for _, l := range opt.Config.Describe() {
			fmt.Fprintf(&b, "  %s\n", l)
		}
	}
	b.WriteString("providers:\n")
	for _, p := range Providers(ctx, opt) {
		fmt.Fprintf(&b, "  %-20s %s\n", p.Name, p.state())
	}
	if opt.Sandbox != nil {
		v, err := opt.Sandbox(ctx)
		if err != nil {
			fmt.Fprintf(&b, "sandbox: not ready: %v\n", err)
		} else {
			fmt.Fprintf(&b, "sandbox: ready: %s\n", v)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// state is what the report says of p.
func (p Provider) state() string {
	key := p.KeyVar + " not set"
	if p.HasKey {
		key = p.KeyVar + " set"
	}
	shown := model.RedactURL(p.BaseURL) // a proxy may take a key in its path
	switch {
	case p.Offline:
		return "offline, nothing to check"
	case p.Labeled:
		return p.labeledState()
	case p.Refused != nil:
		return "refused: " + p.Refused.Error()
	case p.BaseURL == "": // a Labeled provider's server
		return fmt.Sprintf("not configured: %s set but no base URL: set %s_BASE_URL, pass --base-url, or add base_urls: {%s: URL} to the config",
			p.KeyVar, model.EnvName(p.server), p.server)
	case p.Local && p.Err == nil && p.KeyVar == "":
		return "ok: reachable at " + shown
	case p.Local && p.Err == nil:
		return "ok: reachable at " + shown + " (" + key + ")"
	case p.Local:
		return "not reachable at " + shown + ": " + p.Err.Error()
	case p.HasKey:
		return "ok: " + key + " (" + shown + ")"
	}
	return "not configured: " + key
}

// labeledState says what a Labeled provider's servers are and how many
// are named.
func (p Provider) labeledState() string {
	mine := "servers of your own (" + cmp.Or(p.Usage, p.Name+"/NAME/MODEL") + "): "
	if p.Servers == 0 {
		return mine + "none named (set NAME_BASE_URL or base_urls: {NAME: URL}, and NAME_API_KEY if it wants a key)"
	}
	return fmt.Sprintf("%s%d named, below", mine, p.Servers)
}
