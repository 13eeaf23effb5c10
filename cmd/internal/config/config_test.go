package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
)

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

// The workspace's evalmd.yaml (the nearest one above the folder) lies over
// the user's file; XDG_CONFIG_HOME wins over HOME; nothing is read outside
// the lookup given.
func TestLoad(t *testing.T) {
	root := t.TempDir()
	xdg := filepath.Join(root, "xdg")
	home := filepath.Join(root, "home")
	work := filepath.Join(root, "proj")
	deep := filepath.Join(work, "a", "b")
	write(t, filepath.Join(xdg, "evalmd", "config.yaml"), "models: [openai/gpt-4o]\nconcurrency: 4\nsandbox: none\nbase_urls:\n  ollama: http://gpu:11434/v1\n  vllm: http://v:8000/v1\nprices:\n  openai/gpt-4o: 2.5,10\n")
	write(t, filepath.Join(home, ".config", "evalmd", "config.yaml"), "judge: openai/from-home\n")
	write(t, filepath.Join(work, "evalmd.yaml"), "# team defaults\nmodels:\n  - ollama/llama3\n  - mock\nbase_urls:\n  ollama: http://team:11434/v1\n")
	if err := os.MkdirAll(deep, 0o755); err != nil {
		t.Fatal(err)
	}

	c, err := Load(Lookup{Dir: deep, Getenv: env(map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": home})})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{filepath.Join(work, "evalmd.yaml"), filepath.Join(xdg, "evalmd", "config.yaml")}
	if !reflect.DeepEqual(c.Files, want) {
		t.Errorf("files %q, want %q", c.Files, want)
	}
	if !reflect.DeepEqual(c.Models, []string{"ollama/llama3", "mock"}) || c.Concurrency != "4" || c.Judge != "" {
		t.Errorf("merged config: %+v", c)
	}
	if v, err := setting.Resolve("", nil, c.Settings()...); err != nil || v.Sandbox != "none" || v.From["sandbox"].Source != setting.UserConfig {
		t.Errorf("the user's sandbox: %q from %+v, %v", v.Sandbox, v.From["sandbox"], err)
	}
	if c.BaseURLs["ollama"] != "http://team:11434/v1" || c.BaseURLs["vllm"] != "http://v:8000/v1" {
		t.Errorf("base URLs: %v", c.BaseURLs)
	}
	if p, ok := c.Price("openai/gpt-4o"); !ok || p.In != 2.5 || p.Out != 10 {
		t.Errorf("price: %v %v", p, ok)
	}
	// The files' servers are values a model is made with, under the
	// environment's NAME_BASE_URL.
	opt := model.Options{Getenv: env(map[string]string{"VLLM_BASE_URL": "http://env:1/v1"}), BaseURLs: c.BaseURLs}
	if u, err := opt.Server("ollama"); u != "http://team:11434/v1" || err != nil {
		t.Errorf("ollama's server %q, %v: want the workspace file's", u, err)
	}
	if u, err := opt.Server("vllm"); u != "http://env:1/v1" || err != nil {
		t.Errorf("vllm's server %q, %v: want the environment's", u, err)
	}
	d := strings.Join(c.Describe(), "\n")
	if !strings.Contains(d, "models: ollama/llama3,mock ("+filepath.Join(work, "evalmd.yaml")+")") || !strings.Contains(d, "concurrency: 4 ("+filepath.Join(xdg, "evalmd", "config.yaml")+")") {
		t.Errorf("Describe:\n%s", d)
	}

	// Without XDG_CONFIG_HOME, the user's file is under HOME.
	c, err = Load(Lookup{Getenv: env(map[string]string{"HOME": home})})
	if err != nil || c.Judge != "openai/from-home" || len(c.Files) != 1 {
		t.Errorf("HOME's file: %+v, %v", c, err)
	}
	// An empty lookup reads nothing.
	c, err = Load(Lookup{})
	if err != nil || len(c.Files) != 0 || len(c.Describe()) != 0 {
		t.Errorf("empty lookup: %+v, %v", c, err)
	}
}

// The workspace file is found from the sheets' folder first (the nearest
// at or above it), then from the current folder; a lookup with no current
// folder (tests) reads none.
func TestLoadFromSheets(t *testing.T) {
	root := t.TempDir()
	here := filepath.Join(root, "here")
	evals := filepath.Join(root, "evals")
	bare := filepath.Join(root, "bare", "sheets")
	write(t, filepath.Join(here, "evalmd.yaml"), "models: [random]\n")
	write(t, filepath.Join(evals, "evalmd.yaml"), "models: [oracle]\n")
	write(t, filepath.Join(evals, "deeper", "input-x.md"), "## Q\n")
	if err := os.MkdirAll(bare, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		lookup Lookup
		want   []string
	}{
		{"the sheets' folder", Lookup{Dir: here}.ForSheets(evals), []string{"oracle"}},
		{"above the sheet", Lookup{Dir: here}.ForSheets(filepath.Join(evals, "deeper", "input-x.md")), []string{"oracle"}},
		{"a sheet not there yet", Lookup{Dir: here}.ForSheets(filepath.Join(evals, "input-new.md")), []string{"oracle"}},
		{"none above the sheets: the current folder's", Lookup{Dir: here}.ForSheets(bare), []string{"random"}},
		{"no sheets", Lookup{Dir: here}.ForSheets(""), []string{"random"}},
		{"no current folder: none", Lookup{}.ForSheets(evals), nil},
	} {
		c, err := Load(tc.lookup)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(c.Models, tc.want) {
			t.Errorf("%s: models %q (files %q), want %q", tc.name, c.Models, c.Files, tc.want)
		}
	}
}

// A workspace evalmd.yaml, found from the sheets, cannot point a provider
// whose key the environment holds at its own server; the user's file can,
// and so can the environment's NAME_BASE_URL, which wins anyway. A server
// that gets no key (a local one) may come from either.
func TestWorkspaceCannotTakeKeys(t *testing.T) {
	root := t.TempDir()
	xdg, evil := filepath.Join(root, "xdg"), filepath.Join(root, "evil")
	write(t, filepath.Join(evil, "evalmd.yaml"), "models: [openai/gpt-4o]\nbase_urls:\n  ollama: http://127.0.0.1:1/v1\n  openai: http://attacker.example/v1\n")
	for _, tc := range []struct {
		name string
		env  map[string]string
		user string // the user's config.yaml
		want string // "" = loads
	}{
		{"a key to take", map[string]string{"OPENAI_API_KEY": "sk-victim"}, "", "evalmd.yaml:4: base_urls: openai: a workspace evalmd.yaml (it may have come with sheets) cannot send OPENAI_API_KEY to a server it names"},
		{"no key", nil, "", ""},
		{"the environment names the server", map[string]string{"OPENAI_API_KEY": "sk-victim", "OPENAI_BASE_URL": "https://api.openai.com/v1"}, "", ""},
		{"a key for the local server", map[string]string{"OLLAMA_API_KEY": "k"}, "", "base_urls: ollama: a workspace evalmd.yaml"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"XDG_CONFIG_HOME": xdg}
			for k, v := range tc.env {
				env[k] = v
			}
			_, err := Load(Lookup{Dir: root, Getenv: func(k string) string { return env[k] }}.ForSheets(evil))
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Fatalf("err %v, want %q", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "sk-victim") {
				t.Error("the error prints the key")
			}
		})
	}
	// The user's own file may send the key anywhere.
	write(t, filepath.Join(xdg, "evalmd", "config.yaml"), "base_urls:\n  openai: https://proxy.example/v1\n")
	c, err := Load(Lookup{Dir: root, Getenv: func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": xdg, "OPENAI_API_KEY": "sk-victim"}[k]
	}})
	if err != nil || c.BaseURLs["openai"] != "https://proxy.example/v1" {
		t.Errorf("the user's own base URL: %v %v", c.BaseURLs, err)
	}
	if err := c.SendKey("openai", "MY_KEY"); err != nil {
		t.Errorf("SendKey to the user's own server: %v", err)
	}
	// A key another variable holds (--api-key-env) goes to no server the
	// workspace names; a member the user's file gives over it is theirs.
	write(t, filepath.Join(evil, "evalmd.yaml"), "base_urls:\n  ollama: http://127.0.0.1:1/v1\n  openai: http://attacker.example/v1\n")
	c, err = Load(Lookup{Dir: root, Getenv: env(map[string]string{"XDG_CONFIG_HOME": xdg})}.ForSheets(evil))
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(evil, "evalmd.yaml") + ":2: base_urls: ollama: a workspace evalmd.yaml (it may have come with sheets) cannot send MY_KEY to a server it names"
	if err := c.SendKey("ollama", "MY_KEY"); err == nil || !errors.Is(err, ErrKeyAway) || !strings.Contains(err.Error(), want) {
		t.Errorf("SendKey to the workspace's server: %v, want %q", err, want)
	}
	if err := c.SendKey("openai", "MY_KEY"); err == nil {
		t.Error("SendKey to the workspace's openai member, over the user's: no error")
	}
}

// data_roots vouches for folders a sheet may send files from: the user's
// own file may name them (a relative one from its folder), a workspace
// file, which travels with sheets, may not.
func TestDataRootsFromUserOnly(t *testing.T) {
	root := t.TempDir()
	xdg, ws := filepath.Join(root, "xdg"), filepath.Join(root, "ws")
	write(t, filepath.Join(xdg, "evalmd", "config.yaml"), "data_roots: [/data/dsbench, corpora]\n")
	env := map[string]string{"XDG_CONFIG_HOME": xdg}
	look := Lookup{Dir: root, Getenv: func(k string) string { return env[k] }}
	c, err := Load(look)
	if want := []string{"/data/dsbench", filepath.Join(xdg, "evalmd", "corpora")}; err != nil || !reflect.DeepEqual(c.DataRoots, want) {
		t.Errorf("the user's data_roots: %q, %v; want %q", c.DataRoots, err, want)
	}
	write(t, filepath.Join(ws, "evalmd.yaml"), "models: [mock]\ndata_roots: [/]\n")
	_, err = Load(look.ForSheets(ws))
	if want := filepath.Join(ws, "evalmd.yaml") + ":2: data_roots: a workspace evalmd.yaml (it may have come with sheets) cannot vouch"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a workspace's data_roots: %v, want %q", err, want)
	}
}

// max_cost caps what your runs spend: your own file may set it, a
// workspace file may not (it could lift the cap, or set one you did not
// mean), and it must be a positive number.
func TestMaxCostFromUserOnly(t *testing.T) {
	root := t.TempDir()
	xdg, ws := filepath.Join(root, "xdg"), filepath.Join(root, "ws")
	user := filepath.Join(xdg, "evalmd", "config.yaml")
	env := map[string]string{"XDG_CONFIG_HOME": xdg}
	look := Lookup{Dir: root, Getenv: func(k string) string { return env[k] }}
	for _, tc := range []struct {
		user, workspace string
		want            float64
		err             string
	}{
		{user: "max_cost: 12.5\n", want: 12.5},
		{user: "max_cost: 12.5\n", workspace: "models: [mock]\nmax_cost: 1000\n", err: "evalmd.yaml:2: max_cost: a workspace evalmd.yaml (it may have come with sheets) cannot set what your runs may spend"},
		{user: "models: [mock]\nmax_cost: -3\n", err: "config.yaml:2: max_cost: give a positive number of US dollars"},
		{user: "max_cost: lots\n", err: "config.yaml:1"},
	} {
		write(t, user, tc.user)
		os.Remove(filepath.Join(ws, "evalmd.yaml"))
		at := look
		if tc.workspace != "" {
			write(t, filepath.Join(ws, "evalmd.yaml"), tc.workspace)
			at = look.ForSheets(ws)
		}
		c, err := Load(at)
		switch {
		case tc.err != "":
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q over %q: %v, want %q", tc.workspace, tc.user, err, tc.err)
			}
		case err != nil || c.MaxCost == nil || *c.MaxCost != tc.want:
			t.Errorf("%q: max_cost %v, %v; want %v", tc.user, c.MaxCost, err, tc.want)
		}
	}
}

// Every bad file is one error naming the file and line; a key is never
// accepted and never printed.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"models: [a]\napi_key: sk-secret-123\n", "f.yaml:2: api_key: API keys and other secrets are read from the environment only"},
		{"base_urls:\n  openai: https://x/v1\n  openai_token: abc\n", "f.yaml:3: openai_token"},
		{"judge: sk-abcdef\n", "f.yaml:1: this value looks like an API key"},
		{"concurrency: -1\n", "f.yaml:1: concurrency -1"},
		{"models: [a]\nconcurrency: 0\n", "f.yaml:2: concurrency 0: at least one request must be in flight"},
		{"concurrency: lots\n", `f.yaml:1: concurrency "lots": give a number of requests in flight, or auto`},
		{"concurrency: ''\n", `f.yaml:1: concurrency "": give a number`},
		{"sandbox: chroot\n", `f.yaml:1: sandbox "chroot": is not bwrap, docker or none`},
		{"ceilings:\n  tool_memory: 8G\n  temperature: 2\n", `f.yaml:3: ceilings: temperature has no ceiling`},
		{"ceilings:\n  tool_memory: lots\n", `f.yaml:2: ceilings: tool_memory ceiling "lots" is not a size`},
		{"ceilings: 8G\n", `f.yaml:1: cannot unmarshal`},
		{"modles: [a]\n", "f.yaml:1: unknown member modles (known: models,"},
		{"models: a,b\n", "f.yaml:1: cannot unmarshal"},
		{"models: ['a,b']\n", "models: give one model per list item"},
		{"base_urls:\n  ollama: localhost:11434\n", "f.yaml:2: base_urls: ollama: the URL is not an http(s) URL"},
		{"base_urls:\n  ollama: http://h:1/v1\n  vllm: http://u:sk-live-9@gpu:8000/v1\n", "f.yaml:3: base_urls: vllm: the URL holds a user name or password"},
		{"base_urls:\n  vllm: http://sk-live-9@gpu:8000/v1\n", "f.yaml:2: base_urls: vllm: the URL holds a user name or password"},
		{"base_urls:\n  vllm: http://gpu:8000/v1?key=sk-live-9\n", "f.yaml:2: base_urls: vllm: the URL holds a key in its query string"},
		{"base_urls:\n  azure: https://h/openai?api-version=1&api-key=live9\n", "f.yaml:2: base_urls: azure: the URL holds a key in its query string"},
		{"prices:\n  gpt-4: ten\n", "f.yaml:1: prices: gpt-4:"},
		{"models: [\n", "config f.yaml:"},
	} {
		_, err := Parse("f.yaml", []byte(tc.text))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): %v, want %q", tc.text, err, tc.want)
		}
		if err != nil && (strings.Contains(err.Error(), "sk-") || strings.Contains(err.Error(), "abc\"")) {
			t.Errorf("the error prints the secret: %v", err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add([]byte("models: [openai/gpt-4o]\nconcurrency: 3\nbase_urls: {ollama: 'http://h:1/v1'}\nprices: {m: '1,2'}\n"))
	f.Add([]byte("api_key: x"))
	f.Add([]byte("concurrency: auto\nsandbox: none\nceilings: {tool_memory: 8G, epochs: '40'}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Parse("f.yaml", data)
		if err == nil {
			_ = c.Describe()
		}
	})
}

// concurrency takes what -c takes, auto included, through the one parser
// (it was an int: "auto" drew a Go decoding message).
func TestConcurrency(t *testing.T) {
	for _, text := range []string{"auto", "4", "'12'"} {
		c, err := Parse("f.yaml", []byte("concurrency: "+text+"\n"))
		if err != nil || c.Concurrency != strings.Trim(text, "'") {
			t.Errorf("concurrency: %s: %+v, %v", text, c, err)
			continue
		}
		if _, _, err := ParseConcurrency(c.Concurrency); err != nil {
			t.Errorf("concurrency: %s: %v", text, err)
		}
	}
	if n, auto, err := ParseConcurrency(" auto "); n != 0 || !auto || err != nil {
		t.Errorf("auto: %d %v %v", n, auto, err)
	}
	if n, auto, err := ParseConcurrency("7"); n != 7 || auto || err != nil {
		t.Errorf("7: %d %v %v", n, auto, err)
	}
}

// A workspace evalmd.yaml may have come with a stranger's sheets: it
// cannot choose the sandbox or its image, raise a ceiling, or set a
// setting above its ceiling; the user's own file may do all of these.
func TestWorkspaceIsAStrangers(t *testing.T) {
	root := t.TempDir()
	xdg, ws := filepath.Join(root, "xdg"), filepath.Join(root, "ws")
	look := Lookup{Dir: root, Getenv: env(map[string]string{"XDG_CONFIG_HOME": xdg})}
	wsFile, userFile := filepath.Join(ws, "evalmd.yaml"), filepath.Join(xdg, "evalmd", "config.yaml")
	for _, tc := range []struct {
		name, workspace, user string
		want                  string // the error of Load, else of resolving the files' settings; "" none
	}{
		{"sandbox none", "models: [mock]\nsandbox: none\n", "",
			"config " + wsFile + `:2: sandbox "none": cannot come from a workspace evalmd.yaml (it may have come with the sheets); only your config or --sandbox sets it`},
		{"another image", "sandbox_image: evil/python\n", "", "config " + wsFile + `:1: sandbox_image "evil/python": cannot come from a workspace evalmd.yaml`},
		{"1000G", "tool_memory: 1000G\n", "", "config " + wsFile + `:1: tool_memory "1000G": is over 4G, the most a sheet or a workspace evalmd.yaml may ask`},
		{"a ceiling raised", "ceilings:\n  tool_memory: 1000G\n", "", wsFile + ":1: ceilings: a workspace evalmd.yaml (it may have come with sheets) cannot raise what a sheet may ask"},
		{"1000G under the user's ceiling", "tool_memory: 1000G\n", "ceilings:\n  tool_memory: 1024G\n", ""},
		{"the user's sandbox and memory", "models: [mock]\n", "sandbox: none\nsandbox_image: mine\ntool_memory: 1000G\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write(t, wsFile, tc.workspace)
			write(t, userFile, tc.user)
			c, err := Load(look.ForSheets(ws))
			if err == nil {
				_, err = setting.Resolve("", nil, c.Settings()...)
			}
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
		})
	}
}

// FuzzParseConcurrency: any text is a concurrency of at least 1, auto, or
// one line of error starting with the value; a number read is written
// back to itself.
func FuzzParseConcurrency(f *testing.F) {
	for _, s := range []string{"auto", "4", "0", "-1", " 12 ", "lots", "", "99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		n, auto, err := ParseConcurrency(text)
		switch {
		case err != nil:
			if strings.Contains(err.Error(), "\n") && !strings.Contains(text, "\n") || n != 0 || auto {
				t.Fatalf("%q: %d %v %v", text, n, auto, err)
			}
		case auto:
			if strings.TrimSpace(text) != "auto" || n != 0 {
				t.Fatalf("%q: auto with %d", text, n)
			}
		default:
			if n < 1 {
				t.Fatalf("%q: %d in flight", text, n)
			}
			if m, _, err := ParseConcurrency(strconv.Itoa(n)); err != nil || m != n {
				t.Fatalf("%q: %d written back reads %d, %v", text, n, m, err)
			}
		}
	})
}
