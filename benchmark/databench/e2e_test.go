package databench

import (
	"bytes"
	"context"
	"encoding/csv"
	"errors"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/parquet-go/parquet-go"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/benchmark/databench/score"
	"github.com/evalmd/evalmd/codemode"
	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/openai"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/runner"
	"github.com/evalmd/evalmd/sandbox"
)

// person has every column type DataBench's tables use: ints, a nullable
// int (pandas: float64), floats, bools, strings with nulls, a naive and a
// zoned timestamp, dates and lists.
type person struct {
	Name     string   `parquet:"name"`
	Age      *int64   `parquet:"age,optional"`
	Salary   float64  `parquet:"salary"`
	Manager  bool     `parquet:"manager"`
	Dept     *string  `parquet:"dept,optional"`
	Joined   *int64   `parquet:"joined,optional,timestamp(microsecond:local)"`
	Seen     int64    `parquet:"seen,timestamp(millisecond:utc)"`
	Birthday *int32   `parquet:"birthday,optional,date"`
	Skills   []string `parquet:"skills,list"`
	Hours    int32    `parquet:"hours"`
}

// seenZone is the zone pandas' metadata gives the seen column, as pandas
// writes a datetime64[ns, Europe/Madrid] column.
const seenZone = `{"index_columns": [], "columns": [
 {"name": "seen", "field_name": "seen", "metadata": {"timezone": "Europe/Madrid"}}]}`

type sale struct {
	Region string   `parquet:"region"`
	Amount *float64 `parquet:"amount,optional"`
	Units  int64    `parquet:"units"`
	Closed bool     `parquet:"closed"`
}

func people() []person {
	p := func(s string) *string { return &s }
	i := func(v int64) *int64 { return &v }
	day := func(y int, m time.Month, d int) *int32 {
		v := int32(time.Date(y, m, d, 0, 0, 0, 0, time.UTC).Unix() / 86400)
		return &v
	}
	at := func(y int, m time.Month, d, h, min int) time.Time { return time.Date(y, m, d, h, min, 0, 0, time.UTC) }
	us := func(t time.Time) *int64 { v := t.UnixMicro(); return &v }
	return []person{
		{"Ann", i(34), 5200.5, true, p("Sales"), us(at(2020, 3, 1, 9, 0)), at(2023, 6, 1, 10, 0).UnixMilli(), day(1990, 5, 17), []string{"python", "sql"}, 40},
		{"Bob", i(41), 4100, false, p("Research & Development"), us(at(2019, 7, 15, 8, 30)), at(2023, 1, 15, 23, 30).UnixMilli(), day(1983, 2, 1), []string{"excel"}, 38},
		{"Cé", i(29), 3900.25, false, p("Sales"), nil, at(2023, 12, 31, 23, 30).UnixMilli(), nil, []string{}, 40},
		{"Dan", nil, 6100, true, nil, us(at(2018, 1, 1, 0, 0)), at(2022, 6, 30, 22, 0).UnixMilli(), day(1975, 11, 30), []string{"python", "go"}, 45},
		{"Eve", i(52), 7300.75, true, p("Human Resources"), us(at(2015, 5, 5, 12, 0)), at(2021, 3, 28, 1, 30).UnixMilli(), day(1971, 8, 8), []string{"sql"}, 50},
		{"Fay", i(34), 2800, false, p("Research & Development"), us(at(2021, 9, 9, 17, 45)), at(2024, 2, 29, 12, 0).UnixMilli(), day(1990, 12, 24), []string{"python"}, 20},
	}
}

func sales() []sale {
	f := func(v float64) *float64 { return &v }
	return []sale{
		{"north", f(10.5), 3, true}, {"south", f(32), 1, false}, {"east", nil, 7, true},
		{"north", f(7.25), 2, true}, {"west", f(100), 9, false},
	}
}

// e2eQuestion is one QA row: the code the scripted model writes, the
// answer strings pandas gives on the full table and on the sample (the
// first three rows), and the ground truths in DataBench's own formats.
type e2eQuestion struct {
	dataset, question, semantic, code string
	full, lite                        string // the answer strings expected
	truth, sampleTruth                string
	wrongFull, wrongLite              bool // graded wrong on purpose
}

var e2eQuestions = []e2eQuestion{
	{"001_People", "Is there a manager older than 50?", "boolean", "(df[df['manager']]['age'] > 50).any()",
		"True", "False", "True", "False", false, false},
	{"002_Sales", "How many sales are there?", "number", "df.shape[0]", "5", "3", "5", "3", false, false},
	{"001_People", "How many hours are worked in total?", "number", "df['hours'].sum()", "233", "118", "233", "118", false, false},
	{"001_People", "Which department does the best-paid employee work in?", "category", "df.loc[df['salary'].idxmax(), 'dept']",
		"Human Resources", "Sales", "Human Resources", "Sales", false, false},
	{"001_People", "Which departments are there?", "list[category]", "df['dept'].dropna().unique().tolist()",
		"['Sales', 'Research & Development', 'Human Resources']", "['Sales', 'Research & Development']",
		"['Sales', 'Research & Development', 'Human Resources']", "['Sales', 'Research & Development']", false, false},
	// A Series is its tolist().
	{"001_People", "What are the three highest weekly hours?", "list[number]", "df['hours'].nlargest(3)",
		"[50, 45, 40]", "[40, 40, 38]", "[50, 45, 40]", "[40, 40, 38]", false, false},
	// A nullable int column is float64: 52.0, graded equal to 52.
	// The sample has no null in it: int64 there, as pyarrow gives.
	{"001_People", "What is the highest age?", "number", "df['age'].max()", "52.0", "41", "52", "41", false, false},
	{"001_People", "How many ages are missing?", "number", "df['age'].isna().sum()", "1", "0", "1", "0", false, false},
	{"002_Sales", "What is the total amount?", "number", "df['amount'].sum()", "149.75", "42.5", "149.75", "42.5", false, false},
	// The naive timestamp (NaT skipped) and the zoned one, in its zone.
	{"001_People", "In what year did the first person join?", "number", "df['joined'].min().year", "2015", "2019", "2015", "2019", false, false},
	{"001_People", "At what hour, Madrid time, was the last visit?", "number", "df['seen'].max().hour", "13", "0", "13", "0", false, false},
	{"001_People", "What is the type of the seen column?", "category", "str(df['seen'].dtype)",
		"datetime64[ns, Europe/Madrid]", "datetime64[ns, Europe/Madrid]", "datetime64[ns, Europe/Madrid]", "datetime64[ns, Europe/Madrid]", false, false},
	// Dates are datetime.date objects, a missing one None: pandas' min
	// fails on the object column (it fills the gap with a float), as on
	// the DataFrame pyarrow gives.
	{"001_People", "When was the oldest person born?", "category", "df['birthday'].dropna().min()", "1971-08-08", "1983-02-01", "1971-08-08", "1983-02-01", false, false},
	{"001_People", "What is the earliest birthday?", "category", "df['birthday'].min()",
		"__CODE_ERROR__: '<=' not supported between instances of 'datetime.date' and 'float'",
		"__CODE_ERROR__: '<=' not supported between instances of 'datetime.date' and 'float'", "1971-08-08", "1983-02-01", true, true},
	// Lists are arrays; an array's str is not a list, graded wrong as in
	// databench_eval.
	{"001_People", "Which skills does Ann have?", "list[category]", "list(df.loc[df['name'] == 'Ann', 'skills'].iloc[0])",
		"['python', 'sql']", "['python', 'sql']", "['python', 'sql']", "['python', 'sql']", false, false},
	{"001_People", "What are Dan's skills?", "list[category]", "df.loc[df['name'] == 'Dan', 'skills'].iloc[0]",
		"['python' 'go']", "__CODE_ERROR__: single positional indexer is out-of-bounds", "['python', 'go']", "[]", true, true},
	// A DataFrame is its first column's tolist().
	{"001_People", "Who are the managers?", "list[category]", "df[df['manager']][['name', 'age']]",
		"['Ann', 'Dan', 'Eve']", "['Ann']", "['Ann', 'Dan', 'Eve']", "['Ann']", false, false},
	{"002_Sales", "Are all sales in the north closed?", "boolean", "df[df['region'] == 'north']['closed'].all()", "True", "True", "True", "True", false, false},
	// The first line of an answer with a newline.
	{"001_People", "Who is first, and in which department?", "category", "df['name'].iloc[0] + '\\n' + df['dept'].iloc[0]", "Ann", "Ann", "Ann", "Ann", false, false},
	// Errors: Python's own message.
	{"001_People", "What is the mean of the salaries?", "number", "df['salaries'].mean()",
		"__CODE_ERROR__: 'salaries'", "__CODE_ERROR__: 'salaries'", "4900.25", "4400.25", true, true},
	{"002_Sales", "What is the amount per unit in the east?", "number", "df.loc[df['region'] == 'east', 'amount'].iloc[0] / 0",
		"nan", "nan", "1.5", "1.5", true, true},
}

// failing is the question the chat model's server refuses (an API error):
// its line is the one the baseline saves for a failed model call.
const refused = "How many sales are there?"

// writeDataBench writes DataBench's layout into dir: the QA table and
// each dataset's all.parquet and sample.parquet (its first three rows).
func writeDataBench(t *testing.T, dir string) string {
	t.Helper()
	ps, ss := people(), sales()
	meta := parquet.KeyValueMetadata("pandas", seenZone)
	writeRows(t, filepath.Join(dir, "data", "001_People", "all.parquet"), ps, meta)
	writeRows(t, filepath.Join(dir, "data", "001_People", "sample.parquet"), ps[:3], meta)
	writeRows(t, filepath.Join(dir, "data", "002_Sales", "all.parquet"), ss)
	writeRows(t, filepath.Join(dir, "data", "002_Sales", "sample.parquet"), ss[:3])
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	w.Write([]string{"question", "dataset", "answer", "type", "sample_answer"})
	for _, q := range e2eQuestions {
		w.Write([]string{q.question, q.dataset, q.truth, q.semantic, q.sampleTruth})
	}
	w.Flush()
	return writeFile(t, filepath.Join(dir, "qa.csv"), b.String())
}

// TestCodeModeEndToEnd converts a DataBench layout built here (every
// column type DataBench uses) into code-mode sheets with the converter
// `convert databench` runs, runs them full and lite in the real sandbox
// against scripted fake models (an OpenAI chat model, read with the
// lenient extractor; a raw completion model as llama-cli served the
// baseline, read with the baseline's own rule), regrades the outputs as
// `grade` does, and exports the submission as `convert
// semeval-predictions` does: every answer string, grade and
// predictions line is checked.
func TestCodeModeEndToEnd(t *testing.T) {
	if _, err := sandbox.Check(context.Background(), sandbox.Config{}); err != nil {
		shared.Missing(t, err.Error())
	}
	tmp := t.TempDir()
	qa := writeDataBench(t, tmp)
	set, err := benchmark.NewSet(score.Benchmark())
	if err != nil {
		t.Fatal(err)
	}
	conv := Conversions().Converters[0]
	opt := conv.Options().(*options)
	opt.QA, opt.Out = qa, filepath.Join(tmp, "sheets")
	sheets, errs := conv.Convert(t.Context(), opt, outfile.Options{})
	if len(errs) > 0 || len(sheets) != 4 {
		t.Fatalf("convert: %v %v", sheets, errs)
	}

	columns := map[string][]string{
		"001_People": {"name", "age", "salary", "manager", "dept", "joined", "seen", "birthday", "skills", "hours"},
		"002_Sales":  {"region", "amount", "units", "closed"},
	}
	// The scripted model: the prompt must be the baseline's for one of the
	// questions; it answers that question's code.
	codeFor := func(prompt string) (int, bool) {
		for i, q := range e2eQuestions {
			if prompt == codemode.Prompt(q.question, columns[q.dataset]) {
				return i, true
			}
		}
		return 0, false
	}
	chat := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 100, Reply: func(c fakeserver.Call) fakeserver.Reply {
		i, ok := codeFor(c.LastUserText())
		if !ok {
			return fakeserver.Reply{Text: "not the baseline's prompt"}
		}
		q := e2eQuestions[i]
		if q.question == refused {
			return fakeserver.Reply{Status: 400, Message: "refused"}
		}
		// The ways chat models write code, in turn.
		switch i % 4 {
		case 0:
			return fakeserver.Reply{Text: "Here is the code:\n```python\n" + q.code + "\n```"}
		case 1:
			return fakeserver.Reply{Text: "    return " + q.code}
		case 2:
			return fakeserver.Reply{Text: "def answer(df: pd.DataFrame):\n    return " + q.code}
		}
		return fakeserver.Reply{Text: q.code}
	}})
	completion := fakeserver.NewOpenAICompletions(t, fakeserver.Options{MaxRequests: 100, Reply: func(c fakeserver.Call) fakeserver.Reply {
		i, ok := codeFor(c.LastUserText())
		if !ok {
			return fakeserver.Reply{Text: "not the baseline's prompt"}
		}
		// stable-code-3b goes on after the expression; the rule keeps its
		// first line.
		return fakeserver.Reply{Text: " " + e2eQuestions[i].code + "\n\n# This is another example\ndef f(df):\n    return 1\n[end of text]"}
	}})

	type modelRun struct {
		name    string
		cfg     func(*harness.Config)
		failing bool
	}
	for _, mr := range []modelRun{
		{"openai-api/local/chat", func(c *harness.Config) { c.Model.BaseURL = chat.URL }, true},
		{"openai-api/local/stable-code-3b", func(c *harness.Config) {
			c.Model.BaseURL, c.Model.Provider = completion.URL, []any{openai.Options{CompletionAPI: true}}
			c.Settings = []setting.Layer{{Source: setting.Flag, Values: map[string]string{"code_extract": "baseline"}}}
		}, false},
	} {
		t.Run(filepath.Base(mr.name), func(t *testing.T) {
			out := filepath.Join(tmp, "out-"+filepath.Base(mr.name))
			cfg := harness.Config{NewModel: providers.New, Sheets: sheets, Models: []string{mr.name}, OutDir: out,
				Graders: set.Graders, Model: model.Options{Getenv: func(string) string { return "" }}, DataRoots: []string{tmp},
				Runner:  runner.Options{Concurrency: 2},
				Sandbox: sandbox.Config{MaxInFlight: 2}, Stderr: io.Discard}
			mr.cfg(&cfg)
			_, err := harness.Run(t.Context(), cfg)
			var failed *harness.FailedError
			if mr.failing {
				if !errors.As(err, &failed) || failed.Failed != 2 {
					t.Fatalf("run: %v; want the two refused questions (full and lite) failed", err)
				}
			} else if err != nil {
				t.Fatal(err)
			}
			checkOutputs(t, out, mr.failing)

			// grade: the same verdicts from the recorded answers, no code run.
			rep, err := regrade.Regrade(t.Context(), []string{out}, regrade.Options{Graders: set.Graders})
			if err != nil || len(rep.Files) != 4 {
				t.Fatalf("regrade: %v, %d files", err, len(rep.Files))
			}
			for _, f := range rep.Files {
				if len(f.Changes) != 0 {
					t.Errorf("%s: regrading changed %d grades", filepath.Base(f.Path), len(f.Changes))
				}
			}

			// convert semeval-predictions: a line per QA row, in QA order.
			got := exportPredictions(t, out)
			var full, lite strings.Builder
			for _, q := range e2eQuestions {
				f, l := q.full, q.lite
				if mr.failing && q.question == refused {
					f, l = "__CODE_ERROR__: list index out of range", "__CODE_ERROR__: list index out of range"
				}
				full.WriteString(f + "\n")
				lite.WriteString(l + "\n")
			}
			if got[predictionsFile] != full.String() {
				t.Errorf("predictions.txt:\n%s\nwant\n%s", got[predictionsFile], full.String())
			}
			if got[predictionsLiteFile] != lite.String() {
				t.Errorf("predictions_lite.txt:\n%s\nwant\n%s", got[predictionsLiteFile], lite.String())
			}
		})
	}
}

// checkOutputs checks every question of a run's output files: the answer
// string, the rule recorded, and the grade.
func checkOutputs(t *testing.T, out string, failing bool) {
	t.Helper()
	paths, err := result.Find(out, nil)
	if err != nil || len(paths) != 4 {
		t.Fatalf("outputs %v %v", paths, err)
	}
	seen := 0
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		lite := f.Sheet.MetaData["lite"] == "true"
		for _, q := range f.Questions {
			n, _ := strconv.Atoi(q.ID())
			e := e2eQuestions[n]
			seen++
			if failing && e.question == refused {
				if q.Error == nil || q.Answer != nil || q.Grade != nil {
					t.Errorf("%s: refused call: error %v answer %v grade %v", q.Name, q.Error, q.Answer, q.Grade)
				}
				continue
			}
			want := e.full
			if lite {
				want = e.lite
			}
			if q.Mode != "code" || q.Answer == nil || *q.Answer != want {
				t.Errorf("%s (lite %v) %s: mode %q answer %v, want %q (code %v, error %q)", q.Name, lite, e.code, q.Mode, deref(q.Answer), want, deref(q.Code), q.CodeError)
				continue
			}
			if q.Sandbox["pandas"] == "" {
				t.Errorf("%s: no sandbox versions recorded", q.Name)
			}
			wrong := e.wrongFull
			if lite {
				wrong = e.wrongLite
			}
			if q.Grade == nil || *q.Grade == wrong {
				t.Errorf("%s (lite %v) %q: grade %v, want %v (%s)", q.Name, lite, want, q.Grade, !wrong, q.GradeDetail)
			}
		}
	}
	if seen != 2*len(e2eQuestions) {
		t.Errorf("%d questions in the outputs, want %d", seen, 2*len(e2eQuestions))
	}
}

func deref(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}

// exportPredictions runs the semeval-predictions export on a
// folder of output files, as convert does.
func exportPredictions(t *testing.T, dir string) map[string]string {
	t.Helper()
	paths, err := result.Find(dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	var files []*result.File
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	for _, e := range Conversions().Exports {
		if e.Name == "semeval-predictions" {
			parts, err := e.Files(files)
			if err != nil {
				t.Fatal(err)
			}
			return exported(t, parts)
		}
	}
	t.Fatal("no semeval-predictions export")
	return nil
}
