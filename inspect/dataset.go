package inspect

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/prompt"
	"github.com/evalmd/evalmd/sheet"
)

// datasetSample is one line of an Inspect dataset in JSON Lines (the
// fields of inspect_ai.dataset.Sample that json_dataset reads by default).
type datasetSample struct {
	Input    sampleInput       `json:"input"`
	Choices  []string          `json:"choices,omitempty"`
	Target   string            `json:"target"`
	ID       sampleID          `json:"id"`
	Metadata map[string]any    `json:"metadata,omitempty"`
	Files    map[string]string `json:"files,omitempty"`
}

// DatasetOptions tune WriteDatasetOptions.
type DatasetOptions struct {
	// RenderWorkbook renders a workbook as the model sees it (package
	// workbook); nil makes a sheet with workbooks an error.
	RenderWorkbook func(ctx context.Context, path string) (string, error)
	// Model is the model name templates see as .Model; empty for none.
	Model string
	// BaseDir, when set, makes the file paths written relative to it (the
	// dataset's own folder, against which Inspect resolves them).
	BaseDir string
}

// WriteDatasetOptions writes one line per question of the sheets:
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
func WriteDatasetOptions(ctx context.Context, w io.Writer, sheets []string, opt DatasetOptions) error {
	bw := bufio.NewWriter(w)
	taken := map[string]bool{}
	for _, path := range sheets {
		lines, err := datasetSamples(ctx, path, opt)
		if err != nil {
			return err
		}
		for _, s := range lines {
			s.ID = uniqueID(s.ID, path, taken)
			data, err := marshal(s)
			if err != nil {
				return fmt.Errorf("%s: question %v: %w", path, s.Metadata["name"], err)
			}
			bw.Write(data)
			bw.WriteByte('\n')
		}
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("inspect dataset: %w", err)
	}
	return nil
}

// uniqueID keeps ids unique across the dataset.
func uniqueID(id sampleID, sheetPath string, taken map[string]bool) sampleID {
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
	return stringID(text)
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

// datasetSamples builds the lines of one sheet.
func datasetSamples(ctx context.Context, path string, opt DatasetOptions) ([]datasetSample, error) {
	doc, err := sheet.ParseFile(path, nil)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	info, items := doc.Resolve()
	dir := filepath.Dir(path)
	b := &prompt.Builder{Dir: dir, Model: opt.Model, RenderWorkbook: opt.RenderWorkbook, SheetMeta: info.Meta}
	var out []datasetSample
	for i := range items {
		it := &items[i]
		req, err := b.Build(ctx, path, it)
		if err != nil {
			return nil, err
		}
		if len(req.Messages) == 0 {
			return nil, fmt.Errorf("%s:%d: question %q: no user message", path, it.Line, it.Name)
		}
		user := req.Messages[0].Content
		s := datasetSample{Metadata: map[string]any{}}
		if req.System != "" {
			s.Input = sampleInput{Messages: []chatMessage{
				{Role: "system", Content: messageContent{Text: req.System}},
				{Role: "user", Content: messageContent{Text: user}},
			}}
		} else {
			s.Input = sampleInput{Text: user}
		}
		if it.GroundTruth != nil {
			s.Target = *it.GroundTruth
		}
		if id := it.Meta["id"]; id != "" {
			s.ID = makeID(id)
		} else {
			s.ID = stringID(it.Name)
		}
		for k, v := range it.Meta {
			s.Metadata[k] = v
		}
		s.Metadata["name"] = it.Name
		s.Metadata["sheet"] = info.Name
		s.Choices = choicesOf(user)
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
