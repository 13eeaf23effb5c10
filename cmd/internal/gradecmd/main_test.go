package gradecmd

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// grade -w over copies of LIME's real output files writes grade files equal
// to what LIME's grader computes, in normal and liberal mode.
func TestGradeMatchesLIME(t *testing.T) {
	src, _ := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-*.json"))
	if len(src) != 26 {
		t.Fatalf("%d output files", len(src))
	}
	for _, mode := range []string{"normal", "liberal"} {
		dir := t.TempDir()
		for _, p := range src {
			b, _ := os.ReadFile(p)
			os.WriteFile(filepath.Join(dir, filepath.Base(p)), b, 0o644)
		}
		args := []string{"-o", dir, "-w"}
		if mode == "liberal" {
			args = append(args, "-l")
		}
		var stdout, stderr bytes.Buffer
		if err := grade(context.Background(), &stdout, &stderr, args); err != nil {
			t.Fatalf("%s: %v\n%s", mode, err, stderr.String())
		}
		for _, p := range src {
			base := filepath.Base(p)
			var ref map[string][]*bool
			raw, err := os.ReadFile(shared.Path(t, "reference", "lime", "grade", base))
			if err != nil {
				t.Fatal(err)
			}
			json.Unmarshal(raw, &ref)
			var got []*bool
			g, err := os.ReadFile(filepath.Join(dir, "grade-"+strings.TrimPrefix(base, "output-")))
			if err != nil {
				t.Fatalf("%s: no grade file: %v", base, err)
			}
			if err := json.Unmarshal(g, &got); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, ref[mode]) {
				t.Errorf("%s %s: grades differ from LIME's", mode, base)
			}
		}
	}
}

// Without -w nothing is written.
func TestDryRunWritesNothing(t *testing.T) {
	src, _ := filepath.Glob(shared.Path(t, "corpora", "lime", "results", "output-wsu-1-gpt-4-1063.json"))
	if len(src) != 1 {
		shared.Missing(t, "output-wsu-1-gpt-4-1063.json not in the corpus")
	}
	dir := t.TempDir()
	b, _ := os.ReadFile(src[0])
	p := filepath.Join(dir, filepath.Base(src[0]))
	os.WriteFile(p, b, 0o644)
	var stdout bytes.Buffer
	if err := grade(context.Background(), &stdout, &stdout, []string{"-o", p, "-l"}); err != nil {
		t.Fatal(err)
	}
	after, _ := os.ReadFile(p)
	ents, _ := os.ReadDir(dir)
	if !bytes.Equal(b, after) || len(ents) != 1 {
		t.Errorf("dry run changed the folder: %d entries", len(ents))
	}
}

func TestGradeErrors(t *testing.T) {
	dir := t.TempDir()
	half := filepath.Join(dir, "output-half-m-1.json")
	os.WriteFile(half, []byte(`{"sheet": {"name": "x"}, "questions": [`), 0o644)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "name output files"},
		{[]string{"-o", half}, "output-half-m-1.json"},
		{[]string{"-o", half, "-i", "missing.md"}, "missing.md"},
		{[]string{"-o", half, "--grader", "nope"}, ""},
	} {
		var b bytes.Buffer
		err := grade(context.Background(), &b, &b, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("grade %q: %v, want %q", tc.args, err, tc.want)
		}
		if strings.Count(strings.TrimSpace(err.Error()), "\n") > 0 {
			t.Errorf("grade %q: error is not one line: %q", tc.args, err)
		}
	}
}
