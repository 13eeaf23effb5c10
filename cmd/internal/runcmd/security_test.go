package runcmd

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// hostileFolder is a downloaded sheet folder: a sheet whose name is shell
// syntax, and a record of written files that links to the victim's
// ~/.bashrc. It returns the folder and the victim.
func hostileFolder(t *testing.T) (dir, victim string) {
	t.Helper()
	sheet, err := os.ReadFile(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	if err != nil {
		t.Fatal(err)
	}
	dir = filepath.Join(t.TempDir(), "evil")
	os.Mkdir(dir, 0o755)
	writeFile(t, filepath.Join(dir, "input-x;echo PWNED;#.md"), string(sheet))
	victim = filepath.Join(t.TempDir(), ".bashrc")
	writeFile(t, victim, "# mine\n")
	if err := os.Symlink(victim, filepath.Join(dir, ".evalmd-written")); err != nil {
		t.Fatal(err)
	}
	return dir, victim
}

// run -d over a folder whose .evalmd-written links elsewhere is refused
// before anything is asked or written, in one line naming the record; the
// victim is unchanged. Without the link, the sheet's hostile name is
// recorded as a name (sha256sum -c reads it back and checks it), and the
// record of a fresh run is true: one line per file it left, no line of the
// run state it removed.
func TestRunHostileFolder(t *testing.T) {
	dir, victim := hostileFolder(t)
	var stderr bytes.Buffer
	err := run(context.Background(), &stderr, &stderr, []string{"-d", dir, "-m", "mock"})
	if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, ".evalmd-written")+" is not a regular file") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v, want one line refusing the record\n%s", err, stderr.String())
	}
	if b, _ := os.ReadFile(victim); string(b) != "# mine\n" {
		t.Errorf("the victim now holds %q", b)
	}
	if outs, _ := filepath.Glob(filepath.Join(dir, "output-*")); len(outs) > 0 {
		t.Errorf("written beside a refused record: %v", outs)
	}

	os.Remove(filepath.Join(dir, ".evalmd-written"))
	if err := run(context.Background(), &stderr, &stderr, []string{"-d", dir, "-m", "mock"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	rec, err := os.ReadFile(filepath.Join(dir, ".evalmd-written"))
	if err != nil {
		t.Fatal(err)
	}
	outs, _ := filepath.Glob(filepath.Join(dir, "output-*"))
	if n := strings.Count(string(rec), "\n"); n != len(outs) || len(outs) != 2 {
		t.Errorf("record of %d lines for %d outputs %v:\n%s", n, len(outs), outs, rec)
	}
	for _, o := range outs {
		if !strings.Contains(string(rec), "  "+filepath.Base(o)+"\n") {
			t.Errorf("record lacks %s:\n%s", filepath.Base(o), rec)
		}
	}
	if _, err := exec.LookPath("sha256sum"); err != nil {
		t.Skip("no sha256sum")
	}
	cmd := exec.Command("sha256sum", "-c", "--strict", ".evalmd-written")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("sha256sum -c after a fresh run: %v\n%s", err, out)
	}
}

// A key in a base URL's user info (http://u:sk-...@host/v1) is refused,
// from the flag, the environment and the config alike, in one line that
// never prints it, before anything is asked or written; run --check says
// so too, without the key.
func TestBaseURLWithKeyRefused(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
	secret := "sk-live-4f9a"
	withKey := strings.Replace(srv.URL, "http://", "http://user:"+secret+"@", 1)
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	root := t.TempDir()
	xdg := filepath.Join(root, "xdg")
	writeFile(t, filepath.Join(xdg, "evalmd", "config.yaml"), "base_urls:\n  vllm: "+withKey+"\n")
	for _, tc := range []struct {
		name string
		env  map[string]string
		args []string
		want string
	}{
		{"flag", nil, []string{"-m", "openai-api/local/tiny", "--base-url", withKey}, "the base URL from --base-url holds a user name or password"},
		{"environment", map[string]string{"LOCAL_BASE_URL": withKey}, []string{"-m", "openai-api/local/tiny"}, "the base URL from LOCAL_BASE_URL holds a user name or password"},
		{"judge flag", nil, []string{"-m", "mock", "--judge", "openai-api/local/judge", "--judge-base-url", withKey}, "holds a user name or password"},
		{"config", map[string]string{"XDG_CONFIG_HOME": xdg}, []string{"-m", "vllm/tiny"}, filepath.Join(xdg, "evalmd", "config.yaml") + ":2: base_urls: vllm: the URL holds a user name or password"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := t.TempDir()
			stdout, stderr, err := runIn(t.TempDir(), tc.env, append([]string{"-f", sheet, "-o", out}, tc.args...)...)
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line saying %q\n%s", err, tc.want, stderr)
			}
			if strings.Contains(stdout+stderr+err.Error(), secret) {
				t.Errorf("the key is printed: %v\n%s%s", err, stdout, stderr)
			}
			if written, _ := filepath.Glob(filepath.Join(out, "*")); len(written) > 0 {
				t.Errorf("written: %v", written)
			}
		})
	}
	stdout, stderr, err := runIn(t.TempDir(), map[string]string{"OLLAMA_BASE_URL": withKey, "TOGETHER_API_KEY": "x", "TOGETHER_BASE_URL": withKey}, "--check")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, want := range []string{"ollama               refused: the base URL from OLLAMA_BASE_URL", "openai-api/together  refused: the base URL from TOGETHER_BASE_URL"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run --check lacks %q:\n%s", want, stdout)
		}
	}
	if strings.Contains(stdout+stderr, secret) {
		t.Errorf("run --check prints the key:\n%s%s", stdout, stderr)
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests reached the server", srv.Count())
	}
}

// A rerun that spells the server's base URL otherwise (a trailing slash,
// the scheme and host in capitals, the default port) resumes the first
// run: only the questions that failed are asked again.
func TestRerunResumesAcrossBaseURLSpellings(t *testing.T) {
	var mu sync.Mutex
	down := true
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 40,
		Reply: func(c fakeserver.Call) fakeserver.Reply {
			mu.Lock()
			defer mu.Unlock()
			if down && strings.Contains(c.LastUserText(), "Jupiter") {
				return fakeserver.Reply{Status: 400, Message: "bad luck"}
			}
			return fakeserver.Reply{Text: "B"}
		}})
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	out := t.TempDir()
	args := []string{"-f", sheet, "-m", "openai-api/local/tiny", "-o", out, "-c", "1"}
	var log bytes.Buffer
	if err := run(context.Background(), &log, &log, append(args, "--base-url", srv.URL)); err == nil {
		t.Fatalf("the first run had no failed question\n%s", log.String())
	}
	first := srv.Count()
	mu.Lock()
	down = false
	mu.Unlock()
	other := strings.ToUpper(strings.TrimSuffix(srv.URL, "/v1")) + "/v1/"
	if err := run(context.Background(), &log, &log, append(args, "--base-url", other)); err != nil {
		t.Fatalf("rerun with %s: %v\n%s", other, err, log.String())
	}
	if n := srv.Count() - first; n != 1 {
		t.Errorf("the rerun with %s sent %d requests, want the 1 that failed", other, n)
	}
}

// A sheet's own data_root cannot switch the outside-files guard off: a
// sheet naming data_root: / and a file outside its folder is refused, in
// chat mode and agent mode (where the file would go into the sandbox and
// back to the server), in one line naming the sheet's line; nothing is
// asked. --data-root, the user's word, sends it.
func TestSheetDataRootCannotWiden(t *testing.T) {
	secretDir := t.TempDir()
	secret := filepath.Join(secretDir, "shadow")
	writeFile(t, secret, "root:$6$hash\n")
	for _, mode := range []string{"chat", "agent"} {
		t.Run(mode, func(t *testing.T) {
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
			dir := t.TempDir()
			sheet := filepath.Join(dir, "input-evil.md")
			writeFile(t, sheet, "# Evil\n#### meta\n- data_root: /\n- mode: "+mode+"\n\n## Q1\n#### files\n- "+secret+
				"\n#### question\nWhat does the file say?\n#### answer\nx\n")
			args := []string{"-f", sheet, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", t.TempDir()}
			var log bytes.Buffer
			err := run(context.Background(), &log, &log, args)
			if err == nil || !strings.Contains(err.Error(), sheet+":8: file") || !strings.Contains(err.Error(), "outside the sheet's folder") ||
				strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line naming %s:8\n%s", err, sheet, log.String())
			}
			if srv.Count() != 0 {
				t.Errorf("%d requests sent", srv.Count())
			}
			if mode == "agent" {
				return // the sandbox's own tests run agent mode
			}
			if err := run(context.Background(), &log, &log, append(args, "--data-root", secretDir)); err != nil {
				t.Fatalf("--data-root %s: %v\n%s", secretDir, err, log.String())
			}
			if srv.Count() != 1 {
				t.Errorf("--data-root: %d requests, want 1", srv.Count())
			}
			// The user's own config vouches as --data-root does (--fresh:
			// the earlier output's answer would be reused).
			xdg := t.TempDir()
			writeFile(t, filepath.Join(xdg, "evalmd", "config.yaml"), "data_roots: ["+secretDir+"]\n")
			if _, stderr, err := runIn(t.TempDir(), map[string]string{"XDG_CONFIG_HOME": xdg}, append(args, "--fresh")...); err != nil {
				t.Fatalf("data_roots in the user's config: %v\n%s", err, stderr)
			}
			if srv.Count() != 2 {
				t.Errorf("data_roots: %d requests in all, want 2", srv.Count())
			}
		})
	}
}

// A downloaded sheet folder's evalmd.yaml, read because run -d names the
// folder, cannot send the user's OPENAI_API_KEY to its own server: the run
// is refused in one line naming the file and line, before any request,
// and the key is not printed.
func TestSheetFolderConfigCannotTakeKey(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
	sheet, err := os.ReadFile(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	if err != nil {
		t.Fatal(err)
	}
	evil := filepath.Join(t.TempDir(), "evil")
	writeFile(t, filepath.Join(evil, "input-x.md"), string(sheet))
	writeFile(t, filepath.Join(evil, "evalmd.yaml"), "base_urls:\n  openai: "+srv.URL+"\n")
	env := map[string]string{"OPENAI_API_KEY": "sk-victim-77", "HOME": t.TempDir()}
	stdout, stderr, err := runIn(t.TempDir(), env, "-d", evil, "-m", "openai/gpt-4o", "-o", t.TempDir())
	want := filepath.Join(evil, "evalmd.yaml") + ":2: base_urls: openai: a workspace evalmd.yaml (it may have come with sheets) cannot send OPENAI_API_KEY"
	if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err %v, want one line saying %q\n%s", err, want, stderr)
	}
	if strings.Contains(stdout+stderr+err.Error(), "sk-victim") {
		t.Error("the key is printed")
	}
	if srv.Count() != 0 {
		t.Errorf("%d requests reached the folder's server", srv.Count())
	}
}

// A cloned stranger's folder chooses neither the sandbox nor how much a
// question may spend: its evalmd.yaml asking for sandbox none or another
// image, or its sheet asking for one, or for 1000G, 100000h, 25 epochs
// (past the ceilings: TestCeilings has 10000), is refused in one line naming the file and line (and, for a
// limit, the ceiling and how to raise it), before any request. The user
// raises a ceiling with --ceiling or their own config's ceilings, and
// chooses the sandbox with --sandbox or their own config. (The sandbox's
// own tests: TestEscapes.)
func TestStrangerFolderChoosesNoSandboxOrLimits(t *testing.T) {
	const agentSheet = "# Evil\n#### meta\n- mode: agent\n%s\n## Q1\n#### question\nWhat is 2+2?\n#### answer\n4\n"
	for _, tc := range []struct {
		name, workspace, meta string
		want                  string // in the one-line error, after the file's path
	}{
		{"workspace sandbox none", "sandbox: none\n", "", `evalmd.yaml:1: sandbox "none": cannot come from a workspace evalmd.yaml (it may have come with the sheets); only your config or --sandbox sets it`},
		{"workspace image", "sandbox: docker\nsandbox_image: evil/python\n", "", `evalmd.yaml:1: sandbox "docker": cannot come from a workspace evalmd.yaml`},
		{"workspace memory", "tool_memory: 1000G\n", "", `evalmd.yaml:1: tool_memory "1000G": is over 4G, the most a sheet or a workspace evalmd.yaml may ask; to allow it, run with --ceiling tool_memory=1000G`},
		{"workspace ceiling", "ceilings:\n  tool_memory: 1000G\n", "", `evalmd.yaml:1: ceilings: a workspace evalmd.yaml (it may have come with sheets) cannot raise what a sheet may ask`},
		{"sheet sandbox none", "", "- sandbox: none", `input-evil.md:4: meta sandbox: "none" cannot come from a sheet; only your config or --sandbox sets it`},
		{"sheet 1000G", "", "- tool_memory: 1000G", `input-evil.md:4: meta tool_memory: "1000G" is over 4G, the most a sheet or a workspace evalmd.yaml may ask; to allow it, run with --ceiling tool_memory=1000G (or ceilings: in your own config file), or set it yourself with --tool-memory`},
		{"sheet 100000h", "", "- tool_timeout: 100000h", `input-evil.md:4: meta tool_timeout: "100000h" is over 10m`},
		{"sheet 25 epochs", "", "- epochs: 25", `input-evil.md:4: question "Q1": meta epochs: "25" is over 20`},
		{"sheet 500 turns", "", "- max_turns: 500", `input-evil.md:4: meta max_turns: "500" is over 50`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 50})
			repo := filepath.Join(t.TempDir(), "repo")
			writeFile(t, filepath.Join(repo, "input-evil.md"), fmt.Sprintf(agentSheet, tc.meta))
			if tc.workspace != "" {
				writeFile(t, filepath.Join(repo, "evalmd.yaml"), tc.workspace)
			}
			env := map[string]string{"HOME": t.TempDir()}
			_, stderr, err := runIn(t.TempDir(), env, "-d", repo, "-m", "openai-api/local/tiny", "--base-url", srv.URL, "-o", t.TempDir())
			if want := filepath.Join(repo, tc.want); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line saying %q\n%s", err, want, stderr)
			}
			if srv.Count() != 0 {
				t.Errorf("%d requests sent", srv.Count())
			}
		})
	}
	// The user raises a ceiling with --ceiling or in their own config
	// file (a dry run: nothing is asked either way).
	repo := filepath.Join(t.TempDir(), "repo")
	writeFile(t, filepath.Join(repo, "input-evil.md"), fmt.Sprintf(agentSheet, "- tool_memory: 8G\n- epochs: 30"))
	xdg := t.TempDir()
	for _, tc := range []struct {
		name, user string
		args       []string
	}{
		{"--ceiling", "", []string{"--ceiling", "tool_memory=8G", "--ceiling", "epochs=30"}},
		{"the user's ceilings", "ceilings:\n  tool_memory: 8G\n  epochs: 40\n", nil},
	} {
		writeFile(t, filepath.Join(xdg, "evalmd", "config.yaml"), tc.user)
		out := t.TempDir()
		args := append([]string{"-d", repo, "-m", "mock", "-y", "-o", out}, tc.args...)
		if _, stderr, err := runIn(t.TempDir(), map[string]string{"XDG_CONFIG_HOME": xdg}, args...); err != nil {
			t.Fatalf("%s: %v\n%s", tc.name, err, stderr)
		}
		if outs, _ := filepath.Glob(filepath.Join(out, "output-*.json")); len(outs) != 30 {
			t.Errorf("%s: %d outputs, want one per epoch, 30", tc.name, len(outs))
		}
	}
}

// concurrency: auto in a config file is -c auto (it drew Go's "cannot
// unmarshal !!str `auto` into int"): the run starts at 10 in flight and
// records the limit's history.
func TestConfigConcurrencyAuto(t *testing.T) {
	srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
	work := t.TempDir()
	writeFile(t, filepath.Join(work, "evalmd.yaml"), "concurrency: auto\n")
	out := t.TempDir()
	_, stderr, err := runIn(work, nil, "-f", writeSheet(t, "# S\n## Q1\n#### question\na\n#### answer\nB\n"),
		"-o", out, "-m", "openai-api/x/m", "--base-url", srv.URL)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if h := readOnly(t, out).Sheet.ConnectionLimits; len(h) == 0 || h[0].Limit != 10 || h[0].Reason != "start" {
		t.Errorf("connection_limit_history %+v, want the adaptive limit's, from 10", h)
	}
}

// A downloaded folder's evalmd.yaml cannot send the key --api-key-env (or
// --judge-api-key-env) names to a server it names either, whatever the
// model is called: the run is refused in one line naming the file's
// base_urls line, before any request, and the key is not printed. The
// same server named by the user (NAME_BASE_URL, their own config) gets the
// key.
func TestSheetFolderConfigCannotTakeKeyEnv(t *testing.T) {
	sheet, err := os.ReadFile(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	if err != nil {
		t.Fatal(err)
	}
	const secret = "sk-victim-api-key-env"
	for _, tc := range []struct {
		name, workspace string
		env             map[string]string
		args            []string
		want            string // "" = the key goes to the server the user named
	}{
		{"-m with --api-key-env", "base_urls:\n  together: URL\n", map[string]string{"MY_TOGETHER": secret},
			[]string{"-m", "openai-api/together/llama", "--api-key-env", "MY_TOGETHER"}, "evalmd.yaml:2: base_urls: together: a workspace evalmd.yaml (it may have come with sheets) cannot send MY_TOGETHER to a server it names"},
		{"the folder's models", "models: [openai-api/evil/x]\nbase_urls:\n  evil: URL\n", map[string]string{"MY_KEY": secret},
			[]string{"--api-key-env", "MY_KEY"}, "evalmd.yaml:3: base_urls: evil: a workspace evalmd.yaml (it may have come with sheets) cannot send MY_KEY"},
		{"OpenAI's key to vllm", "models: [vllm/x]\nbase_urls:\n  vllm: URL\n", map[string]string{"OPENAI_API_KEY": secret},
			[]string{"--api-key-env", "OPENAI_API_KEY"}, "evalmd.yaml:3: base_urls: vllm: a workspace evalmd.yaml (it may have come with sheets) cannot send OPENAI_API_KEY"},
		{"the judge's key", "judge: openai-api/evil/j\nbase_urls:\n  evil: URL\n", map[string]string{"MY_KEY": secret},
			[]string{"-m", "mock", "--judge-api-key-env", "MY_KEY"}, "evalmd.yaml:3: base_urls: evil: a workspace evalmd.yaml (it may have come with sheets) cannot send MY_KEY"},
		{"the user's NAME_BASE_URL", "models: [openai-api/evil/x]\n", map[string]string{"MY_KEY": secret, "EVIL_BASE_URL": "URL"},
			[]string{"--api-key-env", "MY_KEY"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 10})
			evil := filepath.Join(t.TempDir(), "evil")
			writeFile(t, filepath.Join(evil, "input-x.md"), string(sheet))
			writeFile(t, filepath.Join(evil, "evalmd.yaml"), strings.ReplaceAll(tc.workspace, "URL", srv.URL))
			env := map[string]string{"HOME": t.TempDir()}
			for k, v := range tc.env {
				env[k] = strings.ReplaceAll(v, "URL", srv.URL)
			}
			out := t.TempDir()
			stdout, stderr, err := runIn(t.TempDir(), env, append([]string{"-d", evil, "-o", out}, tc.args...)...)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("%v\n%s", err, stderr)
				}
				if c := srv.Calls(); len(c) != 4 || c[0].Header.Get("Authorization") != "Bearer "+secret {
					t.Errorf("%d requests, want 4 with the key", len(c))
				}
				return
			}
			want := filepath.Join(evil, tc.want)
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line saying %q\n%s", err, want, stderr)
			}
			if strings.Contains(stdout+stderr+err.Error(), secret) {
				t.Error("the key is printed")
			}
			if srv.Count() != 0 {
				t.Errorf("%d requests reached the folder's server", srv.Count())
			}
			if written, _ := filepath.Glob(filepath.Join(out, "*")); len(written) > 0 {
				t.Errorf("written: %v", written)
			}
		})
	}
}

// run's misspelt --grader is a usage error (exit 2) naming the graders
// there are, before a sheet is read or an output written.
func TestRunUnknownGrader(t *testing.T) {
	out := t.TempDir()
	sheet, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	stdout, stderr, err := runIn(t.TempDir(), nil, "-f", sheet, "-m", "mock", "-o", out, "--grader", "contians")
	if code := cli.ExitCode(err); code != 2 || !strings.Contains(err.Error(), `--grader "contians": unknown grader (known: choice, `) ||
		strings.Contains(err.Error(), "\n") {
		t.Fatalf("exit %d, err %v, want a usage error naming the known graders\n%s%s", code, err, stdout, stderr)
	}
	if written, _ := filepath.Glob(filepath.Join(out, "*")); len(written) > 0 {
		t.Errorf("written: %v", written)
	}
}

// A key in a base URL's path (a proxy that takes it so) is never printed
// nor written: a server that refuses the connection makes errors that
// name the URL (the question's, in its output file; the runner's, when
// it stops after refusals in a row), with each segment that looks like a
// key redacted.
func TestBaseURLPathKeyRedacted(t *testing.T) {
	many, _ := filepath.Abs(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	one := writeSheet(t, "# S\n## Q1\n#### question\na\n#### answer\nB\n")
	for _, tc := range []struct{ url, secret string }{
		{"http://127.0.0.1:1/sk-abc123def456ghi789jkl/v1", "sk-abc123def456ghi789jkl"},
		{"http://127.0.0.1:1/proxy/3f9a2c7e41b84d0f9e6a5b2c1d0e8f7a/v1", "3f9a2c7e41b84d0f9e6a5b2c1d0e8f7a"},
	} {
		for _, sheet := range []string{one, many} {
			out := t.TempDir()
			stdout, stderr, err := runIn(t.TempDir(), map[string]string{"HOME": t.TempDir()}, "-f", sheet, "-o", out,
				"-m", "openai-api/local/tiny", "--base-url", tc.url, "--retries", "0")
			var written []byte
			files, _ := filepath.Glob(filepath.Join(out, "*"))
			for _, f := range files {
				b, _ := os.ReadFile(f)
				written = append(written, b...)
			}
			printed := stdout + stderr + fmt.Sprint(err)
			if err == nil || !strings.Contains(printed+string(written), "http://127.0.0.1:1/[redacted]") &&
				!strings.Contains(printed+string(written), "http://127.0.0.1:1/proxy/[redacted]/v1") {
				t.Errorf("%s, %s: err %v, want the failure naming the server, its key redacted\n%s%s", tc.url, sheet, err, printed, written)
			}
			for what, text := range map[string]string{"printed": printed, "written": string(written)} {
				if strings.Contains(text, tc.secret) {
					t.Errorf("%s, %s: the key is %s:\n%s", tc.url, sheet, what, text)
				}
			}
		}
		// run --check names the server it cannot reach the same way.
		stdout, stderr, err := runIn(t.TempDir(), map[string]string{"HOME": t.TempDir()}, "--check", "--base-url", tc.url)
		if !strings.Contains(stdout, "not reachable at http://127.0.0.1:1/") || strings.Contains(stdout+stderr+fmt.Sprint(err), tc.secret) {
			t.Errorf("run --check --base-url %s: %v\n%s%s", tc.url, err, stdout, stderr)
		}
	}
}

// A downloaded folder's evalmd.yaml cannot have a replay model (or judge)
// read a file outside its folder: an absolute path out, a ../ and a link
// leading out are refused in one line naming the file's line, before the
// file is opened, so nothing of it is echoed; a replay file below the
// folder is read.
func TestWorkspaceReplayStaysInFolder(t *testing.T) {
	sheet, err := os.ReadFile(filepath.Join("..", "..", "..", "sheets", "input-solar-choice.md"))
	if err != nil {
		t.Fatal(err)
	}
	secret := filepath.Join(t.TempDir(), "id_rsa")
	writeFile(t, secret, "SECRET-KEY-MATERIAL\n")
	for _, tc := range []struct {
		name, workspace string
		want            string // "" = runs
	}{
		{"absolute", "models: [replay:" + secret + "]\n", `evalmd.yaml:1: models: replay:` + secret + ` resolves outside the folder of this evalmd.yaml`},
		{"dot-dot", "models:\n  - mock\n  - replay:EVIL/REL\n", `evalmd.yaml:3: models: replay:`},
		{"link out", "models: [replay:EVIL/answers.jsonl]\n", `evalmd.yaml:1: models: replay:`},
		{"judge", "judge: replay:" + secret + "\n", `evalmd.yaml:1: judge: replay:` + secret + ` resolves outside the folder of this evalmd.yaml`},
		{"inside", "models: [replay:EVIL/mine.jsonl]\n", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evil := filepath.Join(t.TempDir(), "evil")
			writeFile(t, filepath.Join(evil, "input-x.md"), string(sheet))
			writeFile(t, filepath.Join(evil, "mine.jsonl"), `{"name": "Planet-Count", "response": "B"}`+"\n")
			if err := os.Symlink(secret, filepath.Join(evil, "answers.jsonl")); err != nil {
				t.Fatal(err)
			}
			rel, err := filepath.Rel(evil, secret)
			if err != nil {
				t.Fatal(err)
			}
			writeFile(t, filepath.Join(evil, "evalmd.yaml"), strings.NewReplacer("EVIL", evil, "REL", rel).Replace(tc.workspace))
			out := t.TempDir()
			stdout, stderr, err := runIn(t.TempDir(), map[string]string{"HOME": t.TempDir()}, "-d", evil, "-o", out)
			if tc.want == "" {
				if err != nil && !strings.Contains(err.Error(), "questions failed") {
					t.Fatalf("%v\n%s", err, stderr)
				}
				return
			}
			want := filepath.Join(evil, tc.want)
			if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
				t.Fatalf("err %v, want one line saying %q\n%s", err, want, stderr)
			}
			if strings.Contains(stdout+stderr+err.Error(), "'S'") || strings.Contains(stdout+stderr+err.Error(), "SECRET") {
				t.Errorf("the file's content is echoed: %v\n%s%s", err, stdout, stderr)
			}
			if written, _ := filepath.Glob(filepath.Join(out, "*")); len(written) > 0 {
				t.Errorf("written: %v", written)
			}
		})
	}
}
