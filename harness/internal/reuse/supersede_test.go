package reuse

import (
	"fmt"
	"testing"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
)

// q is a question asked as text with truth, answered unless err, with the
// request key key, reused from the file from ("" when its run asked it).
type q struct {
	name, text, truth, key, from string
	err, right                   bool
}

// earlierOf is f, at path, as Load finds it.
func earlierOf(path string, f *result.File) Earlier {
	e := Earlier{Path: path, File: f, Outline: OutlineOf(path, f)}
	for i := range f.Questions {
		e.Tally.Add(&f.Questions[i])
	}
	return e
}

// OutlineOf is the Outline of the output file f at path, read whole.
func OutlineOf(path string, f *result.File) *Outline {
	o := &Outline{Path: path, Sheet: &f.Sheet}
	for i := range f.Questions {
		o.Add(&f.Questions[i])
	}
	return o
}

func outputOf(sheetSubset bool, qs ...q) *result.File {
	f := &result.File{Sheet: result.Sheet{Name: "S", ModelName: "m", Version: "v"}}
	if sheetSubset {
		f.Sheet.Subset = &result.Subset{Limit: len(qs), Of: 9}
	}
	for _, x := range qs {
		g := x.right
		rq := result.Question{Name: x.name, Question: x.text, GroundTruth: ptr(x.truth), RequestKey: x.key, ReusedFrom: x.from, Grade: &g}
		if x.err {
			rq.Error = ptr("failed")
		} else {
			rq.Completion = ptr("an answer")
		}
		f.Questions = append(f.Questions, rq)
	}
	return f
}

// TestSupersedes: an earlier output is superseded when each answer it
// holds to a question as the sheet is now is carried by the new output;
// an answer to a question it still holds as it was and does not carry
// (another sample), a question outside a subset's, or a question without
// a request key keeps it. An error is superseded by asking again.
func TestSupersedes(t *testing.T) {
	const old, now = "output-s-m-a1.json", "output-s-m-b2.json"
	earlier := outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1"}, q{name: "Q2", text: "two", truth: "2", key: "k2"})
	// Two questions of one name are told apart by their place.
	twice := outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1"}, q{name: "Q1", text: "one", truth: "1", key: "k1x"})
	for _, tc := range []struct {
		name    string
		earlier *result.File
		now     *result.File
		want    bool
	}{
		{"every answer reused", earlier, outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old}), true},
		{"one edited, one reused", earlier, outputOf(false, q{name: "Q1", text: "one!", truth: "1", key: "k1b"}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old}), true},
		{"truth edited, asked again", earlier, outputOf(false, q{name: "Q1", text: "one", truth: "I", key: "k1b"}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old}), true},
		{"a question removed", earlier, outputOf(false, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old}), true},
		{"asked again as it was (--fresh)", earlier, outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1"}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old}), false},
		{"a subset without Q2", earlier, outputOf(true, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}), false},
		{"a subset holding both", earlier, outputOf(true, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old}), true},
		{"an error asked again", outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", err: true}), outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1"}), true},
		{"an error outside the subset", outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", err: true}, q{name: "Q2", text: "two", truth: "2", key: "k2", err: true}),
			outputOf(true, q{name: "Q1", text: "one", truth: "1", key: "k1"}), false},
		{"no request key", outputOf(false, q{name: "Q1", text: "one", truth: "1"}), outputOf(false, q{name: "Q1", text: "one!", truth: "1", key: "k1"}), false},
		{"a name twice, both reused", twice, outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}, q{name: "Q1", text: "one", truth: "1", key: "k1x", from: old}), true},
		{"a name twice, the second asked again", twice, outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}, q{name: "Q1", text: "one", truth: "1", key: "k1x"}), false},
		{"a name twice, the two swapped", twice, outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1x", from: old}, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}), false},
		{"a name twice, the second edited", twice, outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}, q{name: "Q1", text: "one!", truth: "1", key: "k1y"}), true},
	} {
		if got := Supersedes(OutlineOf(now, tc.now), earlierOf(old, tc.earlier)); got != tc.want {
			t.Errorf("%s: Supersedes = %v, want %v", tc.name, got, tc.want)
		}
	}
	other := outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old})
	other.Sheet.Epoch, other.Sheet.Epochs = 2, 2
	if Supersedes(OutlineOf(now, other), earlierOf(old, earlier)) {
		t.Error("epoch 2 supersedes epoch 1")
	}
	part := outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old})
	part.Sheet.Shard, part.Sheet.Shards = 1, 2
	if Supersedes(OutlineOf(now, part), earlierOf(old, earlier)) {
		t.Error("a shard's part without Q2 supersedes a whole run")
	}
	if Supersedes(OutlineOf(old, earlier), earlierOf(old, earlier)) {
		t.Error("a file supersedes itself")
	}
	// Another shard's part of the same run, even one that holds no
	// question, is a part of the run's file, not an earlier output; so is
	// another shard's part of an earlier run, or a part of a run split
	// otherwise. The same shard's part of an earlier run split alike is
	// an earlier output.
	for _, tc := range []struct {
		run  string
		k, n int
		qs   []q
		want bool
	}{
		{"b2", 2, 2, nil, false},
		{"b2", 2, 2, []q{{name: "Q2", text: "two", truth: "2", key: "k2"}}, false},
		{"a1", 1, 2, nil, true},
		{"a1", 1, 2, []q{{name: "Q1", text: "one", truth: "1", key: "k1"}}, true},
		{"a1", 2, 2, nil, false},
		{"a1", 1, 3, []q{{name: "Q1", text: "one", truth: "1", key: "k1"}}, false},
	} {
		e := outputOf(false, tc.qs...)
		e.Sheet.RunID, e.Sheet.Shard, e.Sheet.Shards = tc.run, tc.k, tc.n
		part.Sheet.RunID = "b2"
		if got := Supersedes(OutlineOf(now, part), earlierOf(fmt.Sprintf("output-s-m-%s-shard%dof%d.json", tc.run, tc.k, tc.n), e)); got != tc.want {
			t.Errorf("shard %d/%d's part of run %s holding %d questions: superseded by shard 1/2's of run b2: %v, want %v", tc.k, tc.n, tc.run, len(tc.qs), got, tc.want)
		}
	}
}

// TestRepeats: an output all of whose answers are reused, graded alike,
// repeats the earlier output that holds them; a grade, a truth or one
// question asked makes it another.
func TestRepeats(t *testing.T) {
	const old, now = "output-s-m-a1.json", "output-s-m-b2.json"
	earlier := []Earlier{earlierOf(old, outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1"}, q{name: "Q2", text: "two", truth: "2", key: "k2", right: true}))}
	for _, tc := range []struct {
		name string
		now  *result.File
		want bool
	}{
		{"every answer reused", outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old, right: true}), true},
		{"graded otherwise", outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old, right: true}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old, right: true}), false},
		{"a truth edited", outputOf(false, q{name: "Q1", text: "one", truth: "I", key: "k1", from: old}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old, right: true}), false},
		{"one asked", outputOf(false, q{name: "Q1", text: "one", truth: "1", key: "k1"}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old, right: true}), false},
		{"a subset", outputOf(true, q{name: "Q1", text: "one", truth: "1", key: "k1", from: old}, q{name: "Q2", text: "two", truth: "2", key: "k2", from: old, right: true}), false},
	} {
		e, got := Repeats(OutlineOf(now, tc.now), earlier)
		if got != tc.want || got && e.Path != old {
			t.Errorf("%s: Repeats = %q, %v; want %v", tc.name, e.Path, got, tc.want)
		}
	}
}

// A question outlined with a conversation or a schema is not one asked
// without them, nor with others; without either, its outline is as it
// was before they existed.
func TestOutlineConversation(t *testing.T) {
	base := result.Question{Name: "q", Question: "Who am I?", RequestKey: "k"}
	turns := base
	turns.Conversation = []model.Message{{Role: "user", Content: "I am Ada."}}
	other := base
	other.Conversation = []model.Message{{Role: "user", Content: "I am Bob."}}
	schema := base
	schema.ResponseSchema = `{"type":"object"}`
	seen := map[digest]string{}
	for name, q := range map[string]result.Question{"plain": base, "turns": turns, "other turns": other, "schema": schema} {
		d := outline("output-s-m-1.json", &q).asked
		if prev, dup := seen[d]; dup {
			t.Errorf("%s is outlined as %s", name, prev)
		}
		seen[d] = name
	}
}
