package grade

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/evalmd/evalmd/model"
)

// Limits of a script grader's run: the "script_timeout" and
// "script_memory" meta, their defaults and ceilings.
const (
	scriptTimeout    = 60 * time.Second
	scriptMaxTimeout = 10 * time.Minute
	scriptMemory     = 512 << 20
	scriptMaxMemory  = 4 << 30
	// scriptMaxMessage bounds the message recorded, in characters: a
	// grade_detail is a line a person reads.
	scriptMaxMessage = 500
)

// script grades by a program the sheet names in its "script" meta: a
// Python file (run by the sandbox's /usr/bin/python3 -I) or an
// executable, resolved below the sheet's folder (Input.SheetDir; links
// followed, nothing outside). It runs in the sandbox, as model-written
// code does, since a sheet may be a stranger's: no network, no home
// folder, read-only system folders, its own file read-only in its working
// directory, bounded by script_timeout (60 s) and script_memory (512M).
//
// The script reads one JSON object on stdin: question (the question's own
// text), prompt (the user message sent), truth, answer and meta. It
// writes one JSON object on stdout, {"correct": true, "message": "..."}
// (correct false: wrong; null: cannot grade), alone or as its last line;
// anything else it prints goes to stderr. The message is the verdict's
// detail (its white space collapsed, at most 500 characters).
// Options.Scripts runs it; without one, Check refuses every
// question. A script that exits non-zero, prints no verdict or is stopped
// at a limit is the grader's error (a null grade saying why).
type script struct {
	run ScriptRunner
}

func newScript(o Options) Grader { return script{run: o.Scripts} }

// ScriptRunner runs a script grader's program at path, confined, with
// stdin as its standard input and the time and memory limits given, and
// returns its exit code and the tails of its stdout and stderr (16000 and
// 1000 characters); the error says why it did not run or was stopped (a
// limit). sandbox.Config's RunScript is one: the commands pass the run's
// sandbox, so this package links no sandbox (agg links it).
type ScriptRunner func(ctx context.Context, path string, stdin []byte, timeout time.Duration, memory int64) (code int, stdout, stderr string, err error)

// scriptLimits are a script's time and memory limits.
type scriptLimits struct {
	Timeout time.Duration
	Memory  int64
}

// Name is "script".
func (script) Name() string { return "script" }

// scriptInput is what the script reads on stdin.
type scriptInput struct {
	Question string            `json:"question"`
	Prompt   string            `json:"prompt"`
	Truth    string            `json:"truth"`
	Answer   string            `json:"answer"`
	Meta     map[string]string `json:"meta"`
}

// scriptVerdict is what the script writes on stdout.
type scriptVerdict struct {
	Correct *bool   `json:"correct"`
	Message *string `json:"message"`
}

// Check refuses a script that is not there, is outside the sheet's
// folder, or is neither a .py file nor executable, limits that are not a
// duration and a size, and a command with no runner (Options.Scripts).
func (g script) Check(in Input) error {
	if _, err := scriptPath(in); err != nil {
		return metaErr("script", err)
	}
	if g.run == nil {
		return errors.New("script: no sandbox to run it in (this command runs no script)")
	}
	_, err := scriptLimitsOf(in.Meta)
	return err
}

// scriptPath resolves the script meta below the sheet's folder.
func scriptPath(in Input) (string, error) {
	name := strings.TrimSpace(in.Meta["script"])
	switch {
	case name == "":
		return "", errors.New("script: no script meta")
	case in.SheetDir == "":
		return "", fmt.Errorf("script %s: the sheet's folder is not known (the output names no sheet_file)", name)
	case filepath.IsAbs(name):
		return "", fmt.Errorf("script %s: want a path relative to the sheet's folder", name)
	}
	dir, err := filepath.EvalSymlinks(in.SheetDir)
	if err == nil {
		dir, err = filepath.Abs(dir)
	}
	if err != nil {
		return "", fmt.Errorf("script %s: %w", name, err)
	}
	p, err := filepath.EvalSymlinks(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("script %s: %w", name, err)
	}
	if rel, err := filepath.Rel(dir, p); err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("script %s: %s is outside the sheet's folder %s", name, p, dir)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", fmt.Errorf("script %s: %w", name, err)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("script %s: not a regular file", name)
	case !strings.HasSuffix(p, ".py") && fi.Mode().Perm()&0o111 == 0:
		return "", fmt.Errorf("script %s: neither a .py file nor executable", name)
	}
	return p, nil
}

// scriptLimits reads script_timeout (seconds or a duration) and
// script_memory (a size) from the meta.
func scriptLimitsOf(meta map[string]string) (scriptLimits, error) {
	lim := scriptLimits{Timeout: scriptTimeout, Memory: scriptMemory}
	if s := strings.TrimSpace(meta["script_timeout"]); s != "" {
		d, err := time.ParseDuration(s)
		if f, ferr := strconv.ParseFloat(s, 64); ferr == nil {
			d, err = time.Duration(f*float64(time.Second)), nil
		}
		if err != nil || d <= 0 || d > scriptMaxTimeout {
			return lim, metaErr("script_timeout", fmt.Errorf("script: meta script_timeout %q is not a duration from 0 to %v", s, scriptMaxTimeout))
		}
		lim.Timeout = d
	}
	if s := strings.TrimSpace(meta["script_memory"]); s != "" {
		n, err := model.ParseSize(s)
		if err != nil || n <= 0 || n > scriptMaxMemory {
			return lim, metaErr("script_memory", fmt.Errorf("script: meta script_memory %q is not a size up to 4G", s))
		}
		lim.Memory = n
	}
	return lim, nil
}

// Grade runs the script on the question, confined by the runner.
func (g script) Grade(ctx context.Context, in Input) (Verdict, error) {
	if err := g.Check(in); err != nil {
		return Verdict{Detail: err.Error()}, nil
	}
	path, _ := scriptPath(in)
	lim, _ := scriptLimitsOf(in.Meta)
	stdin, err := json.Marshal(scriptInput{Question: in.QuestionText, Prompt: in.Question, Truth: in.Truth, Answer: in.Completion, Meta: in.Meta})
	if err != nil {
		return Verdict{}, fmt.Errorf("script %s: %w", filepath.Base(path), err)
	}
	code, stdout, stderr, err := g.run(ctx, path, stdin, lim.Timeout, lim.Memory)
	if err == nil {
		var v Verdict
		if v, err = scriptRead(code, stdout, stderr); err == nil {
			return v, nil
		}
	}
	return Verdict{}, fmt.Errorf("script %s: %w", filepath.Base(path), err)
}

// scriptRead is the verdict a script's run gives.
func scriptRead(code int, stdout, stderr string) (Verdict, error) {
	if code != 0 {
		return Verdict{}, fmt.Errorf("exit status %d: %s", code, scriptLastLine(stderr))
	}
	text := strings.TrimSpace(stdout)
	var sv scriptVerdict
	err := json.Unmarshal([]byte(text), &sv)
	if err != nil {
		err = json.Unmarshal([]byte(scriptLastLine(text)), &sv)
	}
	if err != nil || sv.Message == nil && sv.Correct == nil {
		return Verdict{}, fmt.Errorf(`printed no {"correct": ..., "message": ...} verdict: %q`, jsonClip(scriptLastLine(text)))
	}
	v := Verdict{Correct: sv.Correct}
	if sv.Message != nil {
		msg := []rune(strings.Join(strings.Fields(*sv.Message), " "))
		if len(msg) > scriptMaxMessage {
			msg = append(msg[:scriptMaxMessage-3], []rune("...")...)
		}
		v.Detail = "script: " + string(msg)
	} else {
		v.Detail = "script: no message"
	}
	return v, nil
}

// scriptLastLine is s's last non-empty line, trimmed.
func scriptLastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}
