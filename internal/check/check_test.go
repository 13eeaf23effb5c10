package check

import (
	"bytes"
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/config"
	"github.com/evalmd/evalmd/internal/fakeserver"
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
	getenv := cfg.Getenv(func(k string) string { return envs[k] })
	var sandboxAsked bool
	opt := Options{Getenv: getenv, Config: cfg, Probe: 200 * time.Millisecond,
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
