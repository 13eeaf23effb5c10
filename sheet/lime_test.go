package sheet

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/schema"
)

// limeRef is one file of reference/lime/parse: what LIME's own parser made.
type limeRef struct {
	Source string `json:"source"`
	Sheet  *struct {
		Name     string            `json:"name"`
		MetaData map[string]string `json:"meta_data"`
		Question *string           `json:"question"`
	} `json:"sheet"`
	Questions []struct {
		Name        string            `json:"name"`
		MetaData    map[string]string `json:"meta_data"`
		GroundTruth *string           `json:"ground_truth"`
		Question    string            `json:"question"`
		QuestionSys string            `json:"question_sys"`
		QuestionUsr string            `json:"question_usr"`
	} `json:"questions"`
	Skipped []string `json:"skipped_questions"`
}

// Every real LIME sheet parses to exactly what LIME's parser recorded, with
// both the default schema and LIME's own schema file.
func TestLIMEReferenceParse(t *testing.T) {
	refs, _ := filepath.Glob(shared.Path(t, "reference", "lime", "parse", "*.json"))
	if len(refs) < 16 {
		t.Fatalf("found %d reference parses, want 16", len(refs))
	}
	limeSchema, err := schema.Load(shared.Path(t, "corpora", "lime", "md-schema.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	for _, refPath := range refs {
		raw, err := os.ReadFile(refPath)
		if err != nil {
			t.Fatal(err)
		}
		var ref limeRef
		if err := json.Unmarshal(raw, &ref); err != nil {
			t.Fatalf("%s: %v", refPath, err)
		}
		for _, sc := range []*schema.Schema{nil, limeSchema} {
			doc, err := ParseFile(shared.Path(t, "corpora", "lime", ref.Source), sc)
			if err != nil {
				t.Fatalf("%s: %v", ref.Source, err)
			}
			info, items := doc.Resolve()
			checkRef(t, ref, info, items, doc)
			// TakeItems resolves alike, and lets the blocks go.
			if again, err := ParseFile(shared.Path(t, "corpora", "lime", ref.Source), sc); err != nil {
				t.Fatal(err)
			} else if tinfo, titems := again.TakeItems(); !reflect.DeepEqual(tinfo, info) || !reflect.DeepEqual(titems, items) || again.Blocks != nil {
				t.Errorf("%s: TakeItems differs from Resolve, or kept %d blocks", ref.Source, len(again.Blocks))
			}
			// LIME's own sheets (notes in "#### info" before a block's
			// first section) draw none of the warnings about sections LIME
			// misreads.
			for _, w := range doc.Warnings {
				for _, noisy := range []string{"is not a section", "has no ':'", "no questions", "byte order mark"} {
					if strings.Contains(w.Msg, noisy) {
						t.Errorf("%s: unexpected warning %s", ref.Source, w)
					}
				}
			}
		}
	}
}

func checkRef(t *testing.T, ref limeRef, info Info, items []Item, doc *Doc) {
	t.Helper()
	src := ref.Source
	if ref.Sheet != nil {
		if info.Name != ref.Sheet.Name || !reflect.DeepEqual(info.Meta, ref.Sheet.MetaData) || !reflect.DeepEqual(info.Question, ref.Sheet.Question) {
			t.Errorf("%s: sheet = %q %v %v, want %q %v %v", src, info.Name, info.Meta, deref(info.Question),
				ref.Sheet.Name, ref.Sheet.MetaData, deref(ref.Sheet.Question))
		}
	} else if info.Present {
		t.Errorf("%s: sheet header found, LIME found none", src)
	}
	if len(items) != len(ref.Questions) {
		t.Fatalf("%s: %d questions, want %d", src, len(items), len(ref.Questions))
	}
	for i, want := range ref.Questions {
		got := items[i]
		if got.Name != want.Name {
			t.Errorf("%s #%d: name %q, want %q", src, i, got.Name, want.Name)
		}
		if !reflect.DeepEqual(got.Meta, want.MetaData) {
			t.Errorf("%s %s: meta %v, want %v", src, want.Name, got.Meta, want.MetaData)
		}
		if !reflect.DeepEqual(got.GroundTruth, want.GroundTruth) {
			t.Errorf("%s %s: ground truth %q, want %q", src, want.Name, deref(got.GroundTruth), deref(want.GroundTruth))
		}
		if got.Prompt != want.Question || got.SheetText != want.QuestionSys || got.Text != want.QuestionUsr {
			t.Errorf("%s %s: prompt\n%q\nwant\n%q", src, want.Name, got.Prompt, want.Question)
		}
	}
	var skipped []string
	for _, b := range doc.Blocks {
		if b.Kind == QuestionKind && b.First("question") == nil {
			skipped = append(skipped, b.Name)
		}
	}
	if strings.Join(skipped, "|") != strings.Join(ref.Skipped, "|") {
		t.Errorf("%s: skipped %q, want %q", src, skipped, ref.Skipped)
	}
}

func deref(s *string) any {
	if s == nil {
		return nil
	}
	return *s
}
