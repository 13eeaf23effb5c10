package gradecmd

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/regrade"
)

// gradeIn runs the command with config files looked up from dir and the
// environment env only (never the real home).
func gradeIn(dir string, env map[string]string, args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	getenv := func(k string) string { return env[k] }
	err = cli.Execute(context.Background(), &o, &e, Command(config.Lookup{Dir: dir, Getenv: getenv}, getenv), args)
	return o.String(), e.String(), err
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// judgedOutput is an output file of two questions graded by the judge,
// both graded wrong, so a judge that says right changes both.
const judgedOutput = `{"sheet": {"name": "Judged", "run_id": "1", "model_name": "m", "meta_data": {"grader": "judge"}, "question": null},
 "questions": [
  {"name": "Q1", "meta_data": {"grader": "judge"}, "ground_truth": "4", "question": "What is 2+2?", "completion": "four",
   "error": null, "model_name": "m", "eval_time": 1, "grade": false},
  {"name": "Q2", "meta_data": {"grader": "judge"}, "ground_truth": "6", "question": "What is 3+3?", "completion": "six",
   "error": null, "model_name": "m", "eval_time": 1, "grade": false}]}
`

// grade takes the judge from the config files as run does (the same
// judgeflag code): the config's judge model, its server from base_urls and
// its key from NAME_API_KEY, with the default max_tokens and template; a
// flag wins over the config member by member, and a judge only the config
// names that has no key is a warning.
func TestGradeConfigJudge(t *testing.T) {
	reply := func(fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: "Right.\nGRADE: C"} }
	cfgSrv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: reply})
	flagSrv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 20, Reply: reply})
	root := t.TempDir()
	work := filepath.Join(root, "work")
	xdg := filepath.Join(root, "xdg")
	// The user's file names the server, the workspace's the judge.
	writeFile(t, filepath.Join(xdg, "evalmd", "config.yaml"), "base_urls:\n  cfg-judge: "+cfgSrv.URL+"\n")
	writeFile(t, filepath.Join(work, "evalmd.yaml"), "judge: openai-api/cfg-judge/big\n")
	env := map[string]string{"XDG_CONFIG_HOME": xdg, "HOME": filepath.Join(root, "home"),
		"CFG_JUDGE_API_KEY": "test-cfg-key", "FLAG_JUDGE_API_KEY": "test-flag-key", "OTHER_KEY": "test-other-key"}
	out := filepath.Join(root, "output-judged-m-1.json")
	writeFile(t, out, judgedOutput)

	type want struct {
		srv       *fakeserver.Server
		model     string
		auth      string
		maxTokens int
		prompt    string // in the judge's user message
	}
	inspect := "Does the submission meet the criterion?"
	for _, tc := range []struct {
		name string
		args []string
		want want
	}{
		{"config", nil, want{cfgSrv, "big", "Bearer test-cfg-key", 1024, inspect}},
		{"flags over config", []string{"--judge", "openai-api/flag-judge/small", "--judge-base-url", flagSrv.URL},
			want{flagSrv, "small", "Bearer test-flag-key", 1024, inspect}},
		{"settings flags with config's judge", []string{"--judge-max-tokens", "50", "--judge-template", "Q {question} A {answer} T {criterion}", "--judge-api-key-env", "OTHER_KEY"},
			want{cfgSrv, "big", "Bearer test-other-key", 50, "Q What is 2+2? A four T 4"}},
		{"flag base URL with config's judge", []string{"--judge-base-url", flagSrv.URL},
			want{flagSrv, "big", "Bearer test-cfg-key", 1024, inspect}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := map[*fakeserver.Server]int{cfgSrv: len(cfgSrv.Calls()), flagSrv: len(flagSrv.Calls())}
			stdout, stderr, err := gradeIn(filepath.Join(work, "deeper"), env, append([]string{"-o", out, "-v"}, tc.args...)...)
			if err != nil {
				t.Fatalf("%v\n%s\n%s", err, stdout, stderr)
			}
			if want := "config: " + filepath.Join(work, "evalmd.yaml") + ", over " + filepath.Join(xdg, "evalmd", "config.yaml"); !strings.Contains(stderr, want) {
				t.Errorf("grade -v does not name the files (%q):\n%s", want, stderr)
			}
			for srv, n := range before {
				got := len(srv.Calls()) - n
				if srv == tc.want.srv && got != 2 || srv != tc.want.srv && got != 0 {
					t.Errorf("server %s got %d judge calls (the judge's server is %s)", srv.URL, got, tc.want.srv.URL)
				}
			}
			calls := tc.want.srv.Calls()[before[tc.want.srv]:]
			for _, c := range calls {
				if c.Model != tc.want.model || c.Header.Get("Authorization") != tc.want.auth {
					t.Errorf("judge asked model %q with auth %q, want %q, %q", c.Model, c.Header.Get("Authorization"), tc.want.model, tc.want.auth)
				}
				if c.Settings.MaxTokens == nil || *c.Settings.MaxTokens != tc.want.maxTokens {
					t.Errorf("judge max_tokens %v, want %d", c.Settings.MaxTokens, tc.want.maxTokens)
				}
			}
			if len(calls) == 0 || !strings.Contains(calls[0].LastUserText()+calls[1].LastUserText(), tc.want.prompt) {
				t.Errorf("the judge's prompt lacks %q", tc.want.prompt)
			}
			if strings.Contains(stdout+stderr, "test-") {
				t.Error("grade prints a key")
			}
		})
	}

	// A config's judge that cannot be built (no server for it): a warning
	// naming the judge, not an error before grading (the questions it
	// grades then say why they are not graded); no server is asked. The
	// same judge named by a flag is an error.
	other := filepath.Join(root, "other")
	writeFile(t, filepath.Join(other, "evalmd.yaml"), "judge: openai-api/nowhere/big\n")
	n := len(cfgSrv.Calls()) + len(flagSrv.Calls())
	_, stderr, err := gradeIn(other, nil, "-o", out)
	if !strings.Contains(stderr, "warning: config's judge: judge model openai-api/nowhere/big") || !strings.Contains(stderr, "NOWHERE_BASE_URL") {
		t.Errorf("no warning for the config's judge without a server:\n%s", stderr)
	}
	if ue := (*regrade.UngradedError)(nil); !errors.As(err, &ue) || len(ue.Questions) != 2 {
		t.Errorf("grade with no judge: %v, want the questions' failure, not the judge's build error", err)
	}
	if len(cfgSrv.Calls())+len(flagSrv.Calls()) != n {
		t.Error("a judge without a server asked one")
	}
	if _, _, err := gradeIn(other, nil, "-o", out, "--judge", "openai-api/nowhere/big"); err == nil || !strings.Contains(err.Error(), "NOWHERE_BASE_URL") {
		t.Errorf("--judge without a server: %v, want an error naming NOWHERE_BASE_URL", err)
	}
}

// grade finds the config as run does: the nearest evalmd.yaml at or above
// the outputs, from any folder, under the same rules (a workspace file
// that would send a key to a server it names is refused).
func TestGradeConfigFromOutputs(t *testing.T) {
	root := t.TempDir()
	evals := filepath.Join(root, "evals")
	results := filepath.Join(evals, "results")
	out := filepath.Join(results, "output-judged-m-1.json")
	writeFile(t, out, judgedOutput)
	workspace := filepath.Join(evals, "evalmd.yaml")
	writeFile(t, workspace, "concurrency: 4\n")
	elsewhere := t.TempDir()
	env := map[string]string{"HOME": filepath.Join(root, "home")}
	for _, args := range [][]string{{"-o", results}, {"-o", out}, {out}} {
		_, stderr, err := gradeIn(elsewhere, env, append([]string{"-v"}, args...)...)
		if err != nil && !strings.Contains(err.Error(), "could not be graded") { // no judge: graded null
			t.Fatalf("grade %q: %v\n%s", args, err, stderr)
		}
		if !strings.Contains(stderr, "config: "+workspace) {
			t.Errorf("grade %q -v from another folder does not name %s:\n%s", args, workspace, stderr)
		}
	}
	// Its servers are not taken at all (TestGradeResultsConfigChoosesNoJudge),
	// so none gets the key.
	writeFile(t, workspace, "base_urls:\n  cfg-judge: http://127.0.0.1:9/\n")
	env["CFG_JUDGE_API_KEY"] = "test-cfg-key"
	_, stderr, err := gradeIn(elsewhere, env, "-o", results, "--judge", "openai-api/cfg-judge/big")
	if err == nil || !strings.Contains(err.Error(), "CFG_JUDGE_BASE_URL") || !strings.Contains(stderr, workspace+":1: base_urls: not taken") {
		t.Errorf("a workspace file found from the outputs gives the judge's server: %v\n%s", err, stderr)
	}
}
