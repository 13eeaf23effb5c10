package grade

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/py"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/result"
)

// TestLimeReference regrades every question of LIME's 26 real output files
// with the stored ground truths and compares with what LIME's grader.py
// computed (normal and -l).
func TestLimeReference(t *testing.T) {
	files, err := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) != 26 {
		t.Fatalf("found %d LIME output files, want 26", len(files))
	}
	ctx := context.Background()
	normal, liberal := newLime(Options{}), newLime(Options{Liberal: true})
	var total, differ int
	for _, path := range files {
		f, err := result.Read(path)
		if err != nil {
			t.Fatal(err)
		}
		data, err := os.ReadFile(shared.Path(t, "reference", "lime", "grade", filepath.Base(path)))
		if err != nil {
			t.Fatal(err)
		}
		var ref struct{ Normal, Liberal []*bool }
		if err := json.Unmarshal(data, &ref); err != nil {
			t.Fatal(err)
		}
		if len(ref.Normal) != len(f.Questions) || len(ref.Liberal) != len(f.Questions) {
			t.Fatalf("%s: %d questions, reference has %d/%d", path, len(f.Questions), len(ref.Normal), len(ref.Liberal))
		}
		for i, q := range f.Questions {
			for _, c := range []struct {
				g    Grader
				want *bool
				mode string
			}{{normal, ref.Normal[i], "normal"}, {liberal, ref.Liberal[i], "liberal"}} {
				v, err := Nullable(ctx, c.g, q.GroundTruth, q.Completion, Input{Meta: q.MetaData, Question: q.Question})
				if err != nil {
					t.Fatal(err)
				}
				total++
				if limeFmtBool(v.Correct) != limeFmtBool(c.want) {
					t.Errorf("%s #%d %s (%s): got %s want %s (%s)", filepath.Base(path), i, q.Name, c.mode, limeFmtBool(v.Correct), limeFmtBool(c.want), v.Detail)
				}
				if c.mode == "normal" && q.Grade != nil && c.want != nil && *q.Grade != *c.want {
					differ++
				}
			}
		}
	}
	t.Logf("%d grades compared (normal and liberal) over %d files; %d stored grades differ from LIME's current grader", total, len(files), differ)
	// The reference must exercise liberal mode: some question is liberal-only.
	if total < 500 {
		t.Errorf("only %d grades compared", total)
	}
}

func limeFmtBool(b *bool) string {
	if b == nil {
		return "null"
	}
	if *b {
		return "true"
	}
	return "false"
}

// TestLimeRules checks LIME's rule case by case, including the Python string
// semantics that decide grades.
func TestLimeRules(t *testing.T) {
	tests := []struct {
		truth, completion string
		normal, liberal   bool
	}{
		// Expected values were checked against LIME's fuzzier_match under
		// Python 3.11.
		{"B) 6", "B) 6", true, true},
		{"B) 6", "b 6", true, true},       // punctuation and case removed
		{"B) 6", "  B) 6.  ", true, true}, // strip then punctuation
		{"B) 6", "The answer is B) 6", true, true},
		{"B) 6", "b) 6 guesses", false, true},    // liberal: first letter
		{"B) 6", "(b) six guesses", false, true}, // docs/grading.md's example
		{"B) 6", "six, answer B", false, false},  // docs/grading.md's example
		{"B) 6", "A) 5", false, false},
		{"B) 6", "(B)", false, true},    // "(b" normalises to "b"
		{"B) 6", "    B", false, false}, // the first 4 code points normalise to ""
		{"B) 6", "   B", false, true},   // the first 4 code points are "   B"
		{"yes", "Yes.", true, true},
		{"Yes", "yes!", true, true},
		{"A", "Apple", true, true}, // raw substring
		{"a", "Apple", false, true},
		{"ΟΔΟΣ", "οδος", true, true},        // lower() makes the last Σ a final ς
		{"οδοσ", "ΟΔΟΣ", false, true},       // ... so a medial σ at the end differs
		{"ς", "Σ", false, false},            // a lone Σ is not final (nothing cased before)
		{"aΣ", "aσ", false, true},           // after a cased letter it is
		{"AΣ b", "aς b", true, true},        // followed by a space: still final
		{"Straße", "STRASSE", false, true},  // lower() does not fold ß
		{"naïve", "NAÏVE", true, true},      // Unicode lower
		{"x_1", "X_1!", true, true},         // '_' is a word character
		{"café", "cafe\u0301", false, true}, // a combining accent is not \w
		{"٣", "٣.", true, true},             // an Arabic-Indic digit is \w
		{"B", "\x1cb\x1c", true, true},      // \x1c is white space to Python
		{"(C) 7", "- C", false, true},       // "(" and "-" both normalise to ""
		{"İ", "i\u0307", true, true},        // İ lowers to i + U+0307, which is removed
	}
	ctx := context.Background()
	for _, tt := range tests {
		for _, lib := range []bool{false, true} {
			v, err := newLime(Options{Liberal: lib}).Grade(ctx, Input{Truth: tt.truth, Completion: tt.completion})
			if err != nil {
				t.Fatal(err)
			}
			want := tt.normal
			if lib {
				want = tt.liberal
			}
			if v.Correct == nil || *v.Correct != want {
				t.Errorf("lime(liberal=%t) truth %q completion %q = %s, want %t (%s)", lib, tt.truth, tt.completion, limeFmtBool(v.Correct), want, v.Detail)
			}
			// Liberal marks exactly the verdicts strict grading would not give.
			if byLiberal := lib && tt.liberal && !tt.normal; v.Liberal != byLiberal {
				t.Errorf("lime(liberal=%t) truth %q completion %q: Liberal %t, want %t", lib, tt.truth, tt.completion, v.Liberal, byLiberal)
			}
		}
	}
}

func TestLimeNull(t *testing.T) {
	ctx := context.Background()
	s := "B"
	g := newLime(Options{})
	for _, c := range []struct {
		name              string
		truth, completion *string
	}{{"no truth", nil, &s}, {"no completion", &s, nil}, {"neither", nil, nil}} {
		v, err := Nullable(ctx, g, c.truth, c.completion, Input{})
		if err != nil || v.Correct != nil {
			t.Errorf("%s: got %s, %v; want null", c.name, limeFmtBool(v.Correct), err)
		}
	}
	v, _ := g.Grade(ctx, Input{Truth: "", Completion: "x"})
	if v.Correct != nil {
		t.Errorf("empty truth: got %s, want null", limeFmtBool(v.Correct))
	}
	v, _ = g.Grade(ctx, Input{Truth: "B", Completion: ""})
	if v.Correct == nil || *v.Correct {
		t.Errorf("empty completion: got %s, want false (LIME: no match)", limeFmtBool(v.Correct))
	}
}

func FuzzLimeNorm(f *testing.F) {
	for _, s := range []string{"B) 6", "ΟΔΟΣ", "İ", "\x1c", "a_b", strings.Repeat("é", 10), "\xff"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, truth, completion string) {
		n := limeNorm(completion)
		if u := limeNormUnicode(completion); u != n {
			t.Errorf("ASCII fast path %q differs from the general path %q on %q", n, u, completion)
		}
		// Normalising leaves only word characters and white space (it is not
		// idempotent: LIME strips before removing punctuation, so "! 0"
		// gives " 0").
		for _, r := range n {
			if !limePyWord(r) && !py.IsSpace(r) {
				t.Errorf("limeNorm(%q) = %q keeps %q", completion, n, r)
			}
		}
		for _, lib := range []bool{false, true} {
			v, err := newLime(Options{Liberal: lib}).Grade(context.Background(), Input{Truth: truth, Completion: completion})
			if err != nil {
				t.Fatal(err)
			}
			if truth != "" && v.Correct == nil {
				t.Fatalf("null verdict for truth %q", truth)
			}
			if truth != "" && strings.Contains(completion, truth) && !*v.Correct {
				t.Fatalf("truth %q inside %q graded false", truth, completion)
			}
		}
	})
}
