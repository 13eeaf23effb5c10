package plan

import (
	"fmt"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// Make lays sheets on models sheet by sheet, places and names each output,
// keeps the questions a subset asks and keys each; what cannot be run is
// an error naming its cause.
func TestMake(t *testing.T) {
	qs := func(names ...string) []Question {
		var out []Question
		for _, n := range names {
			n, epochs, _ := strings.Cut(n, "*")
			name, id, _ := strings.Cut(n, "#")
			e, _ := strconv.Atoi(epochs)
			out = append(out, Question{Name: name, ID: id, Epochs: e})
		}
		return out
	}
	a := Sheet{Path: filepath.Join("d", "x", "input-a.md"), Key: "/abs/d/x/input-a.md", Questions: qs("Q1", "Q2#q-2", "Q3")}
	b := Sheet{Path: filepath.Join("d", "y", "input-b.md"), Key: "/abs/d/y/input-b.md", Questions: qs("R1")}
	empty := Sheet{Path: "input-e.md", Key: "/abs/input-e.md"}
	sameName := Sheet{Path: filepath.Join("d", "y", "input-a.md"), Key: "/abs/d/y/input-a.md", Questions: qs("S1")}
	// Q1*3 is asked in 3 epochs; "the sheet's" epochs meta is every
	// question's.
	epochs3 := Sheet{Path: "input-e3.md", Key: "/abs/input-e3.md", Questions: qs("E1*3", "E2*3")}
	mixed := Sheet{Path: "input-mix.md", Key: "/abs/input-mix.md", Questions: qs("M1*2", "M2", "M3*3")}
	// job writes a job as "SHEET MODEL OUTPATH [QUESTIONS]", and its
	// epoch when the sheet has several.
	job := func(sheets []Sheet, j Job) string {
		out := fmt.Sprintf("%s %s %s %v", sheets[j.Sheet].Path, j.Model, filepath.ToSlash(j.OutPath), j.Questions)
		if j.Epochs > 1 {
			out += fmt.Sprintf(" epoch %d of %d", j.Epoch, j.Epochs)
		}
		return out
	}
	for _, tc := range []struct {
		name   string
		sheets []Sheet
		opt    Options
		want   []string // jobs, as job writes them
		err    string   // a part of the error, "" for none
	}{
		{"beside each sheet, sheet by sheet over the models", []Sheet{a, b}, Options{Models: []string{"m1", "m2"}, RunID: "ab12"}, []string{
			"d/x/input-a.md m1 d/x/output-a-m1-ab12.json [0 1 2]",
			"d/x/input-a.md m2 d/x/output-a-m2-ab12.json [0 1 2]",
			"d/y/input-b.md m1 d/y/output-b-m1-ab12.json [0]",
			"d/y/input-b.md m2 d/y/output-b-m2-ab12.json [0]",
		}, ""},
		{"into -o, without a run id", []Sheet{a}, Options{Models: []string{"m"}, OutDir: "out"}, []string{
			"d/x/input-a.md m out/output-a-m.json [0 1 2]",
		}, ""},
		{"into -o, each in its folder below -d", []Sheet{a, b}, Options{Models: []string{"m"}, OutDir: "out", SheetRoot: "d"}, []string{
			"d/x/input-a.md m out/x/output-a-m.json [0 1 2]",
			"d/y/input-b.md m out/y/output-b-m.json [0]",
		}, ""},
		{"a model name a file cannot hold", []Sheet{a}, Options{Models: []string{"openai/gpt-4o"}}, []string{
			"d/x/input-a.md openai/gpt-4o d/x/output-a-openai_gpt-4o.json [0 1 2]",
		}, ""},
		{"a sheet without questions has an output", []Sheet{empty}, Options{Models: []string{"m"}}, []string{
			"input-e.md m output-e-m.json []",
		}, ""},
		{"a subset: the first N", []Sheet{a, b}, Options{Models: []string{"m"}, Subset: Subset{Limit: 2}}, []string{
			"d/x/input-a.md m d/x/output-a-m.json [0 1]",
			"d/y/input-b.md m d/y/output-b-m.json [0]",
		}, ""},
		{"a subset asking nothing of a sheet: no output", []Sheet{a, b, empty}, Options{Models: []string{"m"}, Subset: Subset{Questions: []string{"q-2"}}}, []string{
			"d/x/input-a.md m d/x/output-a-m.json [1]",
			"input-e.md m output-e-m.json []",
		}, ""},
		{"a glob matching no question", []Sheet{a}, Options{Models: []string{"m"}, Subset: Subset{Questions: []string{"Q*", "Z*"}}}, nil,
			`--questions "Z*": no question of the run's sheets has that name or id`},
		{"two models, one file", []Sheet{a}, Options{Models: []string{"mock:x", "mock_x"}}, nil,
			"models mock:x and mock_x would both write"},
		{"two sheets, one file", []Sheet{a, sameName}, Options{Models: []string{"m"}, OutDir: "out"}, nil,
			a.Path + " and " + sameName.Path + " would both write"},
		{"two sheets, one file, though the subset skips one", []Sheet{a, sameName}, Options{Models: []string{"m"}, OutDir: "out", Subset: Subset{Questions: []string{"Q1"}}}, nil,
			"would both write"},
		{"-d keeps same-named sheets apart", []Sheet{a, sameName}, Options{Models: []string{"m"}, OutDir: "out", SheetRoot: "d"}, []string{
			"d/x/input-a.md m out/x/output-a-m.json [0 1 2]",
			"d/y/input-a.md m out/y/output-a-m.json [0]",
		}, ""},
		{"epochs: one output each, a model's in order", []Sheet{epochs3, b}, Options{Models: []string{"m1", "m2"}, RunID: "ab12"}, []string{
			"input-e3.md m1 output-e3-m1-ab12-epoch1.json [0 1] epoch 1 of 3",
			"input-e3.md m1 output-e3-m1-ab12-epoch2.json [0 1] epoch 2 of 3",
			"input-e3.md m1 output-e3-m1-ab12-epoch3.json [0 1] epoch 3 of 3",
			"input-e3.md m2 output-e3-m2-ab12-epoch1.json [0 1] epoch 1 of 3",
			"input-e3.md m2 output-e3-m2-ab12-epoch2.json [0 1] epoch 2 of 3",
			"input-e3.md m2 output-e3-m2-ab12-epoch3.json [0 1] epoch 3 of 3",
			"d/y/input-b.md m1 d/y/output-b-m1-ab12.json [0]",
			"d/y/input-b.md m2 d/y/output-b-m2-ab12.json [0]",
		}, ""},
		{"epochs per question: the sheet's most, each question in as many", []Sheet{mixed}, Options{Models: []string{"m"}}, []string{
			"input-mix.md m output-mix-m-epoch1.json [0 1 2] epoch 1 of 3",
			"input-mix.md m output-mix-m-epoch2.json [0 2] epoch 2 of 3",
			"input-mix.md m output-mix-m-epoch3.json [2] epoch 3 of 3",
		}, ""},
		{"epochs of the questions a subset keeps", []Sheet{mixed}, Options{Models: []string{"m"}, Subset: Subset{Limit: 2}}, []string{
			"input-mix.md m output-mix-m-epoch1.json [0 1] epoch 1 of 2",
			"input-mix.md m output-mix-m-epoch2.json [0] epoch 2 of 2",
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			jobs, err := Make(tc.sheets, tc.opt)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, j := range jobs {
				got = append(got, job(tc.sheets, j))
				if j.Epoch < 1 || j.Epoch > j.Epochs {
					t.Errorf("%s: epoch %d of %d", job(tc.sheets, j), j.Epoch, j.Epochs)
				}
				if all := len(j.Questions) == len(tc.sheets[j.Sheet].Questions); (j.Subset == nil) != (tc.opt.Subset.IsZero() && all) {
					t.Errorf("%s: subset record %+v for %+v", job(tc.sheets, j), j.Subset, tc.opt.Subset)
				}
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("jobs:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

// A question's key is the one journals have always held (model, absolute
// sheet, index in the job, name), so journals of earlier runs resume; an
// epoch past the first has keys of its own.
func TestKey(t *testing.T) {
	sheets := []Sheet{{Path: "s.md", Key: "/w/s.md", Questions: []Question{{Name: "A"}, {Name: "B"}, {Name: "A"}}}}
	jobs, err := Make(sheets, Options{Models: []string{"mock"}, Subset: Subset{Questions: []string{"A"}}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"mock|/w/s.md|0:A", "mock|/w/s.md|1:A"}; !reflect.DeepEqual(keys(sheets, jobs[0]), want) {
		t.Errorf("keys %q, want %q", keys(sheets, jobs[0]), want)
	}
	if k1, k2 := Key("m", "/s", 1, 0, "A"), Key("m", "/s", 2, 0, "A"); k1 == k2 {
		t.Errorf("epochs 1 and 2 share the key %q", k1)
	}
	// Epoch 2 of a question keeps its place: "B" is second in every epoch.
	sheets = []Sheet{{Path: "s.md", Key: "/w/s.md", Questions: []Question{{Name: "A"}, {Name: "B", Epochs: 2}}}}
	jobs, err = Make(sheets, Options{Models: []string{"mock"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"mock|/w/s.md|1:B|epoch 2"}; len(jobs) != 2 || !reflect.DeepEqual(keys(sheets, jobs[1]), want) {
		t.Errorf("epoch 2's keys %q, want %q", keys(sheets, jobs[len(jobs)-1]), want)
	}
}

// keys are the journal keys of a job's questions.
func keys(sheets []Sheet, j Job) []string {
	var out []string
	for i, q := range j.Questions {
		out = append(out, j.Key(i, sheets[j.Sheet].Questions[q].Name))
	}
	return out
}

// The subset keeps, in sheet order, the questions whose name or id meta
// matches a glob, then the first Limit of them, and says which globs
// matched.
func TestSubsetChoose(t *testing.T) {
	qs := []Question{{Name: "Planet-Count"}, {Name: "Largest-Planet", ID: "q-7"}, {Name: "Red-Planet"}, {Name: "Moon-Count", ID: "q-9"}, {Name: "Ring-Planet"}}
	for _, tc := range []struct {
		name    string
		sub     Subset
		want    string // names kept, comma-separated
		matched []bool
	}{
		{"all", Subset{}, "Planet-Count,Largest-Planet,Red-Planet,Moon-Count,Ring-Planet", []bool{}},
		{"limit", Subset{Limit: 2}, "Planet-Count,Largest-Planet", []bool{}},
		{"limit over the sheet", Subset{Limit: 9}, "Planet-Count,Largest-Planet,Red-Planet,Moon-Count,Ring-Planet", []bool{}},
		{"glob on names, sheet order", Subset{Questions: []string{"R*", "*Count"}}, "Planet-Count,Red-Planet,Moon-Count,Ring-Planet", []bool{true, true}},
		{"glob on the id meta", Subset{Questions: []string{"q-[0-8]"}}, "Largest-Planet", []bool{true}},
		{"exact id", Subset{Questions: []string{"q-9"}}, "Moon-Count", []bool{true}},
		{"filter, then limit", Subset{Questions: []string{"*Planet"}, Limit: 2}, "Largest-Planet,Red-Planet", []bool{true}},
		{"a glob matching past the limit", Subset{Questions: []string{"P*", "Moon-Count"}, Limit: 1}, "Planet-Count", []bool{true, true}},
		{"a glob matching nothing", Subset{Questions: []string{"Red-Planet", "Sun*"}}, "Red-Planet", []bool{true, false}},
		{"case matters", Subset{Questions: []string{"red-planet"}}, "", []bool{false}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			matched := make([]bool, len(tc.sub.Questions))
			var names []string
			for _, i := range tc.sub.choose(qs, matched) {
				names = append(names, qs[i].Name)
			}
			if got := strings.Join(names, ","); got != tc.want {
				t.Errorf("kept %q, want %q", got, tc.want)
			}
			if !reflect.DeepEqual(matched, tc.matched) {
				t.Errorf("matched %v, want %v", matched, tc.matched)
			}
		})
	}
}

func TestSubsetCheck(t *testing.T) {
	for _, tc := range []struct {
		sub  Subset
		want string // "" when valid
	}{
		{Subset{Limit: 3, Questions: []string{"a*", "[bc]?"}}, ""},
		{Subset{Limit: -1}, "--limit -1"},
		{Subset{Questions: []string{"[a"}}, `--questions "[a": syntax error in pattern`},
	} {
		err := tc.sub.Check()
		if (err == nil) != (tc.want == "") || err != nil && !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: %v, want %q", tc.sub, err, tc.want)
		}
	}
}
