package write

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/result"
)

// Questions put in the order their answers came (scrambled, two outputs'
// interleaved, some larger than the most of the scratch file read at once) are written
// back in sheet order: the output file is Marshal's bytes and its
// markdown is Markdown's.
func TestSpillWritesInSheetOrder(t *testing.T) {
	sc, err := NewScratch(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	files := []*result.File{outputFile(3000, "a"), outputFile(5, "b"), outputFile(0, "c")}
	spills := make([]*Spill, len(files))
	var order [][2]int // output, question
	for fi, f := range files {
		spills[fi] = sc.Spill(len(f.Questions))
		for i := range f.Questions {
			order = append(order, [2]int{fi, i})
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
	for _, p := range order {
		if err := spills[p[0]].PutQuestion(&files[p[0]].Sheet, p[1], &files[p[0]].Questions[p[1]]); err != nil {
			t.Fatal(err)
		}
	}
	for fi, f := range files {
		want, err := f.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		var got, md bytes.Buffer
		if err := f.WriteJSON(&got, spills[fi].Len(), spills[fi].JSON); err != nil {
			t.Fatal(err)
		}
		if err := f.WriteMarkdown(&md, spills[fi].Len(), spills[fi].Markdown); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			t.Errorf("output %d: the JSON written from the spill differs from Marshal's (%d bytes, want %d)", fi, got.Len(), len(want))
		}
		if md.String() != result.Markdown(f) {
			t.Errorf("output %d: the markdown written from the spill differs from Markdown's", fi)
		}
	}
}

// A question that was never put is an error when the output is written,
// not a question missing from the file.
func TestSpillMissingQuestion(t *testing.T) {
	sc, err := NewScratch(filepath.Join(t.TempDir(), "journal"))
	if err != nil {
		t.Fatal(err)
	}
	defer sc.Close()
	f := outputFile(3, "a")
	sp := sc.Spill(3)
	for _, i := range []int{0, 2} {
		if err := sp.PutQuestion(&f.Sheet, i, &f.Questions[i]); err != nil {
			t.Fatal(err)
		}
	}
	var got bytes.Buffer
	if err := f.WriteJSON(&got, sp.Len(), sp.JSON); err == nil || !strings.Contains(err.Error(), "question 2 of 3 was never settled") {
		t.Errorf("WriteJSON: %v", err)
	}
}

// outputFile is an answered output of n questions; every 997th has a
// completion longer than the most of the scratch file read at once.
func outputFile(n int, name string) *result.File {
	f := &result.File{Sheet: result.Sheet{Name: name, RunID: "r", ModelName: "m"}, Questions: []result.Question{}}
	for i := range n {
		c := fmt.Sprintf("answer %d", i)
		if i%997 == 0 {
			c = strings.Repeat("long ", maxStretch/4)
		}
		g := i%3 == 0
		f.Questions = append(f.Questions, result.Question{Name: fmt.Sprintf("Q%d", i), Question: "ask " + name, Completion: &c, ModelName: "m", Grade: &g,
			MetaData: map[string]string{"id": fmt.Sprint(i)}})
	}
	return f
}
