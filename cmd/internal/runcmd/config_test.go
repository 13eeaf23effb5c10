package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/cmd/internal/starter"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/result"
)

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runIn runs the command with config files looked up from dir and the
// environment env only (never the real home): without XDG_CONFIG_HOME or
// HOME in env, the user config folder is testConfigHome.
func runIn(dir string, env map[string]string, args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	getenv := func(k string) string {
		if k == "XDG_CONFIG_HOME" && env["XDG_CONFIG_HOME"] == "" && env["HOME"] == "" {
			return testConfigHome
		}
		return env[k]
	}
	environ := func() []string {
		var kv []string
		for k, v := range env {
			kv = append(kv, k+"="+v)
		}
		return kv
	}
	err = cli.Execute(context.Background(), &o, &e, Command(config.Lookup{Dir: dir, Getenv: getenv}, getenv, environ), args)
	return o.String(), e.String(), err
}

// The config's models, base URLs, prices and concurrency steer a run where
// no flag says otherwise; flags win; -v names the files used.
func TestRunConfig(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
		Reply:        func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "7.50"} },
		InputTokens:  1000000,
		OutputTokens: 1000000,
		MaxRequests:  20,
	})
	root := t.TempDir()
	work := filepath.Join(root, "work")
	xdg := filepath.Join(root, "xdg")
	writeFile(t, filepath.Join(xdg, "evalmd", "config.yaml"), "base_urls:\n  ollama: "+srv.URL+"\nprices:\n  ollama/tiny: 1,2\n")
	writeFile(t, filepath.Join(work, "evalmd.yaml"), "models: [ollama/tiny]\nconcurrency: 1\n")
	env := map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": filepath.Join(root, "home")}
	sheet, err := filepath.Abs("../../../sheets/input-unit-prices-template.md")
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(root, "out")
	sub := filepath.Join(work, "deeper")
	if err := os.MkdirAll(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	stdout, stderr, err := runIn(sub, env, "-f", sheet, "-o", out, "-v")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	want := "config: " + filepath.Join(work, "evalmd.yaml") + ", over " + filepath.Join(xdg, "evalmd", "config.yaml")
	if !strings.Contains(stderr, want) {
		t.Errorf("run -v does not say which files were used (%q):\n%s", want, stderr)
	}
	if len(srv.Calls()) != 3 || srv.MaxInFlight() != 1 {
		t.Errorf("the config's model and base URL: %d calls (want 3), %d in flight (want the config's 1)", len(srv.Calls()), srv.MaxInFlight())
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-*-ollama_tiny-*.json"))
	if len(paths) != 1 || !strings.Contains(stdout, paths[0]) {
		t.Fatalf("outputs %v\n%s", paths, stdout)
	}
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		// 1M tokens in at $1, 1M out at $2: the config's price.
		if q.Cost == nil || *q.Cost != 3 {
			t.Errorf("%s: cost %v, want the config's price (3)", q.Name, q.Cost)
		}
	}
	// A flag wins over the config.
	_, stderr, err = runIn(sub, env, "-f", sheet, "-o", out, "-m", "oracle")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if len(srv.Calls()) != 3 {
		t.Errorf("-m oracle still called the config's model")
	}
	if paths, _ := filepath.Glob(filepath.Join(out, "output-*-oracle-*.json")); len(paths) != 1 {
		t.Errorf("-m oracle wrote %v", paths)
	}
}

// A key in a config file stops the run before anything, naming the file
// and line and not the key.
func TestRunConfigKey(t *testing.T) {
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "evalmd.yaml"), "models: [mock]\nopenai_api_key: sk-live-abc\n")
	_, stderr, err := runIn(work, nil, "-f", "../../../sheets/input-solar-choice.md", "-o", t.TempDir())
	code := cli.Report(&bytes.Buffer{}, "run", err)
	if code != 1 || err == nil || !strings.Contains(err.Error(), filepath.Join(work, "evalmd.yaml")+":2: openai_api_key") {
		t.Errorf("exit %d, error %v\n%s", code, err, stderr)
	}
	if err != nil && strings.Contains(err.Error(), "sk-live") {
		t.Error("the error prints the key")
	}
}

// run --check: providers (a key present, never printed; a local server the
// config names, probed; an openai-api NAME's key without its server), the
// sandbox's state and the config in force.
func TestRunCheck(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "evalmd.yaml"), "models: [ollama/tiny]\nbase_urls:\n  ollama: "+srv.URL+"\n")
	env := map[string]string{"ANTHROPIC_API_KEY": "sk-ant-secret", "TOGETHER_API_KEY": "sk-tog-secret"}
	stdout, stderr, err := runIn(work, env, "--check")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"file " + filepath.Join(work, "evalmd.yaml"), "models: ollama/tiny", "anthropic            ok: ANTHROPIC_API_KEY set",
		"openai               not configured: OPENAI_API_KEY not set", "ollama               ok: reachable at " + srv.URL,
		"openai-api/together  not configured: TOGETHER_API_KEY set but no base URL", "sandbox: "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --check lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout+stderr, "sk-ant") || strings.Contains(stdout+stderr, "sk-tog") {
		t.Error("run --check prints a key")
	}
	if srv.Count() != 1 {
		t.Errorf("the local server was probed %d times, want 1", srv.Count())
	}
}

// The folder convert init writes runs at once, offline: run -d DIR -m mock
// writes an output per sheet, and from inside the folder its evalmd.yaml's
// models (oracle, random) run with no -m, the oracle scoring 100%.
func TestInitFolderRuns(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "evals")
	if _, err := starter.Write(dir, false); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	_, stderr, err := runIn(t.TempDir(), nil, "-d", dir, "-m", "mock", "-o", out)
	if err != nil {
		t.Fatalf("run -d DIR -m mock: %v\n%s", err, stderr)
	}
	if paths, _ := filepath.Glob(filepath.Join(out, "output-first-steps-mock-*.json")); len(paths) != 1 {
		t.Errorf("outputs %v", paths)
	}
	if strings.Contains(stderr, "warning") {
		t.Errorf("the example sheet draws warnings:\n%s", stderr)
	}
	out = t.TempDir()
	_, stderr, err = runIn(dir, nil, "-d", dir, "-o", out)
	if err != nil {
		t.Fatalf("run in the folder: %v\n%s", err, stderr)
	}
	paths, _ := filepath.Glob(filepath.Join(out, "output-first-steps-oracle-*.json"))
	if len(paths) != 1 {
		t.Fatalf("the config's oracle wrote %v", paths)
	}
	f, err := result.Read(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range f.Questions {
		if q.Grade == nil || !*q.Grade {
			t.Errorf("oracle on %s: grade %v (%s)", q.Name, q.Grade, q.GradeDetail)
		}
	}
	if paths, _ := filepath.Glob(filepath.Join(out, "output-first-steps-random-*.json")); len(paths) != 1 {
		t.Errorf("the config's random wrote %v", paths)
	}
}

// The config is found from the sheets: from the parent folder, run -d
// evals (and run -f evals/SHEET) uses evals/evalmd.yaml's models (it said
// "no model", looking up from the current folder only).
func TestRunConfigFromSheets(t *testing.T) {
	parent := t.TempDir()
	evals := filepath.Join(parent, "evals")
	if _, err := starter.Write(evals, false); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{{"-d", evals}, {"-f", filepath.Join(evals, "input-first-steps.md")}} {
		out := t.TempDir()
		_, stderr, err := runIn(parent, nil, append(args, "-o", out, "-v")...)
		if err != nil {
			t.Fatalf("run %q from the parent folder: %v\n%s", args, err, stderr)
		}
		if !strings.Contains(stderr, "config: "+filepath.Join(evals, "evalmd.yaml")) {
			t.Errorf("run %q -v does not name evals/evalmd.yaml:\n%s", args, stderr)
		}
		for _, m := range []string{"oracle", "random"} {
			if paths, _ := filepath.Glob(filepath.Join(out, "output-first-steps-"+m+"-*.json")); len(paths) != 1 {
				t.Errorf("run %q: the config's %s wrote %v", args, m, paths)
			}
		}
	}
}

// The config's judge, on the server its base_urls name, grades a run where
// no --judge is given (the same judgeflag code as grade's, tested there
// member by member).
func TestRunConfigJudge(t *testing.T) {
	judges := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10,
		Reply: func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "Fine.\nGRADE: C"} }})
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "evalmd.yaml"), "judge: openai-api/cfg-judge/big\nbase_urls:\n  cfg-judge: "+judges.URL+"\n")
	_, stderr, err := runIn(work, nil, "-f", writeSheet(t, judgedSheet), "-o", t.TempDir(), "-m", "mock", "--mock-reply", "It is.")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if c := judges.Calls(); len(c) != 2 || c[0].Model != "big" {
		t.Errorf("the config's judge got %d calls (want 2)", len(c))
	}
}

// The config's settings (temperature, max_tokens, ...) are the run's
// defaults, under the sheet's meta and the flags; the reformat model's
// server comes from the config's base_urls as any model's (it read the
// process's environment only).
func TestRunConfigSettings(t *testing.T) {
	needSandbox(t)
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10,
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "the total is 49"} }})
	reformat := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10,
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "@total[49]"} }})
	root := t.TempDir()
	writeFile(t, filepath.Join(root, "evalmd.yaml"), "base_urls:\n  ollama: "+reformat.URL+"\ntemperature: 0.3\nmax_tokens: 70\nmax_turns: 4\n")
	sheet := filepath.Join(root, "input-r.md")
	writeFile(t, sheet, "# R\n\n#### meta\nmode: agent\nreformat: required\nmax_tokens: 80\n\n"+
		"## Total\n\n#### meta\nreformat_question: \"What is the total?\"\nreformat_format: \"@total[v]\"\n\n#### question\nWhat is the total?\n\n#### answer\n@total[49]\n")
	out := filepath.Join(root, "out")
	env := map[string]string{"HOME": filepath.Join(root, "home")}
	_, stderr, err := runIn(root, env, "-f", sheet, "-o", out, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "--reformat", "ollama/fmt")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	calls := srv.Calls()
	if len(calls) != 1 || calls[0].Settings.Temperature == nil || *calls[0].Settings.Temperature != 0.3 ||
		calls[0].Settings.MaxTokens == nil || *calls[0].Settings.MaxTokens != 80 {
		t.Fatalf("calls %+v: want one with the config's temperature 0.3 and the sheet's max_tokens 80", calls)
	}
	if n := len(reformat.Calls()); n != 1 {
		t.Errorf("the reformat model's server (the config's base_urls) had %d calls, want 1", n)
	}
	f := readOnly(t, out)
	if q := f.Questions[0]; q.Answer == nil || *q.Answer != "@total[49]" || q.ReformatModel != "ollama/fmt" {
		t.Errorf("answer %v reformat model %q", q.Answer, q.ReformatModel)
	}
}
