// Package dataset writes sheets as an Inspect dataset (JSON Lines of
// inspect_ai.dataset.Sample): convert inspect. It builds each prompt as a
// run does (package prompt), which is why it is apart from package
// inspect, whose log writer agg links.
package dataset

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/inspect"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/sheet"
)

// sample is one line of an Inspect dataset in JSON Lines (the
// fields of inspect_ai.dataset.Sample that json_dataset reads by default).
type sample struct {
	Input    inspect.SampleInput `json:"input"`
	Choices  []string            `json:"choices,omitempty"`
	Target   string              `json:"target"`
	ID       inspect.SampleID    `json:"id"`
	Metadata map[string]any      `json:"metadata,omitempty"`
	Files    map[string]string   `json:"files,omitempty"`
}

// Options tune Write.
type Options struct {
	// RenderWorkbook renders a workbook as the model sees it (package
	// workbook); nil makes a sheet with workbooks an error.
	RenderWorkbook func(ctx context.Context, path string) (string, error)
	// Model is the model name templates see as .Model; empty for none.
	Model string
	// BaseDir, when set, makes the file paths written relative to it (the
	// dataset's own folder, against which Inspect resolves them).
	BaseDir string
}

// Write writes one line per question of the sheets:
//   - input: the exact user message a run sends (built by package prompt:
//     template, sheet text, workbooks), or [system, user] messages when the
//     question has a system message;
//   - target: the ground truth ("" without one);
//   - id: the question's id meta (a JSON integer when it is one), else its
//     name; an id already used by an earlier line is made unique by the
//     sheet's file name and, if need be, a number;
//   - metadata: the question's meta, plus its name and sheet;
//   - files: the sheet's files, sandbox name -> path;
//   - choices: the option texts of a multiple-choice question.
//
// Prompts are not truncated: truncation depends on the model's context.
func Write(ctx context.Context, w io.Writer, sheets []string, opt Options) error {
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	enc.SetEscapeHTML(false) // completions read as written
	taken := map[string]bool{}
	for _, path := range sheets {
		lines, err := samples(ctx, path, opt)
		if err != nil {
			return err
		}
		for _, s := range lines {
			s.ID = uniqueID(s.ID, path, taken)
			if err := enc.Encode(s); err != nil {
				return fmt.Errorf("%s: question %v: %w", path, s.Metadata["name"], err)
			}
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("inspect dataset: %w", err)
	}
	return nil
}

// uniqueID keeps ids unique across the dataset.
func uniqueID(id inspect.SampleID, sheetPath string, taken map[string]bool) inspect.SampleID {
	if !taken[id.Text] {
		taken[id.Text] = true
		return id
	}
	base := sheetBase(sheetPath) + "/" + id.Text
	text := base
	for n := 2; taken[text]; n++ {
		text = fmt.Sprintf("%s#%d", base, n)
	}
	taken[text] = true
	return inspect.StringID(text)
}

// sheetBase names a sheet as output files do: its file name without
// "input" and ".md".
func sheetBase(path string) string {
	base := strings.TrimSuffix(filepath.Base(path), ".md")
	base = strings.TrimLeft(strings.TrimPrefix(base, "input"), "-_")
	if base == "" {
		return filepath.Base(path)
	}
	return base
}

// samples builds the lines of one sheet.
func samples(ctx context.Context, path string, opt Options) ([]sample, error) {
	doc, err := sheet.ParseFile(path, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	info, items := doc.Resolve()
	dir := filepath.Dir(path)
	b := &prompt.Builder{Dir: dir, Model: opt.Model, RenderWorkbook: opt.RenderWorkbook, SheetMeta: info.Meta}
	var out []sample
	for i := range items {
		it := &items[i]
		req, err := b.Build(ctx, path, it)
		if err != nil {
			return nil, err
		}
		if len(req.Messages) == 0 {
			return nil, fmt.Errorf("%s:%d: question %q: no user message", path, it.Line, it.Name)
		}
		user := req.Messages[len(req.Messages)-1].Content // after the conversation's turns
		s := sample{Metadata: map[string]any{}, Input: input(req.System, req.Messages)}
		if it.GroundTruth != nil {
			s.Target = *it.GroundTruth
		}
		if id := it.Meta["id"]; id != "" {
			s.ID = inspect.MakeID(id)
		} else {
			s.ID = inspect.StringID(it.Name)
		}
		for k, v := range it.Meta {
			s.Metadata[k] = v
		}
		s.Metadata["name"] = it.Name
		s.Metadata["sheet"] = info.Name
		s.Choices = inspect.Choices(user)
		for _, f := range it.Files {
			p := f.Text
			if !filepath.IsAbs(p) {
				p = filepath.Join(dir, p)
			}
			if opt.BaseDir != "" {
				if rel, err := filepath.Rel(opt.BaseDir, p); err == nil {
					p = rel
				}
			}
			if s.Files == nil {
				s.Files = map[string]string{}
			}
			s.Files[filepath.Base(f.Text)] = filepath.ToSlash(p)
		}
		out = append(out, s)
	}
	return out, nil
}

// input is a sample's input: the user message alone as text, or, with a
// system message or a conversation's turns before it, the messages.
func input(system string, msgs []model.Message) inspect.SampleInput {
	if system == "" && len(msgs) == 1 {
		return inspect.SampleInput{Text: msgs[0].Content}
	}
	var out []inspect.ChatMessage
	if system != "" {
		out = append(out, inspect.ChatMessage{Role: "system", Content: inspect.MessageContent{Text: system}})
	}
	for _, m := range msgs {
		out = append(out, inspect.ChatMessage{Role: m.Role, Content: inspect.MessageContent{Text: m.Content}})
	}
	return inspect.SampleInput{Messages: out}
}
