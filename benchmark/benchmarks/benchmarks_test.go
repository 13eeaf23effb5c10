package benchmarks

import (
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/grade"
)

// gradersPage lists every grader in a table whose first column is the
// grader's name.
const gradersPage = "../../docs/grading.md"

// listedGraders returns the names in the first column of the page's
// table headed "| grader |".
func listedGraders(page string) ([]string, error) {
	_, table, ok := strings.Cut(page, "\n| grader |")
	if !ok {
		return nil, fmt.Errorf("no table headed | grader |")
	}
	name := regexp.MustCompile("^\\| `([^`]+)` \\|")
	var names []string
	for _, line := range strings.Split(table, "\n")[2:] { // after the header's rest and its rule
		if !strings.HasPrefix(line, "|") {
			break
		}
		m := name.FindStringSubmatch(line)
		if m == nil {
			return nil, fmt.Errorf("row %q does not start with a `grader`", line)
		}
		names = append(names, m[1])
	}
	return names, nil
}

// differ says which names one list has that the other lacks.
func differ(listed, known []string) (missing, extra []string) {
	for _, n := range known {
		if !slices.Contains(listed, n) {
			missing = append(missing, n)
		}
	}
	for _, n := range listed {
		if !slices.Contains(known, n) {
			extra = append(extra, n)
		}
	}
	return missing, extra
}

// docs/grading.md's table of graders is the commands' registry's: a
// grader added (a benchmark's, here "toy") and not listed, or a row no
// grader has, fails.
func TestGradingPageListsEveryGrader(t *testing.T) {
	data, err := os.ReadFile(gradersPage)
	if err != nil {
		t.Fatal(err)
	}
	page := string(data)
	toy := benchmark.Benchmark{Name: "toy", Graders: map[string]grade.Factory{"toy": func(grade.Options) (grade.Grader, error) { return nil, nil }}}
	for _, tc := range []struct {
		name                string
		page                string
		more                []benchmark.Benchmark
		wantMissing, wantEx []string
		wantErr             string
	}{
		{name: "the page", page: page},
		{name: "a grader the page lacks", page: page, more: []benchmark.Benchmark{toy}, wantMissing: []string{"toy"}},
		{name: "a row no grader has", page: strings.Replace(page, "| `lime` |", "| `gone` | x |\n| `lime` |", 1), wantEx: []string{"gone"}},
		{name: "a row without a name", page: strings.Replace(page, "| `lime` |", "| lime |", 1), wantErr: "does not start with"},
		{name: "no table", page: "# Grading\n", wantErr: "no table"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			set, err := benchmark.NewSet(append(All(), tc.more...)...)
			if err != nil {
				t.Fatal(err)
			}
			listed, err := listedGraders(tc.page)
			if (err != nil) != (tc.wantErr != "") || err != nil && !strings.Contains(err.Error(), tc.wantErr) {
				t.Fatalf("%s: %v, want an error with %q", gradersPage, err, tc.wantErr)
			}
			if err != nil {
				return
			}
			missing, extra := differ(listed, set.Graders.Names())
			if !slices.Equal(missing, tc.wantMissing) || !slices.Equal(extra, tc.wantEx) {
				t.Errorf("%s: graders not listed %q (want %q), listed but not graders %q (want %q)",
					gradersPage, missing, tc.wantMissing, extra, tc.wantEx)
			}
		})
	}
}
