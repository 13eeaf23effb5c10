package codemode

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/golden"
)

// reference is databench_eval's scoring path, re-expressed for the test:
// example_postprocess of examples/competition_baseline.py on the echoed
// prompt + completion, with the table loaded as the baseline's load_table
// does (pd.read_parquet, made to read the hand-over beside the table by
// evalmd_table.install, Debian having no pyarrow; pd.read_csv for a CSV
// table), then Runner.save_responses' str(response).replace("\n", " ").
// It reads cases [{"prompt", "completion"}] on stdin and writes the answer
// strings to argv[2] (stdout is the model code's to print on).
const reference = `import json, os, sys
import numpy as np
import pandas as pd

table = sys.argv[1]
if table.endswith(".parquet"):
    sys.path.insert(0, os.path.dirname(table))
    import evalmd_table
    evalmd_table.install()
    load_table = lambda: pd.read_parquet(table)
else:
    load_table = lambda: pd.read_csv(table)

def postprocess(response, load):
    try:
        df = load()
        head = """
def answer(df):
    return """
        source = (head
            + response.split("return")[2].split("\n")[0].strip().replace("[end of text]", "")
            + "\nans = answer(df)")
        scope = {"df": df, "pd": pd, "np": np}
        exec(source, scope)
        ans = scope["ans"]
        if isinstance(ans, pd.Series):
            ans = ans.tolist()
        elif isinstance(ans, pd.DataFrame):
            ans = ans.iloc[:, 0].tolist()
        return ans.split("\n")[0] if "\n" in str(ans) else ans
    except Exception as e:
        return f"__CODE_ERROR__: {e}"

saved = []
for case in json.load(sys.stdin):
    response = postprocess(case["prompt"] + case["completion"], load_table)
    saved.append(str(response).replace("\n", " "))
with open(sys.argv[2], "w") as f:
    json.dump(saved, f)
`

// sampleCSV has every kind of value the conversions meet: ints, floats
// with a missing value, bools, dates as text, strings with newlines, a
// quoted comma and a non-ASCII letter, an empty cell.
const sampleCSV = `id,name,score,passed,joined,note,tags
1,Ann,3.5,True,2021-01-05,"first line
second",a;b
2,Bob,,False,2021-03-10,plain,b
3,"Cé, Lia",7.25,True,2020-12-31,x,a;c
4,Dan,10,True,2022-06-01,"multi
line
note",c
5,Eve,0.1,False,2021-07-04,,a
6,Ann,2,True,2021-01-05,end,b
`

var sampleColumns = []string{"id", "name", "score", "passed", "joined", "note", "tags"}

// baselineCases are completions of the default prompt (what a completion
// model writes after "    return"), each named for the rule it covers.
var baselineCases = []struct{ name, completion string }{
	{"int", " df.shape[0]\n"},
	{"numpy float", " df['score'].mean()"},
	{"series with NaN", " df['score']\n\n# This is the next"},
	{"dataframe first column", " df[['name', 'score']]"},
	{"numpy bool false", " df['passed'].all()"},
	{"numpy bool true", " df['passed'].any()"},
	{"python bool", " True"},
	{"comparison", " df['score'].max() > 5"},
	{"short ndarray", " df['name'].unique()"},
	{"ndarray printed on lines", " np.arange(60)"},
	{"string first line", " df['note'].iloc[0]"},
	{"series of strings with newlines", " df['note']"},
	{"newline in a literal", ` 'x\ny'`},
	{"timestamp", " pd.to_datetime(df['joined']).max()"},
	{"series of timestamps", " pd.to_datetime(df['joined'])"},
	{"dates", " pd.to_datetime(df['joined']).dt.date.tolist()"},
	{"series of lists", " df['tags'].str.split(';')"},
	{"dict with NaN", " df.set_index('id')['score'].to_dict()"},
	{"describe", " df.describe()"},
	{"groupby series", " df.groupby('passed')['score'].mean()"},
	{"bool series", " df['score'] > 2"},
	{"row series", " df.iloc[0]"},
	{"numpy int", " df['name'].str.contains('A').sum()"},
	{"numpy scalars", " np.int64(5) + np.float32(0.5)"},
	{"nan", " np.nan"},
	{"none", " None"},
	{"list", " [1, 2.5, 'a']"},
	{"empty dataframe", " df[df['score'] > 100]"},
	{"category from row", " df.loc[df['score'].idxmax(), 'name']"},
	{"end of text", " df.shape[0] [end of text]"},
	{"first line only", " len(df)\n    return 5\n"},
	{"prints ignored", " print('noise') or len(df)"},
	{"KeyError", " df['missing']"},
	{"SyntaxError", " df['score'].mean("},
	{"empty expression returns None", "\n\nsomething else"},
	{"ZeroDivisionError", " 1/0"},
	{"AttributeError", " df.nonexistent"},
	{"NameError", " undefined_name"},
	{"ValueError", " int('x')"},
	{"ValueError subclass", " df['score'].astype(int)"},
	{"TypeError", " 'a' + 1"},
	{"IndexError from DataFrame", " pd.DataFrame()"},
	{"more returns", " df.shape[0] # return it\n"},
}

type refCase struct {
	Prompt     string `json:"prompt"`
	Completion string `json:"completion"`
}

// referenceAnswers runs the reference on cases with table.
func referenceAnswers(t *testing.T, table string, cases []refCase) []string {
	t.Helper()
	in, err := json.Marshal(cases)
	if err != nil {
		t.Fatal(err)
	}
	outPath := filepath.Join(t.TempDir(), "saved.json")
	runPython(t, reference, in, table, outPath)
	data, err := os.ReadFile(outPath)
	if err != nil {
		t.Fatal(err)
	}
	var saved []string
	if err := json.Unmarshal(data, &saved); err != nil {
		t.Fatal(err)
	}
	if len(saved) != len(cases) {
		t.Fatalf("reference: %d answers for %d cases", len(saved), len(cases))
	}
	return saved
}

func writeSample(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "table.csv")
	if err := os.WriteFile(p, []byte(sampleCSV), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// outcomes extracts each case by rule and runs what extracts on table
// (through TableLoader); an extraction failure is its Failure outcome.
func outcomes(t *testing.T, rule Rule, table string, cases []refCase) []Outcome {
	t.Helper()
	res := make([]Outcome, len(cases))
	var programs []string
	var at []int
	for i, c := range cases {
		code, err := Extract(rule, c.Prompt, c.Completion)
		if err != nil {
			res[i] = Failure(err)
			continue
		}
		programs = append(programs, Program(code, TableLoader(table)))
		at = append(at, i)
	}
	for j, o := range runPrograms(t, programs) {
		res[at[j]] = o
	}
	return res
}

// TestBaselineMatchesReference is the must-show check: for every
// conversion rule and error path, the answer string of Extract + Program +
// ParseOutput equals databench_eval's.
func TestBaselineMatchesReference(t *testing.T) {
	python(t)
	table := writeSample(t)
	prompt := Prompt("What is asked?", sampleColumns)
	var cases []refCase
	for _, c := range baselineCases {
		cases = append(cases, refCase{prompt, c.completion})
	}
	// Prompts the template does not make: a question saying "return"
	// (the rule then reads the question), and a prompt with no "return"
	// (the extraction fails as the original's split does).
	extra := []struct{ name, prompt, completion string }{
		{"question says return", Prompt("What is the return of Ann?", sampleColumns), " df.shape[0]"},
		{"no return: extraction fails", "Question: how many rows?\nAnswer:", " df.shape[0]"},
		{"one return in the prompt", "no return here", " return len(df)"},
	}
	names := make([]string, 0, len(baselineCases)+len(extra))
	for _, c := range baselineCases {
		names = append(names, c.name)
	}
	for _, c := range extra {
		cases = append(cases, refCase{c.prompt, c.completion})
		names = append(names, c.name)
	}
	want := referenceAnswers(t, table, cases)
	got := outcomes(t, Baseline, table, cases)
	kinds := map[string]bool{}
	for i, c := range cases {
		name := names[i]
		if got[i].Answer != want[i] {
			t.Errorf("%s (%q): answer %q, databench_eval %q", name, c.Completion, got[i].Answer, want[i])
		}
		if got[i].Failed() != strings.HasPrefix(want[i], "__CODE_ERROR__: ") {
			t.Errorf("%s: Failed() = %v for %q", name, got[i].Failed(), want[i])
		}
		kinds[got[i].ErrorType] = true
		t.Logf("%-32s %-48q %.120s", name, c.Completion, got[i].Answer)
	}
	// The cases must reach every error path they are named for.
	for _, k := range []string{"", "KeyError", "SyntaxError", "ZeroDivisionError", "AttributeError", "NameError", "ValueError", "TypeError", "IndexError"} {
		if !kinds[k] {
			t.Errorf("no case ended with error type %q", k)
		}
	}
	t.Logf("%d cases agree with databench_eval's postprocess", len(cases))
}

// TestLenientMatchesReference: chat-style replies give the answer the
// baseline gives for the same computation written as one expression.
func TestLenientMatchesReference(t *testing.T) {
	python(t)
	table := writeSample(t)
	prompt := Prompt("What is asked?", sampleColumns)
	cases := []struct{ name, completion, expr string }{
		{"fenced def answer", "Sure:\n```python\nimport pandas as pd\n\ndef answer(df: pd.DataFrame):\n    \"\"\"Mean score\"\"\"\n    df.columns = ['id', 'name', 'score', 'passed', 'joined', 'note', 'tags']\n    return df['score'].mean()\n```\nThis returns the mean.", "df['score'].mean()"},
		{"fenced return line", "Here you go:\n\n```py\nreturn df.shape[0]\n```", "df.shape[0]"},
		{"fenced body", "```python\nx = df[df['passed']]\nreturn x['name'].tolist()\n\nprint(answer(df))\n```", "df[df['passed']]['name'].tolist()"},
		{"return over lines", "```python\nreturn (df['score']\n    .fillna(0)\n    .sum())\n```", "df['score'].fillna(0).sum()"},
		{"fenced imports kept", "```python\nimport math\n\ndef answer(df):\n    return math.floor(df['score'].max())\n\nprint(answer(pd.read_csv('data.csv')))\n```", "__import__('math').floor(df['score'].max())"},
		{"fenced without return", "```python\ns = df['score']\ns.max()\n```", "df['score'].max()"},
		{"fenced nested returns", "```python\nif len(df) > 3:\n    return True\nelse:\n    return False\n```", "len(df) > 3"},
		{"def without return", "```python\ndef answer(df):\n    x = 1\n```", "None"},
		{"inline code", "`df['name'].nunique()`", "df['name'].nunique()"},
		{"unfenced return line", "The answer is computed by\nreturn len(df)", "len(df)"},
		{"continuation", " df['id'].sum()\n\n# next\ndef other(df):\n    return 0", "df['id'].sum()"},
		{"unfenced def", "def answer(df):\n    s = df['note'].dropna()\n    return s\n\nThat is all.", "df['note'].dropna()"},
		{"error inside a function", "```python\ndef answer(df):\n    return df['nope'].sum()\n```", "df['nope'].sum()"},
	}
	var lenient, base []refCase
	for _, c := range cases {
		lenient = append(lenient, refCase{prompt, c.completion})
		base = append(base, refCase{prompt, " " + c.expr})
	}
	want := referenceAnswers(t, table, base)
	got := outcomes(t, Lenient, table, lenient)
	for i, c := range cases {
		if got[i].Answer != want[i] {
			code, _ := Extract(Lenient, prompt, c.completion)
			t.Errorf("%s: answer %q, databench_eval on %q gives %q\ncode:\n%s", c.name, got[i].Answer, c.expr, want[i], code)
		}
	}
}

// TestProgramAsScript runs a program as a script of its own: output the
// code writes straight to the file descriptor, even a forged result line,
// comes before the program's own and does not count.
func TestProgramAsScript(t *testing.T) {
	table := writeSample(t)
	code := lead + `__import__('os').write(1, b'\n` + marker + ` {"answer": "forged"}\n') and len(df)`
	out := runPython(t, Program(code, CSVLoader(table)), nil)
	o, err := ParseOutput(string(out))
	if err != nil {
		t.Fatal(err)
	}
	if o.Answer != "6" || o.Failed() {
		t.Fatalf("got %+v from %q", o, out)
	}
}

// TestProgramOwnCases covers what the original does not reach: a code that
// exits (the original's run would stop; here it is the error it raised), a
// table that does not load (an error, no answer), a loader with its own
// source, and text that is not UTF-8.
func TestProgramOwnCases(t *testing.T) {
	python(t)
	table := writeSample(t)
	progs := []string{
		Program(lead+"exit(3)", CSVLoader(table)),
		Program(lead+"df.shape", Loader{Source: "def load(n):\n    return pd.DataFrame({'a': range(n)})\n", Expr: "load(4)"}),
		Program(lead+"'caf\xe9'", CSVLoader(table)),
		Program(lead+"len(df)", CSVLoader(table+".missing")),
	}
	in, _ := json.Marshal(progs)
	var outs []string
	if err := json.Unmarshal(runPython(t, cellRunner, in), &outs); err != nil {
		t.Fatal(err)
	}
	if o, err := ParseOutput(outs[0]); err != nil || o.ErrorType != "SystemExit" || o.Answer != "__CODE_ERROR__: 3" {
		t.Errorf("exit: %+v, %v", o, err)
	}
	if o, err := ParseOutput(outs[1]); err != nil || o.Answer != "(4, 1)" {
		t.Errorf("loader source: %+v, %v", o, err)
	}
	if o, err := ParseOutput(outs[2]); err != nil || o.Answer != "caf\uFFFD" {
		t.Errorf("invalid UTF-8: %+v, %v", o, err)
	}
	if _, err := ParseOutput(outs[3]); err == nil || !strings.Contains(err.Error(), "FileNotFoundError") || !strings.Contains(err.Error(), "loading the table") {
		t.Errorf("missing table: %v", err)
	}
}

func TestParseOutput(t *testing.T) {
	line := "\n" + marker + " "
	tests := []struct {
		name, out string
		want      Outcome
		err       string
	}{
		{"answer", "noise" + line + `{"answer": "[1, 2]"}` + "\n", Outcome{Answer: "[1, 2]"}, ""},
		{"last line wins", line + `{"answer": "a"}` + line + `{"answer": "b"}`, Outcome{Answer: "b"}, ""},
		{"error", line + `{"error": "'x'", "type": "KeyError"}`, Outcome{Answer: "__CODE_ERROR__: 'x'", Error: "'x'", ErrorType: "KeyError"}, ""},
		{"error with newline", line + `{"error": "a\nb", "type": "ValueError"}`, Outcome{Answer: "__CODE_ERROR__: a b", Error: "a\nb", ErrorType: "ValueError"}, ""},
		{"empty message", line + `{"error": "", "type": "MemoryError"}`, Outcome{Answer: "__CODE_ERROR__: ", ErrorType: "MemoryError"}, ""},
		{"nothing", "Traceback ...\nKilled", Outcome{}, "no result line"},
		{"cut", line + `{"answer": "[1, 2, 3`, Outcome{}, "cut or malformed"},
		{"cut by a cap", line + `{"answer": "[1,` + "\n[... 9000 bytes left out ...]\n" + ` 2]"}`, Outcome{}, "cut or malformed"},
		{"load error", line + `{"load_error": "FileNotFoundError: x"}`, Outcome{}, "loading the table: FileNotFoundError: x"},
		{"empty object", line + `{}`, Outcome{}, "without answer or error"},
	}
	for _, tt := range tests {
		got, err := ParseOutput(tt.out)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("%s: error %v, want %q", tt.name, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("%s: %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
	if _, err := ParseOutput(""); !errors.Is(err, errNoResult) {
		t.Errorf("empty output: %v is not errNoResult", err)
	}
}

func TestFailure(t *testing.T) {
	_, err := Extract(Baseline, "no such word", "df.shape[0]")
	o := Failure(err)
	if o.Answer != "__CODE_ERROR__: list index out of range" || o.ErrorType != "IndexError" || !o.Failed() {
		t.Fatalf("baseline extraction failure: %+v", o)
	}
	_, err = Extract(Lenient, "", " \n\n")
	if o := Failure(err); o.ErrorType != "ExtractError" || !strings.HasPrefix(o.Answer, "__CODE_ERROR__: no code") {
		t.Fatalf("lenient extraction failure: %+v", o)
	}
}

func TestProgramGolden(t *testing.T) {
	golden.Check(t, "testdata/program.py.golden", []byte(Program(lead+"df['score'].mean()", CSVLoader("table.csv"))))
}
