package setting

import (
	"flag"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sandbox"
)

func meta(m map[string]string) Layer { return Layer{Source: QuestionMeta, File: "s.md", Values: m} }

// A generation setting LIME could not parse is ignored with a word (LIME's
// extract_gen_params ignores it); stop takes a JSON array
// so "\n" can be said.
func TestGenerationSettingsFromMeta(t *testing.T) {
	for _, tc := range []struct {
		meta     map[string]string
		want     string // fmt of the settings
		problems []string
	}{
		{meta: map[string]string{"seed": "None", "stop": "None", "temperature": "0.5"}, want: "t=0.5 p=- max=0 seed=- stop=[]", problems: []string{"seed", "stop"}},
		{meta: map[string]string{"temperature": "warm", "max_tokens": "-5", "top_p": "1"}, want: "t=- p=1 max=0 seed=- stop=[]", problems: []string{"temperature", "max_tokens"}},
		{meta: map[string]string{"seed": "7", "max_tokens": "50"}, want: "t=- p=- max=50 seed=7 stop=[]"},
		{meta: map[string]string{"stop": `["\n", "END"]`}, want: `t=- p=- max=0 seed=- stop=["\n" "END"]`},
		{meta: map[string]string{"stop": `"\n\n"`}, want: `t=- p=- max=0 seed=- stop=["\n\n"]`},
		{meta: map[string]string{"stop": `END|STOP`}, want: `t=- p=- max=0 seed=- stop=["END" "STOP"]`},
		{meta: map[string]string{"stop": `[1, 2]`}, want: `t=- p=- max=0 seed=- stop=[]`, problems: []string{"stop"}},
	} {
		var problems []string
		v, err := Resolve("q", func(msg string) { problems = append(problems, msg) }, meta(tc.meta))
		if err != nil {
			t.Fatalf("%v: %v", tc.meta, err)
		}
		if got := fmtSettings(v.Gen); got != tc.want {
			t.Errorf("%v: %s, want %s", tc.meta, got, tc.want)
		}
		if len(problems) != len(tc.problems) {
			t.Errorf("%v: problems %q, want ones about %v", tc.meta, problems, tc.problems)
			continue
		}
		for i, p := range problems {
			if !strings.HasPrefix(p, "s.md: meta "+tc.problems[i]+":") || !strings.Contains(p, "ignored") {
				t.Errorf("%v: problem %q, want it to name %s and say the value is ignored", tc.meta, p, tc.problems[i])
			}
		}
	}
}

func fmtSettings(s model.Settings) string {
	f := func(p *float64) string {
		if p == nil {
			return "-"
		}
		return fmt.Sprint(*p)
	}
	seed := "-"
	if s.Seed != nil {
		seed = fmt.Sprint(*s.Seed)
	}
	stop := "[]"
	if len(s.Stop) > 0 {
		stop = fmt.Sprintf("%q", s.Stop)
	}
	return fmt.Sprintf("t=%s p=%s max=%d seed=%s stop=%s", f(s.Temperature), f(s.TopP), s.MaxTokens, seed, stop)
}

func TestToolLimitsFromMeta(t *testing.T) {
	for _, tc := range []struct {
		meta    map[string]string
		timeout time.Duration
		memory  int64
		err     string
	}{
		{map[string]string{"mode": "agent", "tool_timeout": "90", "tool_memory": "512M"}, 90 * time.Second, 512 << 20, ""},
		{map[string]string{"mode": "code", "tool_timeout": "2m", "tool_memory": "3GiB"}, 2 * time.Minute, 3 << 30, ""},
		{map[string]string{"mode": "agent", "tool_timeout": "0.5"}, 500 * time.Millisecond, 0, ""},
		{map[string]string{"mode": "agent", "tool_timeout": "soon"}, 0, 0, `s.md: question "q": meta tool_timeout: "soon" is not seconds`},
		{map[string]string{"mode": "agent", "tool_timeout": "-3"}, 0, 0, "meta tool_timeout"},
		{map[string]string{"mode": "agent", "tool_memory": "lots"}, 0, 0, "meta tool_memory"},
		{map[string]string{"mode": "agent", "tool_memory": "0"}, 0, 0, "meta tool_memory"},
		{map[string]string{"mode": "coode"}, 0, 0, `meta mode: "coode" is not chat, code or agent`},
		{map[string]string{"mode": "code", "code_extract": "loose"}, 0, 0, `meta code_extract: "loose"`},
		{map[string]string{"max_turns": "-1"}, 0, 0, `meta max_turns: "-1" is not a whole number >= 0`},
	} {
		v, err := Resolve("q", nil, meta(tc.meta))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%v: error %v, want it to say %q", tc.meta, err, tc.err)
			}
			continue
		}
		s := v.Solving()
		if err != nil || s == nil || s.ToolTimeout != tc.timeout || s.ToolMemory != tc.memory {
			t.Errorf("%v: %+v, %v; want timeout %v memory %d", tc.meta, s, err, tc.timeout, tc.memory)
		}
	}
}

func TestReformatFromMeta(t *testing.T) {
	v, err := Resolve("q", nil, meta(map[string]string{"mode": "agent", "reformat": "required",
		"reformat_question": `"What is the mean?"`, "reformat_format": `"@mean[v]\nwhere v is a number"`}))
	if s := v.Solving(); err != nil || s == nil || s.Reformat == nil || *s.Reformat != (model.Reformat{Question: "What is the mean?", Format: "@mean[v]\nwhere v is a number"}) {
		t.Fatalf("%+v, %v", v, err)
	}
	for _, m := range []map[string]string{
		{"mode": "agent", "reformat": "required", "reformat_question": `"q"`},
		{"mode": "agent", "reformat": "required", "reformat_question": `q`, "reformat_format": `"f"`},
		{"mode": "agent", "reformat": "maybe"},
	} {
		if _, err := Resolve("q", nil, meta(m)); err == nil || !strings.Contains(err.Error(), "reformat") {
			t.Errorf("%v: error %v", m, err)
		}
	}
	if v, err := Resolve("q", nil, meta(map[string]string{"mode": "agent"})); err != nil || v.Solving().Reformat != nil {
		t.Errorf("no reformat meta: %+v, %v", v, err)
	}
}

// Each setting is taken from the flags, then the question's meta, then the
// sheet's, then the config files (the workspace's over the user's), then
// its default; From says where the value came from.
func TestPrecedence(t *testing.T) {
	user := Layer{Source: UserConfig, File: "user.yaml", Values: map[string]string{"tool_timeout": "10", "max_turns": "3", "temperature": "0.1"}, Lines: map[string]int{"tool_timeout": 1, "max_turns": 2, "temperature": 3}}
	work := Layer{Source: Workspace, File: "evalmd.yaml", Values: map[string]string{"tool_timeout": "20"}, Lines: map[string]int{"tool_timeout": 4}}
	sheetMeta := map[string]string{"mode": "agent", "tool_timeout": "30", "tool_memory": "1G"}
	sheetLines := map[string]int{"mode": 2, "tool_timeout": 3, "tool_memory": 4}
	for _, tc := range []struct {
		name     string
		question map[string]string
		args     []string
		timeout  time.Duration
		memory   int64
		from     string // where tool_timeout came from
	}{
		{"sheet", nil, nil, 30 * time.Second, 1 << 30, "s.md:3"},
		{"question over sheet", map[string]string{"tool_timeout": "2m", "tool_memory": "512M"}, nil, 2 * time.Minute, 512 << 20, "s.md:9"},
		{"flags over both", map[string]string{"tool_timeout": "2m"}, []string{"--tool-timeout", "5s", "--tool-memory", "3G"}, 5 * time.Second, 3 << 30, "flag"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fs := flag.NewFlagSet("run", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			flags := Bind(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			// The question's meta holds the sheet's (LIME's cascade).
			q := Layer{Source: QuestionMeta, File: "s.md", Values: map[string]string{}, Lines: map[string]int{}}
			for k, v := range sheetMeta {
				q.Values[k], q.Lines[k] = v, sheetLines[k]
			}
			for k, v := range tc.question {
				q.Values[k], q.Lines[k] = v, 9
			}
			s := Layer{Source: SheetMeta, File: "s.md", Values: sheetMeta, Lines: sheetLines}
			v, err := Resolve("q", nil, *flags, q, s, user, work)
			if err != nil {
				t.Fatal(err)
			}
			if v.Solve.ToolTimeout != tc.timeout || v.Solve.ToolMemory != tc.memory || v.From["tool_timeout"].String() != tc.from {
				t.Errorf("tool timeout %v memory %d from %s; want %v and %d from %s", v.Solve.ToolTimeout, v.Solve.ToolMemory, v.From["tool_timeout"], tc.timeout, tc.memory, tc.from)
			}
			if v.Solve.MaxTurns != 3 || v.From["max_turns"].String() != "user.yaml:2" || *v.Gen.Temperature != 0.1 {
				t.Errorf("the config's settings: max_turns %d from %s, temperature %v", v.Solve.MaxTurns, v.From["max_turns"], v.Gen.Temperature)
			}
		})
	}
	// Without a source, the defaults: none set, chat mode.
	v, err := Resolve("q", nil)
	if err != nil || v.Solving() != nil || !v.Gen.IsZero() || v.From != nil {
		t.Errorf("defaults: %+v, %v", v, err)
	}
	// The workspace's config wins over the user's.
	v, _ = Resolve("", nil, user, work)
	if v.Solve.ToolTimeout != 20*time.Second {
		t.Errorf("workspace over user: %v", v.Solve.ToolTimeout)
	}
}

func TestBadFlags(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--mode", "coode"}, `"coode" for flag -mode: is not chat, code or agent`},
		{[]string{"--code-extract", "loose"}, `flag -code-extract: is not baseline or lenient`},
		{[]string{"--agent-style", "chain"}, `flag -agent-style: is not tools or react`},
		{[]string{"--max-turns", "-1"}, "flag -max-turns: is not a whole number >= 0"},
		{[]string{"--tool-memory", "lots"}, "-tool-memory"},
		{[]string{"--tool-memory", "0"}, "-tool-memory"},
		{[]string{"--tool-timeout", "-1s"}, "-tool-timeout"},
		{[]string{"--temperature", "NaN"}, "-temperature: is not a number"},
		{[]string{"--temperature", "-1"}, "-temperature: is not a number >= 0"},
		{[]string{"--sandbox", "chroot"}, "-sandbox: is not bwrap, docker or none"},
		{[]string{"--ceiling", "tool_memory"}, "-ceiling: want NAME=VALUE"},
		{[]string{"--ceiling", "temperature=2"}, "-ceiling: temperature has no ceiling (these have, by default: max_tokens=65536,"},
		{[]string{"--ceiling", "tool_memory=lots"}, `-ceiling: tool_memory ceiling "lots" is not a size`},
	} {
		fs := flag.NewFlagSet("run", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		Bind(fs)
		if err := fs.Parse(tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v, want it to say %q", tc.args, err, tc.want)
		}
	}
}

// A setting that spends memory, time or money takes from a workspace file
// or a sheet at most its ceiling: past it, one error naming the line, the
// ceiling and how to raise it. The user's own flags and config file are
// not bounded, and only they raise a ceiling (--ceiling, ceilings:).
func TestCeilings(t *testing.T) {
	sheet := func(k, v string) Layer {
		return Layer{Source: SheetMeta, File: "s.md", Values: map[string]string{k: v}, Lines: map[string]int{k: 4}}
	}
	own := func(src Source, values, ceilings map[string]string) Layer {
		return Layer{Source: src, File: "config.yaml", Values: values, Ceilings: ceilings, Lines: map[string]int{}}
	}
	for _, tc := range []struct {
		name   string
		layers []Layer
		err    string // "" resolves
	}{
		{"a sheet's 1000G", []Layer{sheet("tool_memory", "1000G")},
			`s.md:4: question "q": meta tool_memory: "1000G" is over 4G, the most a sheet or a workspace evalmd.yaml may ask; to allow it, run with --ceiling tool_memory=1000G (or ceilings: in your own config file), or set it yourself with --tool-memory`},
		{"a sheet's 100000h", []Layer{sheet("tool_timeout", "100000h")}, `meta tool_timeout: "100000h" is over 10m`},
		{"a sheet's 10000 epochs", []Layer{sheet("epochs", "10000")}, `s.md:4: question "q": meta epochs: "10000" is over 20`},
		{"a sheet's max_tokens", []Layer{sheet("max_tokens", "1000000")}, `meta max_tokens: "1000000" is over 65536`},
		{"a sheet's thinking budget", []Layer{sheet("reasoning_tokens", "100000")}, `meta reasoning_tokens: "100000" is over 65536`},
		{"a sheet's turns", []Layer{sheet("max_turns", "500")}, `meta max_turns: "500" is over 50`},
		{"a workspace file's 1000G", []Layer{{Source: Workspace, File: "evalmd.yaml", Values: map[string]string{"tool_memory": "1000G"}, Lines: map[string]int{"tool_memory": 2}}},
			`config evalmd.yaml:2: tool_memory "1000G": is over 4G`},
		{"at the ceiling", []Layer{sheet("tool_memory", "4G")}, ""},
		{"the user's own config", []Layer{own(UserConfig, map[string]string{"tool_memory": "1000G", "epochs": "500"}, nil)}, ""},
		{"a flag over the sheet's", []Layer{sheet("tool_memory", "1000G"), own(Flag, map[string]string{"tool_memory": "8G"}, nil)}, ""},
		{"--ceiling raises it", []Layer{sheet("tool_memory", "8G"), own(Flag, nil, map[string]string{"tool_memory": "16G"})}, ""},
		{"past a raised ceiling", []Layer{sheet("tool_memory", "32G"), own(Flag, nil, map[string]string{"tool_memory": "16G"})}, `is over 16G`},
		{"the user's ceilings", []Layer{sheet("epochs", "50"), own(UserConfig, nil, map[string]string{"epochs": "100"})}, ""},
		{"the flag's ceiling over the config's", []Layer{sheet("epochs", "50"), own(UserConfig, nil, map[string]string{"epochs": "100"}), own(Flag, nil, map[string]string{"epochs": "30"})}, `is over 30`},
		{"a workspace cannot raise one", []Layer{sheet("tool_memory", "1000G"), {Source: Workspace, File: "evalmd.yaml", Ceilings: map[string]string{"tool_memory": "2000G"}}}, `is over 4G`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Resolve("q", nil, tc.layers...)
			if tc.err == "" && err != nil || tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)) {
				t.Errorf("error %v, want %q", err, tc.err)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("the error is not one line: %q", err)
			}
		})
	}
}

// The sandbox and its image are the user's to choose (a flag, their own
// config file): a workspace evalmd.yaml or a sheet asking for one is
// refused, naming its line.
func TestSandboxIsTheUsers(t *testing.T) {
	for _, tc := range []struct {
		name string
		l    Layer
		want string // the sandbox resolved, or the error
	}{
		{"a sheet's none", Layer{Source: SheetMeta, File: "s.md", Values: map[string]string{"sandbox": "none"}, Lines: map[string]int{"sandbox": 2}},
			`s.md:2: question "q": meta sandbox: "none" cannot come from a sheet; only your config or --sandbox sets it`},
		{"a question's image", Layer{Source: QuestionMeta, File: "s.md", Values: map[string]string{"sandbox_image": "evil"}, Lines: map[string]int{"sandbox_image": 7}},
			`s.md:7: question "q": meta sandbox_image: "evil" cannot come from a sheet; only your config or --sandbox-image sets it`},
		{"a workspace's none", Layer{Source: Workspace, File: "evalmd.yaml", Values: map[string]string{"sandbox": "none"}, Lines: map[string]int{"sandbox": 1}},
			`config evalmd.yaml:1: sandbox "none": cannot come from a workspace evalmd.yaml (it may have come with the sheets); only your config or --sandbox sets it`},
		{"a workspace's image", Layer{Source: Workspace, File: "evalmd.yaml", Values: map[string]string{"sandbox": "docker", "sandbox_image": "evil"}, Lines: map[string]int{"sandbox": 1, "sandbox_image": 2}},
			`config evalmd.yaml:1: sandbox "docker": cannot come from a workspace evalmd.yaml`},
		{"the user's config", Layer{Source: UserConfig, File: "config.yaml", Values: map[string]string{"sandbox": "none"}}, "none"},
		{"a flag", Layer{Source: Flag, Values: map[string]string{"sandbox": "docker", "sandbox_image": "mine"}}, "docker"},
	} {
		v, err := Resolve("q", nil, tc.l)
		got := v.Sandbox
		if err != nil {
			got = err.Error()
		}
		if !strings.HasPrefix(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// The sandbox setting's values are package sandbox's backends and its
// default the default image, named apart so that what reads settings (agg)
// does not link the sandbox.
func TestSandboxNames(t *testing.T) {
	for _, b := range []sandbox.Backend{sandbox.Bwrap, sandbox.Docker, sandbox.None} {
		if err := Lookup("sandbox").Check(string(b)); err != nil {
			t.Errorf("sandbox %s: %v", b, err)
		}
	}
	if err := Lookup("sandbox").Check("chroot"); err == nil {
		t.Error("sandbox chroot: no error")
	}
	if d := Lookup("sandbox_image").Default; d != sandbox.DefaultImage {
		t.Errorf("sandbox_image's default %q, want %q", d, sandbox.DefaultImage)
	}
}
