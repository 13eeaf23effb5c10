package dsbench

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/internal/testkit/shared"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/schema"
	"github.com/evalmd/evalmd/sheet"
	"github.com/evalmd/evalmd/tokens"
	"github.com/evalmd/evalmd/workbook"
)

// buildSheet parses a written sheet and builds every question's request the
// way run does.
func buildSheet(t *testing.T, path string, b *prompt.Builder) ([]sheet.Item, []string, []string) {
	t.Helper()
	doc, err := sheet.ParseFile(path, schema.Default())
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range doc.Warnings {
		t.Errorf("%s", w)
	}
	info, items := doc.Resolve()
	b.SheetMeta = info.Meta // data_root: where the files may be
	var systems, users []string
	for i := range items {
		req, err := b.Build(t.Context(), path, &items[i])
		if err != nil {
			t.Fatal(err)
		}
		systems = append(systems, req.System)
		users = append(users, req.Messages[0].Content)
	}
	return items, systems, users
}

// TestConvertReference converts the real corpus, reads the sheets back with
// the sheet parser and prompt builder, and checks every request and ground
// truth against the notebook's (reference/dsbench/prompts.jsonl).
func TestConvertReference(t *testing.T) {
	ref := readRefPrompts(t)
	out := t.TempDir()
	paths, errs := Convert(t.Context(), Options{Data: shared.Path(t, "corpora", "dsbench"), Out: out})
	for _, err := range problems(t, errs, 38) {
		t.Error(err)
	}
	if len(paths) != 38 {
		t.Fatalf("%d sheets written, want 38", len(paths))
	}
	comps, _ := Load(shared.Path(t, "corpora", "dsbench"))
	answers := map[string]answer{}
	for _, c := range comps {
		for _, q := range c.Questions {
			answers[c.ID+"/"+q.Name] = q.Answer
		}
	}
	i := 0
	for _, path := range paths {
		b := &prompt.Builder{Dir: filepath.Dir(path), Model: "gpt-4-turbo-2024-04-09", Vision: true}
		items, systems, users := buildSheet(t, path, b)
		for k, it := range items {
			if i >= len(ref) {
				t.Fatal("more questions than the reference")
			}
			r := ref[i]
			i++
			id := r.Competition + "/" + r.Question
			if it.Meta["id"] != id || it.Name != r.Question {
				t.Fatalf("question %d is %s (%s), reference has %s", i, it.Meta["id"], it.Name, id)
			}
			if systems[k] != r.System {
				t.Errorf("%s: system %q, want %q", id, systems[k], r.System)
			}
			if users[k] != r.User {
				t.Errorf("%s: user message differs at byte %d", id, firstDiff(users[k], r.User))
			}
			if it.GroundTruth == nil || *it.GroundTruth != answers[id].Python() {
				t.Errorf("%s: ground truth %v, want %q", id, it.GroundTruth, answers[id].Python())
			}
			if it.Meta["truncate"] != "keep-last" {
				t.Errorf("%s: truncate meta %q", id, it.Meta["truncate"])
			}
			// Every prompt fits gpt-4-turbo, so the cut leaves it whole.
			const turbo = "gpt-4-turbo-2024-04-09"
			limit, _ := model.ContextLimit(turbo)
			enc, _ := tokens.EncodingFor(turbo)
			if cut, err := tokens.CutRule(users[k], tokens.Rule{Truncate: it.Meta["truncate"]}, tokens.Limits{Model: turbo, ContextLimit: limit, Encoding: enc}); err != nil || cut != users[k] {
				t.Errorf("%s: the cut changed a prompt that fits (%v)", id, err)
			}
		}
	}
	if i != len(ref) {
		t.Errorf("%d questions in the sheets, %d in the reference", i, len(ref))
	}
	t.Logf("%d sheets, %d questions equal the notebook's messages", len(paths), i)
}

// TestConvertWorkbooksAndImage checks a converted sheet with workbooks and
// an image against Prompts, with and without vision.
func TestConvertWorkbooksAndImage(t *testing.T) {
	dir := writeTree(t, map[string]string{
		"data.json":               `{"id": "7", "name": "case", "questions": ["question1", "question2"], "answers": ["B", {"Q": 1, "# of words": 7}]}`,
		"data/7/introduction.txt": "INTRO\n# not a header\n",
		"data/7/question1.txt":    "first?\n#### answer\nnot an answer",
		"data/7/question2.txt":    "second? ",
		"data/7/b.xlsx":           "",
		"data/7/a.xlsm":           "",
		"data/7/chart.png":        "PNG",
	})
	out := filepath.Join(t.TempDir(), "sheets")
	paths, errs := Convert(t.Context(), Options{Data: dir, Out: out})
	if len(errs) > 0 || len(paths) != 1 {
		t.Fatalf("%v %v", paths, errs)
	}
	comps, _ := Load(dir)
	render := func(path string) (string, error) {
		return "Sheet name: S\n<" + filepath.Base(path) + ">\n\n", nil
	}
	for _, tt := range []struct {
		model  string
		vision bool
	}{{"gpt-4o-2024-05-13", true}, {"gpt-3.5-turbo-0125", false}} {
		want, err := comps[0].Prompts(render, tt.model)
		if err != nil {
			t.Fatal(err)
		}
		b := &prompt.Builder{Dir: out, Model: tt.model, Vision: tt.vision, RenderWorkbook: func(_ context.Context, p string) (string, error) { return render(p) }} // no data root: the files are beside the sheet
		items, systems, users := buildSheet(t, paths[0], b)
		if len(items) != 2 {
			t.Fatalf("%d questions", len(items))
		}
		for k := range items {
			if systems[k] != want[k].System || users[k] != want[k].User {
				t.Errorf("%s %s: sheet gives system %q user %q; want %q %q", tt.model, items[k].Name, systems[k], users[k], want[k].System, want[k].User)
			}
		}
		if got := items[1].Meta["answer_json"]; got != `{"Q":1,"# of words":7}` {
			t.Errorf("answer_json meta %q", got)
		}
		if got := *items[1].GroundTruth; got != `{'Q': 1, '# of words': 7}` {
			t.Errorf("ground truth %q", got)
		}
		if !strings.HasSuffix(items[0].Files[2].Text, "chart.png") {
			t.Errorf("files %v", items[0].Files)
		}
	}
}

// problems are errs but the note of the competitions converted without a
// workbook, which says bare of them (the corpus holds DSBench's texts
// alone; a test adds the workbooks of some).
func problems(t *testing.T, errs []error, bare int) []error {
	t.Helper()
	var out []error
	noted := 0
	for _, err := range errs {
		if n := (*benchmark.Note)(nil); errors.As(err, &n) {
			if !strings.Contains(n.Text, fmt.Sprintf("%d of 38 competitions have no workbook", bare)) {
				t.Errorf("note %q, want %d competitions without a workbook", n.Text, bare)
			}
			noted++
			continue
		}
		out = append(out, err)
	}
	if noted != min(bare, 1) {
		t.Errorf("%d notes, want %d", noted, min(bare, 1))
	}
	return out
}

// smallPNG is a real 2x2 PNG image.
func smallPNG(t *testing.T) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, 2, 2))
	img.Set(1, 1, color.RGBA{R: 200, A: 255})
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// TestConvertImageModes converts a competition with a workbook and a real
// PNG in chat and in agent mode: each keeps its own user message (the
// workbook's text in chat mode, the paragraph about the working directory
// in agent mode), and both send the image, with the notebook's system
// message for it, to a model with vision and not to one without.
func TestConvertImageModes(t *testing.T) {
	book, err := os.ReadFile(shared.Path(t, "corpora", "workbooks", "files", "header-row.xlsx"))
	if err != nil {
		t.Fatal(err)
	}
	pic := smallPNG(t)
	dir := writeTree(t, map[string]string{
		"data.json":               `{"id": "7", "name": "case", "questions": ["question1"], "answers": ["B"]}`,
		"data/7/introduction.txt": "INTRO",
		"data/7/question1.txt":    "first?",
		"data/7/header-row.xlsx":  string(book),
		"data/7/chart.png":        string(pic),
	})
	const chatText, agentText = "The workbook is detailed as follows. ", "The workbooks of this task are in the working directory"
	for _, tt := range []struct {
		mode, want, not string
	}{
		{modeChat, chatText, agentText},
		{modeAgent, agentText, chatText},
	} {
		out := t.TempDir()
		paths, errs := Convert(t.Context(), Options{Data: dir, Out: out, Mode: tt.mode})
		if len(errs) > 0 || len(paths) != 1 {
			t.Fatalf("%s: %v %v", tt.mode, paths, errs)
		}
		for _, vision := range []bool{true, false} {
			b := &prompt.Builder{Dir: out, Model: "gpt-4o", Vision: vision, RenderWorkbook: workbook.Render}
			req := buildOne(t, paths[0], b)
			user := req.Messages[0].Content
			if !strings.Contains(user, tt.want) || strings.Contains(user, tt.not) {
				t.Errorf("%s: the prompt lacks %q or holds %q:\n%s", tt.mode, tt.want, tt.not, user)
			}
			if agent := req.Solve != nil && req.Solve.Mode == model.ModeAgent; agent != (tt.mode == modeAgent) {
				t.Errorf("%s: solve %+v", tt.mode, req.Solve)
			}
			imgs, system := req.Messages[0].Images, System
			if vision {
				system = SystemImage
				if len(imgs) != 1 || imgs[0].MediaType != "image/png" || !bytes.Equal(imgs[0].Data, pic) {
					t.Errorf("%s: images %d, want the PNG", tt.mode, len(imgs))
				}
			} else if len(imgs) != 0 {
				t.Errorf("%s: %d images sent to a model without vision", tt.mode, len(imgs))
			}
			if req.System != system {
				t.Errorf("%s vision %v: system %q, want %q", tt.mode, vision, req.System, system)
			}
		}
	}
}

// buildOne is the request of the only question of the sheet at path.
func buildOne(t *testing.T, path string, b *prompt.Builder) model.Task {
	t.Helper()
	doc, err := sheet.ParseFile(path, schema.Default())
	if err != nil {
		t.Fatal(err)
	}
	info, items := doc.Resolve()
	if len(items) != 1 {
		t.Fatalf("%s: %d questions", path, len(items))
	}
	b.SheetMeta = info.Meta
	req, err := b.Build(t.Context(), path, &items[0])
	if err != nil {
		t.Fatal(err)
	}
	return req
}
