package databench

import (
	"bufio"
	"fmt"
	"io"
	"strings"

	"github.com/evalmd/evalmd/result"
)

// lineBreaks are the characters Python's str.splitlines breaks at, which
// databench_eval uses to read predictions.txt back; "\r\n" is one break.
var lineBreaks = strings.NewReplacer(
	"\r\n", " ", "\n", " ", "\r", " ", "\v", " ", "\f", " ",
	"\x1c", " ", "\x1d", " ", "\x1e", " ", "\u0085", " ", "\u2028", " ", "\u2029", " ",
)

// SemEvalPredictions writes a SemEval 2025 Task 8 predictions file from an
// output file: one answer a line, in question order (the order of the
// task's QA set, which the sheet keeps), each completion with its line
// breaks turned into spaces so that line n stays question n, and an empty
// line for a question without a completion. databench_eval reads the file
// with str.splitlines and compares line n with answer n.
func WritePredictions(w io.Writer, f *result.File) error {
	if f == nil {
		return fmt.Errorf("semeval predictions: no output file")
	}
	bw := bufio.NewWriter(w)
	for _, q := range f.Questions {
		if q.Completion != nil {
			bw.WriteString(lineBreaks.Replace(*q.Completion))
		}
		bw.WriteByte('\n')
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("semeval predictions for %q: %w", f.Sheet.Name, err)
	}
	return nil
}
