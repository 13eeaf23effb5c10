package runcmd

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
	"github.com/evalmd/evalmd/result"
)

// The dry run over every LIME sheet writes, for every question, the name,
// meta_data, ground_truth and question that LIME's own parser produced.
func TestDryRunMatchesLIME(t *testing.T) {
	root := shared.Path(t, "corpora", "lime")
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-y", "-d", root, "-o", out, "-u", "0", "-v"}); err != nil {
		t.Fatalf("run: %v\n%s", err, stderr.String())
	}
	refs, _ := filepath.Glob(shared.Path(t, "reference", "lime", "parse", "*.json"))
	if len(refs) != 16 {
		t.Fatalf("%d references", len(refs))
	}
	checked := 0
	for _, refPath := range refs {
		var ref struct {
			Source    string `json:"source"`
			Questions []struct {
				Name        string            `json:"name"`
				MetaData    map[string]string `json:"meta_data"`
				GroundTruth *string           `json:"ground_truth"`
				Question    string            `json:"question"`
			} `json:"questions"`
		}
		raw, _ := os.ReadFile(refPath)
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatal(err)
		}
		rel := filepath.Dir(ref.Source)
		name := result.FileName(ref.Source, "dry-run", "")
		f, err := result.Read(filepath.Join(out, rel, name))
		if err != nil {
			t.Fatalf("%s: %v", ref.Source, err)
		}
		if len(f.Questions) != len(ref.Questions) {
			t.Fatalf("%s: %d questions, want %d", ref.Source, len(f.Questions), len(ref.Questions))
		}
		for i, want := range ref.Questions {
			got := f.Questions[i]
			if got.Name != want.Name || !reflect.DeepEqual(got.MetaData, want.MetaData) ||
				!reflect.DeepEqual(got.GroundTruth, want.GroundTruth) || got.Question != want.Question {
				t.Errorf("%s #%d %s differs from LIME", ref.Source, i, want.Name)
			}
			if got.Completion != nil || got.Grade != nil {
				t.Errorf("%s %s: a dry run answered or graded", ref.Source, want.Name)
			}
			checked++
		}
	}
	if checked < 100 {
		t.Errorf("only %d questions checked", checked)
	}
	if n := strings.Count(stdout.String(), "\n"); n != 16 {
		t.Errorf("-v listed %d outputs, want 16", n)
	}
}

func TestUsageErrors(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "give one of -f SHEET or -d DIR"},
		{[]string{"-f", "a.md", "-d", "b"}, "give one of -f SHEET or -d DIR"},
		{[]string{"-f", "missing.md", "-y"}, "missing.md"},
		{[]string{"-d", t.TempDir(), "-y"}, "no input*.md sheets"},
		{[]string{"-f", "x.md", "extra"}, "unexpected argument"},
		{[]string{"-f", "x.md", "-temperature", "hot"}, "is not a number"},
	} {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), &stdout, &stderr, tc.args)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("run %q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
