package evalmdcmd

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/junit"
)

// TestEvalmdProcess is not a test: TestCIWorkflow puts on the PATH an
// evalmd that runs the test binary again with EVALMD_CI_HELPER=1, and this
// runs the command with the arguments after "--", as main does.
func TestEvalmdProcess(t *testing.T) {
	if os.Getenv("EVALMD_CI_HELPER") != "1" {
		t.Skip("the evalmd of TestCIWorkflow's steps")
	}
	os.Args = append([]string{"evalmd"}, flag.Args()...)
	cli.Main(Command(System()))
}

// ghWorkflow is what the test reads of a GitHub Actions workflow.
type ghWorkflow struct {
	Jobs map[string]struct {
		Env   map[string]string
		Steps []ghStep
	}
}

type ghStep struct {
	Name, Uses, Run, If string
	With, Env           map[string]string
}

// yamlBlocks are the ```yaml blocks of docs/ci.md.
func yamlBlocks(t *testing.T) []string {
	t.Helper()
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "ci.md"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		out = append(out, m[1])
	}
	return out
}

// ciRun is one run of the workflow: the event, the expressions' values,
// and where things go.
type ciRun struct {
	t         *testing.T
	event     string // push or pull_request
	ref       string
	sha       string
	root      string            // the test's folder: repo/, bin/, cache/
	work      string            // the run's checkout
	cache     *[]cacheEntry     // shared by the runs, oldest first
	expr      map[string]string // ${{ ... }} values
	failed    bool
	exits     map[string]int    // step name: exit status
	outputs   map[string]string // step name: stdout and stderr
	summaries map[string]string // step name: what it appended to GITHUB_STEP_SUMMARY
}

type cacheEntry struct{ key, dir string }

// expand replaces the ${{ ... }} expressions of s by their values; one the
// test does not know fails it, so the workflow cannot use one unseen.
func (r *ciRun) expand(s string) string {
	return regexp.MustCompile(`\$\{\{\s*(.*?)\s*\}\}`).ReplaceAllStringFunc(s, func(m string) string {
		e := regexp.MustCompile(`^\$\{\{\s*|\s*\}\}$`).ReplaceAllString(m, "")
		v, ok := r.expr[e]
		if !ok {
			r.t.Fatalf("docs/ci.md: the workflow uses ${{ %s }}, which TestCIWorkflow does not know", e)
		}
		return v
	})
}

// runs says whether a step with condition cond runs: the conditions the
// workflow uses (always(), success(), failure(), the event, the ref),
// joined by &&; without always() or failure(), not after a failure.
func (r *ciRun) runs(cond string) bool {
	if cond == "" {
		return !r.failed
	}
	ok, anyway := true, false
	for _, term := range strings.Split(cond, "&&") {
		term = strings.TrimSpace(term)
		switch {
		case term == "always()":
			anyway = true
		case term == "success()":
			ok = ok && !r.failed
		case term == "failure()":
			anyway, ok = true, ok && r.failed
		case strings.HasPrefix(term, "github.event_name == "):
			ok = ok && term == "github.event_name == '"+r.event+"'"
		case strings.HasPrefix(term, "github.ref == "):
			ok = ok && term == "github.ref == '"+r.ref+"'"
		default:
			r.t.Fatalf("docs/ci.md: the condition %q has a term TestCIWorkflow does not know: %q", cond, term)
		}
	}
	return ok && (anyway || !r.failed)
}

// env is a step's environment: no variable of the test's own, the job's
// and the step's (expanded; MODELS the offline models), and the runner's:
// each run's a fresh machine, as GitHub's hosted runners are, with a home
// of its own (where evalmd keeps the key it seals its outputs with).
func (r *ciRun) env(job, step map[string]string, name string) []string {
	home := filepath.Join(r.root, "home-"+r.sha)
	vars := map[string]string{"PATH": filepath.Join(r.root, "bin") + ":/usr/local/bin:/usr/bin:/bin",
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
		"GITHUB_STEP_SUMMARY": r.summaryFile(name), "FAKE_GH_LOG": filepath.Join(r.root, "gh-"+r.sha)}
	for _, m := range []map[string]string{job, step} {
		for k, v := range m {
			vars[k] = r.expand(v)
		}
	}
	if _, ok := job["MODELS"]; !ok {
		r.t.Fatal("docs/ci.md: the workflow's job names its models in no MODELS variable, which TestCIWorkflow sets to offline ones")
	}
	vars["MODELS"] = "oracle,replay:evals/answers.jsonl"
	var out []string
	for k, v := range vars {
		out = append(out, k+"="+v)
	}
	return out
}

func (r *ciRun) summaryFile(step string) string {
	return filepath.Join(r.root, "summary-"+r.sha+"-"+regexp.MustCompile(`\W+`).ReplaceAllString(step, "_"))
}

// step runs one step of the job (whose environment is job).
func (r *ciRun) step(s ghStep, job map[string]string) {
	t := r.t
	name := s.Name
	if name == "" {
		name = s.Uses
	}
	if !r.runs(s.If) {
		return
	}
	if s.Uses != "" {
		r.action(s)
		r.exits[name] = 0
		return
	}
	if pkg, ok := strings.CutPrefix(s.Run, "go install "); ok {
		// The test's evalmd is on the PATH: this installs the same command.
		if !strings.HasPrefix(pkg, "github.com/evalmd/evalmd/cmd/evalmd@") {
			t.Fatalf("docs/ci.md installs %q, not evalmd", pkg)
		}
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", s.Run)
	cmd.Dir, cmd.Env = r.work, r.env(job, s.Env, name)
	before, _ := os.ReadFile(r.summaryFile(name))
	out, err := cmd.CombinedOutput()
	after, _ := os.ReadFile(r.summaryFile(name))
	r.outputs[name], r.summaries[name] = string(out), strings.TrimPrefix(string(after), string(before))
	code := 0
	if err != nil {
		var ee *exec.ExitError
		if !errors.As(err, &ee) {
			t.Fatalf("step %q: %v", name, err)
		}
		code = ee.ExitCode()
		r.failed = true
	}
	r.exits[name] = code
	t.Logf("%s: step %q: exit %d\n%s", r.event, name, code, out)
}

// action does what a `uses:` step does, offline: the checkout copies the
// repository, the caches save and restore folders under keys, the upload
// checks its files are there; setup-go has nothing to do.
func (r *ciRun) action(s ghStep) {
	t := r.t
	with := map[string]string{}
	for k, v := range s.With {
		with[k] = r.expand(v)
	}
	action, _, _ := strings.Cut(s.Uses, "@")
	switch action {
	case "actions/checkout":
		copyDir(t, filepath.Join(r.root, "repo"), r.work)
	case "actions/setup-go":
	case "actions/cache/restore":
		if dir := r.restore(with["key"], strings.Fields(with["restore-keys"])); dir != "" {
			copyDir(t, dir, filepath.Join(r.work, with["path"]))
		}
	case "actions/cache/save":
		for _, e := range *r.cache {
			if e.key == with["key"] {
				return // a cache entry is never overwritten
			}
		}
		dir := filepath.Join(r.root, "cache", fmt.Sprint(len(*r.cache)))
		copyDir(t, filepath.Join(r.work, with["path"]), dir)
		*r.cache = append(*r.cache, cacheEntry{with["key"], dir})
	case "actions/upload-artifact":
		for _, p := range strings.Fields(with["path"]) {
			if _, err := os.Stat(filepath.Join(r.work, p)); err != nil {
				t.Errorf("%s: the artifact's %s: %v", r.event, p, err)
			}
		}
	default:
		t.Fatalf("docs/ci.md uses %s, which TestCIWorkflow does not simulate", s.Uses)
	}
}

// restore is the folder cached under key, else the newest whose key
// starts with one of prefixes, else "".
func (r *ciRun) restore(key string, prefixes []string) string {
	for _, e := range *r.cache {
		if e.key == key {
			return e.dir
		}
	}
	for _, p := range prefixes {
		for i := len(*r.cache) - 1; i >= 0; i-- {
			if e := (*r.cache)[i]; strings.HasPrefix(e.key, p) {
				return e.dir
			}
		}
	}
	return ""
}

// copyDir copies the folder src to dst, as cp -R does.
func copyDir(t *testing.T, src, dst string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("cp", "-R", src, dst).CombinedOutput(); err != nil {
		t.Fatalf("cp -R %s %s: %v\n%s", src, dst, err, out)
	}
}

// writeRepo writes the repository the workflow checks out: a sheet of 12
// questions (Q<i>: i times 7) under evals/, the first truth spelled
// truth1, and the replayed model's answers, those in wrong wrong.
func writeRepo(t *testing.T, dir, truth1 string, wrong ...int) {
	t.Helper()
	var sheet strings.Builder
	sheet.WriteString("# Arith\n#### meta\n- grader: exact\n\n")
	var answers strings.Builder
	for i := 1; i <= 12; i++ {
		truth := fmt.Sprint(i * 7)
		if i == 1 {
			truth = truth1
		}
		fmt.Fprintf(&sheet, "## Q%d\n#### answer\n%s<EVAL-ENDCHAR>\n#### question\nWhat is %d times 7?\n<EVAL-ENDCHAR>\n\n", i, truth, i)
		reply := fmt.Sprint(i * 7)
		if slices.Contains(wrong, i) {
			reply = "I do not know"
		}
		line, _ := json.Marshal(map[string]string{"name": fmt.Sprintf("Q%d", i), "response": reply})
		answers.Write(append(line, '\n'))
	}
	for name, data := range map[string]string{"input-arith.md": sheet.String(), "answers.jsonl": answers.String()} {
		if err := os.MkdirAll(filepath.Join(dir, "evals"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "evals", name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// writeBin puts on the PATH the evalmd under test (this test binary, run
// as TestEvalmdProcess) and a gh that records what it was asked to post.
func writeBin(t *testing.T, dir string) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	scripts := map[string]string{
		"evalmd": fmt.Sprintf("#!/bin/sh\nEVALMD_CI_HELPER=1 exec '%s' -test.run='^TestEvalmdProcess$' -- \"$@\"\n", exe),
		"gh": "#!/bin/sh\necho \"$@\" >> \"$FAKE_GH_LOG\"\n" +
			"while [ $# -gt 0 ]; do [ \"$1\" = --body-file ] && cp \"$2\" \"$FAKE_GH_LOG.body\"; shift; done; exit 0\n",
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for name, s := range scripts {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// githubWorkflow is the GitHub Actions workflow of docs/ci.md and its job.
func githubWorkflow(t *testing.T) (steps []ghStep, env map[string]string) {
	t.Helper()
	for _, b := range yamlBlocks(t) {
		var wf ghWorkflow
		if err := yaml.Unmarshal([]byte(b), &wf); err != nil || len(wf.Jobs) == 0 {
			continue
		}
		if len(wf.Jobs) != 1 {
			t.Fatalf("docs/ci.md: the workflow has %d jobs; TestCIWorkflow runs one", len(wf.Jobs))
		}
		for _, j := range wf.Jobs {
			return j.Steps, j.Env
		}
	}
	t.Fatal("docs/ci.md holds no GitHub Actions workflow (a yaml block with jobs:)")
	return nil, nil
}

// stepOf is the name of the step whose command starts with prefix.
func stepOf(t *testing.T, steps []ghStep, prefix string) string {
	t.Helper()
	for _, s := range steps {
		if strings.HasPrefix(s.Run, prefix) {
			return s.Name
		}
	}
	t.Fatalf("docs/ci.md: no step of the workflow runs %q", prefix)
	return ""
}

// The GitHub Actions workflow of docs/ci.md, taken from the page so that
// the page cannot drift, runs as written, step by step in order, offline
// (the models oracle and a replay file; the caches, gh and the artifact
// upload simulated; bash as on GitHub's runners, each run a fresh one): a
// push to main asks every question, passes and saves the results; a pull
// request that changes nothing asks 0 questions (it vouches for main's
// results, which another runner wrote), passes and comments; a pull request
// that corrects one ground truth and makes the replayed model worse on 7
// questions fails the gate (exit status 4), its comment and step summary
// naming the flipped questions and the question whose truth changed, and
// its JUnit XML valid.
func TestCIWorkflow(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the workflow's steps are bash scripts, run on GitHub's ubuntu runners")
	}
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash, which runs the workflow's steps, is not installed")
	}
	steps, jobEnv := githubWorkflow(t)
	gate, runStep := stepOf(t, steps, "evalmd agg "), stepOf(t, steps, "evalmd run ")
	root := t.TempDir()
	writeBin(t, filepath.Join(root, "bin"))
	writeRepo(t, filepath.Join(root, "repo"), "7")
	var cache []cacheEntry
	run := func(n int, event, ref string) *ciRun {
		sha := fmt.Sprintf("sha%d", n)
		r := &ciRun{t: t, event: event, ref: ref, sha: sha, root: root, work: filepath.Join(root, "work"+sha), cache: &cache,
			exits: map[string]int{}, outputs: map[string]string{}, summaries: map[string]string{},
			expr: map[string]string{"secrets.OPENAI_API_KEY": "", "github.server_url": "https://github.example", "github.repository": "o/r",
				"github.run_id": fmt.Sprint(100 + n), "github.sha": sha, "github.token": "t", "github.event.pull_request.number": "7"}}
		for _, s := range steps {
			r.step(s, jobEnv)
		}
		return r
	}

	r := run(1, "push", "refs/heads/main")
	if r.failed || r.exits[gate] != 0 || len(cache) != 1 || !strings.Contains(r.outputs[gate], "every model is new") {
		t.Fatalf("main's first run: failed %v, gate exit %d, %d cache entries; want a pass and the results saved\n%s", r.failed, r.exits[gate], len(cache), r.outputs[gate])
	}

	r = run(2, "pull_request", "refs/pull/7/merge")
	posted, _ := os.ReadFile(filepath.Join(root, "gh-sha2.body"))
	if r.failed || r.exits[gate] != 0 || strings.Count(r.outputs[runStep], "(0 asked, 12 reused)") != 2 ||
		!strings.Contains(string(posted), "**Gate passed**") || !strings.Contains(r.summaries[gate], "**Gate passed**") || len(cache) != 1 {
		t.Fatalf("a pull request changing nothing: failed %v, gate exit %d; want 0 asked, a pass, a comment and a step summary, the cache left alone\n%s\ncomment:\n%s", r.failed, r.exits[gate], r.outputs[runStep], posted)
	}
	if log, _ := os.ReadFile(filepath.Join(root, "gh-sha2")); !strings.Contains(string(log), "pr comment 7 --edit-last --create-if-none --body-file comment.md") {
		t.Errorf("gh was asked %q", log)
	}

	writeRepo(t, filepath.Join(root, "repo"), "seven", 2, 3, 4, 5, 6, 7, 8)
	r = run(3, "pull_request", "refs/pull/7/merge")
	posted, _ = os.ReadFile(filepath.Join(root, "gh-sha3.body"))
	if !r.failed || r.exits[gate] != cli.ExitCode(&cli.GateError{}) || r.exits[gate] != 4 {
		t.Fatalf("a pull request making a model worse: gate exit %d, want 4\n%s", r.exits[gate], r.outputs[gate])
	}
	for _, want := range []string{"**Gate failed**: replay:evals/answers.jsonl is significantly worse than the baseline: accuracy 1.000 -> 0.364 on 11 questions",
		"| replay:evals/answers.jsonl | Arith | Q2       | worse  | right  | wrong |", "| replay:evals/answers.jsonl | Arith | Q8       | worse  | right  | wrong |",
		"| oracle                     | Arith | Q1       | ground truth changed |", "| oracle                     |        11 |  1.000 | 1.000 |"} {
		if !strings.Contains(string(posted), want) || !strings.Contains(r.summaries[gate], want) {
			t.Errorf("the comment or the step summary lacks %q:\ncomment:\n%s\nsummary:\n%s", want, posted, r.summaries[gate])
		}
	}
	if !strings.Contains(r.outputs[runStep], "(1 asked, 11 reused)") || !strings.Contains(r.outputs[runStep], "(8 asked, 4 reused)") {
		t.Errorf("the run asked more than what changed (oracle: Q1, replay: Q1..Q8):\n%s", r.outputs[runStep])
	}
	data, err := os.ReadFile(filepath.Join(r.work, "junit.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := junit.Check(data); err != nil || strings.Count(string(data), "<failure ") != 8 {
		t.Errorf("junit.xml (%v): want valid, 8 failures (the replayed model's Q1..Q8)\n%s", err, data)
	}
}

// The GitLab job of docs/ci.md runs the GitHub workflow's commands, in
// the same order, with the same flags (its report's address aside), so
// that what TestCIWorkflow runs is what both pages say.
func TestCIGitLabJobMatches(t *testing.T) {
	steps, _ := githubWorkflow(t)
	url := regexp.MustCompile(` --report-url "[^"]*"`)
	var github []string
	for _, s := range steps {
		for _, line := range strings.Split(strings.TrimSpace(s.Run), "\n") {
			if line != "" && !strings.HasPrefix(line, "go install ") && !strings.HasPrefix(line, "gh ") {
				github = append(github, url.ReplaceAllString(line, ` --report-url URL`))
			}
		}
	}
	var gitlab []string
	found := false
	for _, b := range yamlBlocks(t) {
		var jobs map[string]struct{ Script []string }
		if yaml.Unmarshal([]byte(b), &jobs) != nil || jobs[".evals"].Script == nil {
			continue
		}
		found = true
		for _, line := range jobs[".evals"].Script {
			if !strings.HasPrefix(line, "go install ") && !strings.HasPrefix(line, "export PATH=") {
				gitlab = append(gitlab, url.ReplaceAllString(line, ` --report-url URL`))
			}
		}
	}
	if !found {
		t.Fatal("docs/ci.md holds no GitLab job (a yaml block with a .evals template and its script)")
	}
	if !slices.Equal(github, gitlab) || len(github) < 5 {
		t.Errorf("the GitLab job runs\n%s\nthe GitHub workflow\n%s", strings.Join(gitlab, "\n"), strings.Join(github, "\n"))
	}
}
