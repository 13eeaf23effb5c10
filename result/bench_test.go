package result

import (
	"bytes"
	"fmt"
	"testing"
)

// bigFile is an output file of n questions shaped like a real run's.
func bigFile(n int) []byte {
	f := &File{Sheet: Sheet{Name: "Big", RunID: "abcd", ModelName: "openai/gpt-4o", MetaData: map[string]string{"grader": "choice"}}}
	for i := 0; i < n; i++ {
		c, g, et := fmt.Sprintf("The answer is B) %d.", i), i%2 == 0, 1.25
		gt := fmt.Sprintf("B) %d", i)
		f.Questions = append(f.Questions, Question{
			Name: fmt.Sprintf("Q-%d", i), MetaData: map[string]string{"grader": "choice", "id": fmt.Sprint(i), "level": "easy"},
			GroundTruth: &gt, Question: fmt.Sprintf("Question %d: which is right?\nA) %d\nB) %d\nC) %d\nD) none\n", i, i-1, i, i+1),
			Completion: &c, ModelName: "openai/gpt-4o", EvalTime: &et, Grade: &g, InputTokens: 120, OutputTokens: 8,
			Grader: "choice", GradeDetail: "extracted B",
		})
	}
	data, err := f.Marshal()
	if err != nil {
		panic(err)
	}
	return data
}

// BenchmarkParse10k decodes a 10,000-question output file (what grade and
// the exports read).
func BenchmarkParse10k(b *testing.B) {
	data := bigFile(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		f, err := Parse(data)
		if err != nil || len(f.Questions) != 10000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkScan10k reads a 10,000-question output file a question at a
// time (what a rerun's index and agg past a few megabytes read).
func BenchmarkScan10k(b *testing.B) {
	data := bigFile(10000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		n := 0
		err := Scan(bytes.NewReader(data), func(*Sheet) error { return nil }, func(*Question, Span) error { n++; return nil })
		if err != nil || n != 10000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseWalked1k decodes a 1,000-question output file each of
// whose questions has a member the fast decoding leaves to the walk.
func BenchmarkParseWalked1k(b *testing.B) {
	data := bytes.ReplaceAll(bigFile(1000), []byte(`"grade_detail":`), []byte(`"Grade": true, "grade_detail":`))
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		f, err := Parse(data)
		if err != nil || len(f.Questions) != 1000 {
			b.Fatal(err)
		}
	}
}

// BenchmarkMarshal1k encodes a 1,000-question output file, which run does
// after a sheet's last answer, so its time adds to the run's wall time.
func BenchmarkMarshal1k(b *testing.B) {
	f, err := Parse(bigFile(1000))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		data, err := f.Marshal()
		if err != nil {
			b.Fatal(err)
		}
		b.SetBytes(int64(len(data)))
	}
}
