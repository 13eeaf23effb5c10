package result

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/evalmd/evalmd/internal/mdcell"
	"github.com/evalmd/evalmd/internal/outfile"
)

// Markdown renders an output file for reading, in the layout of LIME's
// output .md: the sheet's header, then per question its meta, question,
// completion, ground truth and grade.
//
// Unlike LIME, every free text (prompts, completion, error, ground truth)
// is put in a code fence longer than any backtick run inside it, so a
// completion holding "### ", an open fence or raw HTML cannot change the
// document's structure: the only headings are the sheet's and the
// questions'. The names and meta written unfenced, one line each, are
// escaped as a table's cells are (mdcell): a line break in a name from a
// stranger's output file would start a heading or a table of its own.
// Names without '|' or a line break are written as LIME writes them.
func Markdown(f *File) string {
	var b strings.Builder
	_ = f.WriteMarkdown(&b, len(f.Questions), func(w io.Writer, i int) error {
		_, err := w.Write(MarkdownQuestion(&f.Sheet, &f.Questions[i]))
		return err
	})
	return b.String()
}

// WriteMarkdown writes Markdown's rendering of f, its questions given by
// number, n, and question, which writes question i's rendering
// (MarkdownQuestion) to w: a run writes the .md of an output of a
// million questions as it writes the output, without holding either.
func (f *File) WriteMarkdown(w io.Writer, n int, question func(w io.Writer, i int) error) error {
	var b strings.Builder
	esc := mdcell.Escape
	fmt.Fprintf(&b, "# %s\n**Run ID:** %s\n**Model name:** %s\n", esc(f.Sheet.Name), esc(f.Sheet.RunID), esc(f.Sheet.ModelName))
	if f.Sheet.Subset != nil {
		fmt.Fprintf(&b, "**Subset:** %s\n", esc(f.Sheet.Subset.Describe(n)))
	}
	if f.Sheet.Question != nil {
		fmt.Fprintf(&b, "**System Prompt:**\n%s\n", fence(*f.Sheet.Question))
	}
	if f.Sheet.MetaData != nil {
		b.WriteString("**Meta Data:**\n")
		writeMeta(&b, f.Sheet.MetaData)
	}
	if _, err := io.WriteString(w, b.String()); err != nil {
		return err
	}
	for i := range n {
		if err := question(w, i); err != nil {
			return err
		}
	}
	return nil
}

// MarkdownQuestion renders question q of an output file whose sheet
// record is s, as Markdown lays out each question.
func MarkdownQuestion(s *Sheet, q *Question) []byte {
	var b strings.Builder
	esc := mdcell.Escape
	fmt.Fprintf(&b, "\n### %s\n\n", esc(q.Name))
	if q.MetaData != nil {
		b.WriteString("<details>\n<summary>meta_data:</summary>\n\n")
		writeMeta(&b, q.MetaData)
		b.WriteString("\n</details>\n\n")
	}
	if q.System != nil {
		fmt.Fprintf(&b, "\n**System:**\n%s\n", fence(*q.System))
	}
	if len(q.ImagesSent) > 0 {
		fmt.Fprintf(&b, "\n**Images sent:** %s\n", literals(q.ImagesSent))
	}
	if len(q.ImagesNotSent) > 0 {
		fmt.Fprintf(&b, "\n**Images not sent** (the model takes no images; run --vision on if it does): %s\n", literals(q.ImagesNotSent))
	}
	for _, m := range q.Conversation {
		// The role is this tool's word, or a file's own: escaped.
		fmt.Fprintf(&b, "\n**Turn (%s):**\n%s\n", esc(m.Role), fence(m.Content))
	}
	if q.ResponseSchema != "" {
		fmt.Fprintf(&b, "\n**Response schema:**\n%s\n", fence(q.ResponseSchema))
	}
	fmt.Fprintf(&b, "\n**Question:**\n%s\n", fence(q.Question))
	fmt.Fprintf(&b, "**Completion:**\n%s\n", fenceOrNone(q.Completion))
	if q.ReusedFrom != "" {
		// Fenced: a file name may hold markdown.
		fmt.Fprintf(&b, "**Reused from:** the same request in\n%s\n", fence(q.ReusedFrom))
	}
	if served := s.servedOther(q); served != "" {
		// Fenced too: the name is the server's text.
		fmt.Fprintf(&b, "**Served by:**\n%s\n", fence(served))
	}
	if q.Note != "" {
		// Fenced too: it quotes the server's finish_reason.
		fmt.Fprintf(&b, "**Note:**\n%s\n", fence(q.Note))
	}
	if q.Error != nil {
		fmt.Fprintf(&b, "**Error:**\n%s\n", fence(*q.Error))
	}
	fmt.Fprintf(&b, "**Ground Truth:**\n%s\n", fenceOrNone(q.GroundTruth))
	for _, a := range q.Accepted {
		fmt.Fprintf(&b, "**Also accepted:**\n%s\n", fence(a))
	}
	fmt.Fprintf(&b, "**Grade:**\n%s\n", pyBool(q.Grade))
	if q.Grading != "" {
		// Both are names this tool writes, or the file's own: escaped.
		fmt.Fprintf(&b, "**Grading:** %s (%s)\n", esc(q.Grading), esc(q.GradingFrom))
	}
	for _, a := range q.AlsoGraded {
		// The detail may quote the answer: fenced, as the answer is.
		fmt.Fprintf(&b, "**Also graded by %s:** %s\n", esc(a.Grader), pyBool(a.Grade))
		if a.Detail != "" {
			fmt.Fprintf(&b, "%s\n", fence(a.Detail))
		}
	}
	return []byte(b.String())
}

// pyBool is a grade as LIME's markdown writes it: True, False or None.
func pyBool(g *bool) string {
	switch {
	case g == nil:
		return "None"
	case *g:
		return "True"
	}
	return "False"
}

// servedOther is the model the server said answered q when it is not the
// model asked (the name sent, model_info.model, or the model's name in
// the file), else "": a snapshot other than the alias asked for
// (gpt-4o-2024-08-06 for gpt-4o) is worth a line, a local server's echo
// of the name is not.
func (s *Sheet) servedOther(q *Question) string {
	served := q.ServedModel
	if served == "" || served == q.ModelName || served == s.ModelName || s.ModelInfo != nil && served == s.ModelInfo.Model {
		return ""
	}
	return served
}

func writeMeta(b *strings.Builder, m map[string]string) {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		fmt.Fprintf(b, "- %s: %s\n", mdcell.Escape(k), mdcell.Escape(m[k]))
	}
}

// fenceOrNone fences *s, or says None (LIME's word for null) unfenced.
func fenceOrNone(s *string) string {
	if s == nil {
		return "None\n"
	}
	return fence(*s)
}

// literals are names (file names from a sheet) as literal markdown text,
// comma-separated.
func literals(names []string) string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = mdcell.Literal(n)
	}
	return strings.Join(out, ", ")
}

// fence puts s in a backtick code fence longer than any backtick run in s,
// so no line of s can close it (CommonMark: a closing fence is at least as
// long as the opening one). The result ends with a newline.
func fence(s string) string {
	longest, run := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", max(3, longest+1))
	if s != "" && !strings.HasSuffix(s, "\n") {
		s += "\n"
	}
	return f + "\n" + s + f + "\n"
}

// MarkdownPath is where run writes the readable copy of the output file
// at outputPath: beside it, ".json" replaced by ".md". It is part of the
// run's output, so a command that reads the output (agg) never writes over
// it.
func MarkdownPath(outputPath string) string {
	return strings.TrimSuffix(outputPath, ".json") + ".md"
}

// WriteMarkdown writes f rendered for reading (see Markdown) atomically, under outfile's rules.
func WriteMarkdown(path string, f *File, opt outfile.Options) error {
	return outfile.Write(path, []byte(Markdown(f)), opt)
}
