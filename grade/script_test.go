package grade

import (
	"context"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/sandbox"
)

var (
	scriptSandboxOnce sync.Once
	scriptSandboxErr  error
)

// needScriptSandbox skips a test when bubblewrap or Debian's Python is
// missing, saying what to install, or fails it under
// EVALMD_REQUIRE_SHARED=1 (shared.Missing), as the sandbox's tests do.
func needScriptSandbox(t *testing.T) {
	t.Helper()
	scriptSandboxOnce.Do(func() {
		_, scriptSandboxErr = sandbox.Check(context.Background(), sandbox.Config{Preload: []string{}, Environ: []string{}})
	})
	if scriptSandboxErr != nil {
		shared.Missing(t, "script grader: no sandbox here (bwrap, python3): "+scriptSandboxErr.Error())
	}
}

// sandboxScripts runs the tests' scripts as run does, with no host
// variable passed in.
var sandboxScripts = sandbox.Config{Environ: []string{}}.RunScript

// writeScript writes a grader script into dir, world-readable as a sheet's
// files are (the sandbox's host user must read it).
func writeScript(t *testing.T, dir, name, text string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), mode); err != nil {
		t.Fatal(err)
	}
}

// scriptHead reads the question from stdin; verdict(ok, msg) prints one.
const scriptHead = `import json, sys
q = json.load(sys.stdin)
def verdict(ok, msg):
    print(json.dumps({"correct": ok, "message": msg}))
`

func TestScriptGrader(t *testing.T) {
	needScriptSandbox(t)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	writeScript(t, dir, "same.py", scriptHead+`print("debug: comparing", file=sys.stderr)
print("a line before the verdict")
ok = q["answer"].strip().lower() == q["truth"].strip().lower()
verdict(ok, "answer %r, truth %r, meta %s, question %r" % (q["answer"], q["truth"], q["meta"]["grader"], q["question"]))
`, 0o644)
	writeScript(t, dir, "no.sh", "#!/bin/sh\ncat >/dev/null\necho '{\"correct\": false, \"message\": \"sh  says  no\"}'\n", 0o755)
	writeScript(t, dir, "null.py", scriptHead+`verdict(None, "cannot tell")`, 0o644)
	writeScript(t, dir, "fails.py", scriptHead+`raise SystemExit("truth unreadable")`, 0o644)
	writeScript(t, dir, "mute.py", scriptHead+`print("right, I think")`, 0o644)
	writeScript(t, dir, "long.py", scriptHead+`verdict(True, "x" * 5000)`, 0o644)
	writeScript(t, dir, "uni.py", scriptHead+`verdict(q["answer"] == "Pärïs 🙂", q["answer"] + " <&>")`, 0o644)
	for _, tc := range []struct {
		script, answer string
		want           string // limeFmtBool of the verdict
		detail, err    string
	}{
		{"same.py", " PARIS ", "true", `script: answer ' PARIS ', truth 'Paris', meta script, question 'Capital?'`, ""},
		{"same.py", "Lyon", "false", "script: answer 'Lyon'", ""},
		{"no.sh", "Paris", "false", "script: sh says no", ""},
		{"null.py", "Paris", "null", "script: cannot tell", ""},
		{"long.py", "Paris", "true", "script: " + strings.Repeat("x", 497) + "...", ""},
		{"uni.py", "Pärïs 🙂", "true", "script: Pärïs 🙂 <&>", ""},
		{"fails.py", "Paris", "null", "", "script fails.py: exit status 1: truth unreadable"},
		{"mute.py", "Paris", "null", "", `script mute.py: printed no {"correct": ..., "message": ...} verdict: "right, I think"`},
	} {
		t.Run(tc.script+"/"+tc.answer, func(t *testing.T) {
			in := Input{Completion: tc.answer, Truth: "Paris", QuestionText: "Capital?", Question: "Capital?", SheetDir: dir,
				Meta: map[string]string{"grader": "script", "script": tc.script}}
			if err := (script{run: sandboxScripts}).Check(in); err != nil {
				t.Fatalf("Check: %v", err)
			}
			v, err := script{run: sandboxScripts}.Grade(t.Context(), in)
			if limeFmtBool(v.Correct) != tc.want || !strings.HasPrefix(v.Detail, tc.detail) || errText(err) != tc.err {
				t.Errorf("Grade = %s %q (%v), want %s %q (%q)", limeFmtBool(v.Correct), v.Detail, err, tc.want, tc.detail, tc.err)
			}
		})
	}
}

func TestScriptCheck(t *testing.T) {
	dir := t.TempDir()
	sheets := filepath.Join(dir, "sheets")
	os.Mkdir(sheets, 0o755)
	writeScript(t, sheets, "g.py", "", 0o644)
	writeScript(t, sheets, "data.txt", "", 0o644)
	writeScript(t, dir, "outside.py", "", 0o644)
	os.Symlink(filepath.Join(dir, "outside.py"), filepath.Join(sheets, "link.py"))
	os.Mkdir(filepath.Join(sheets, "sub.py"), 0o755)
	for _, tc := range []struct {
		meta map[string]string
		want string
	}{
		{map[string]string{"script": "g.py"}, ""},
		{map[string]string{"script": "g.py", "script_timeout": "90", "script_memory": "1G"}, ""},
		{map[string]string{"script": "g.py", "script_timeout": "2m"}, ""},
		{map[string]string{"script": "nope.py"}, "script nope.py: lstat " + filepath.Join(sheets, "nope.py") + ": no such file or directory"},
		{map[string]string{"script": "../outside.py"}, "is outside the sheet's folder"},
		{map[string]string{"script": "link.py"}, "is outside the sheet's folder"},
		{map[string]string{"script": "/etc/passwd"}, "want a path relative to the sheet's folder"},
		{map[string]string{"script": "data.txt"}, "script data.txt: neither a .py file nor executable"},
		{map[string]string{"script": "sub.py"}, "script sub.py: not a regular file"},
		{map[string]string{"script": "g.py", "script_timeout": "1h"}, `script: meta script_timeout "1h" is not a duration from 0 to 10m0s`},
		{map[string]string{"script": "g.py", "script_memory": "lots"}, `script: meta script_memory "lots" is not a size up to 4G`},
	} {
		if err := (script{}).Check(Input{SheetDir: sheets, Meta: map[string]string{"script": "g.py"}}); errText(err) != "script: no sandbox to run it in (this command runs no script)" {
			t.Errorf("Check without a runner: %v", err)
		}
		err := script{run: sandboxScripts}.Check(Input{SheetDir: sheets, Meta: tc.meta})
		if got := errText(err); tc.want == "" && got != "" || !strings.Contains(got, tc.want) {
			t.Errorf("Check(%v) = %q, want %q", tc.meta, got, tc.want)
		}
	}
}

// A sheet may be a stranger's: its script's escape attempts fail inside
// the sandbox, and the host sees nothing of them.
func TestScriptEscapes(t *testing.T) {
	needScriptSandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	var accepted atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	home, _ := os.UserHomeDir()
	secretDir := t.TempDir()
	os.Chmod(secretDir, 0o755)
	secret := filepath.Join(secretDir, "secret.txt")
	writeScript(t, secretDir, "secret.txt", "the host's secret", 0o644)
	dir := t.TempDir()
	os.Chmod(dir, 0o755)
	outside := filepath.Join(dir, "written-by-the-script")

	// Each attempt prints "escaped" when it works, "blocked: ERROR" when
	// it fails.
	attempt := func(code string) string {
		return scriptHead + "try:\n" + code + "\n    verdict(True, 'escaped')\nexcept BaseException as e:\n    verdict(False, 'blocked: %s %s' % (type(e).__name__, e))\n"
	}
	for _, tc := range []struct {
		name, code string
		meta       map[string]string
		err        string // the grader's error, when the sandbox stops the script
	}{
		{"home", fmt.Sprintf("    import os\n    print(os.listdir(%q))", home), nil, ""},
		{"secret", fmt.Sprintf("    print(open(%q).read())", secret), nil, ""},
		{"loopback", fmt.Sprintf("    import socket\n    socket.create_connection(('127.0.0.1', %d), timeout=3)", ln.Addr().(*net.TCPAddr).Port), nil, ""},
		{"write outside", fmt.Sprintf("    open(%q, 'w').write('x')", outside), nil, ""},
		{"write own file", "    open('write_own_file.py', 'a').write('x')", nil, ""},
		{"write /usr", "    open('/usr/evalmd-escape', 'w').write('x')", nil, ""},
		{"8 GiB", "    b = bytearray(8 << 30)", nil, ""},
		{"loop forever", "    while True: pass", map[string]string{"script_timeout": "2"}, "stopped at the tool_timeout limit (2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.ReplaceAll(strings.ReplaceAll(tc.name, " ", "_"), "/", "") + ".py"
			writeScript(t, dir, name, attempt(tc.code), 0o644)
			meta := map[string]string{"script": name}
			for k, v := range tc.meta {
				meta[k] = v
			}
			start := time.Now()
			v, err := script{run: sandboxScripts}.Grade(t.Context(), Input{SheetDir: dir, Truth: "x", Completion: "y", Meta: meta})
			if tc.err != "" {
				if !strings.Contains(errText(err), tc.err) || v.Correct != nil {
					t.Errorf("Grade = %s %q (%v), want the error %q", limeFmtBool(v.Correct), v.Detail, err, tc.err)
				}
				if d := time.Since(start); d > 30*time.Second {
					t.Errorf("stopped after %v", d)
				}
				return
			}
			if err != nil || v.Correct == nil || *v.Correct || !strings.HasPrefix(v.Detail, "script: blocked: ") {
				t.Errorf("Grade = %s %q (%v), want blocked", limeFmtBool(v.Correct), v.Detail, err)
			}
			t.Log(v.Detail)
		})
	}
	if n := accepted.Load(); n != 0 {
		t.Errorf("the host's loopback service accepted %d connections from the sandbox", n)
	}
	if _, err := os.Stat(outside); err == nil {
		t.Errorf("the script wrote %s on the host", outside)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "write_own_file.py")); strings.HasSuffix(string(b), "\nx") || strings.HasSuffix(string(b), ")x") {
		t.Error("the script changed its own file on the host")
	}
}
