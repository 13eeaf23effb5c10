package dsbench

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/tokens"
)

// RenderFunc renders one workbook as the notebook's combine_sheets_text
// does: for each sheet, "Sheet name: {name}\n{df.to_string(index=False)}\n\n"
// (package workbook's Render has this shape).
type RenderFunc func(path string) (string, error)

// sendsImage is the notebook's test for attaching the image: there is one and
// model[:7] != "gpt-3.5". The test is on the model name as the notebook
// names it; a "provider/" prefix is stripped first so "openai/gpt-3.5-turbo"
// is treated like "gpt-3.5-turbo".
func sendsImage(model string, hasImage bool) bool {
	if i := strings.LastIndexByte(model, '/'); i >= 0 {
		model = model[i+1:]
	}
	return hasImage && !strings.HasPrefix(model, "gpt-3.5")
}

// systemFor returns the system message for a request with or without the
// image.
func systemFor(withImage bool) string {
	if withImage {
		return SystemImage
	}
	return System
}

// excelContent is the notebook's excel_content for a competition: for each
// workbook, "The excel file {name} is: " followed by its rendering, all
// concatenated; "" when there is no workbook.
func (c *Competition) excelContent(render RenderFunc) (string, error) {
	var b strings.Builder
	for _, name := range c.Workbooks {
		if render == nil {
			return "", fmt.Errorf("dsbench: competition %s has workbook %s and no renderer was given", c.ID, name)
		}
		text, err := render(filepath.Join(c.Dir, name))
		if err != nil {
			return "", fmt.Errorf("dsbench: competition %s: workbook %s: %w", c.ID, name, err)
		}
		b.WriteString("The excel file " + name + " is: " + text)
	}
	return b.String(), nil
}

// Context is the notebook's text, shared by all questions of a competition:
// the workbook part when excelContent is not empty, then the introduction.
// The odd spacing (" \n", "\n ") is the notebook's.
func Context(excelContent, introduction string) string {
	text := ""
	if excelContent != "" {
		text += "The workbook is detailed as follows. " + excelContent + " \n"
	}
	return text + "The introduction is detailed as follows. \n " + introduction + " \n"
}

// User is the notebook's prompt for one question: the context, then the
// question text. This is the user message before truncation.
func User(context, question string) string {
	return context + "The questions are detailed as follows. \n " + question
}

// notebookPrompt is one request as the notebook builds it.
type notebookPrompt struct {
	Competition string // the competition id
	Question    string // the question's name ("question6")
	System      string // the system message
	User        string // the user message, before truncation
	Image       string // path of the image to attach, "" for none
	Answer      answer // the ground truth
}

// Prompts builds the requests for every question of c as the notebook does
// for model (which decides whether the image goes along, see sendsImage).
// render turns a workbook into text; it may be nil when c has no workbooks.
// The notebook skips a competition without questions; so does this (it
// returns none).
func (c *Competition) Prompts(render RenderFunc, model string) ([]notebookPrompt, error) {
	if len(c.Questions) == 0 {
		return nil, nil
	}
	excel, err := c.excelContent(render)
	if err != nil {
		return nil, err
	}
	context := Context(excel, c.Introduction)
	withImage := sendsImage(model, c.Image != "")
	image := ""
	if withImage {
		image = filepath.Join(c.Dir, c.Image)
	}
	out := make([]notebookPrompt, len(c.Questions))
	for i, q := range c.Questions {
		out[i] = notebookPrompt{
			Competition: c.ID,
			Question:    q.Name,
			System:      systemFor(withImage),
			User:        User(context, q.Text),
			Image:       image,
			Answer:      q.Answer,
		}
	}
	return out, nil
}

// Truncate cuts a user message to model's context as the notebook does:
// decode(encode(prompt)[6000 - MODEL_LIMITS[model]:]), i.e. the last
// limit-6000 tokens in the model's tiktoken encoding. The notebook knows
// three models; the limit here comes from model.ContextLimit, which has
// them and more, and an unknown model is an error (the notebook's KeyError).
func Truncate(user, name string) (string, error) {
	limit, ok := model.ContextLimit(name)
	if !ok {
		return "", fmt.Errorf("dsbench: no context limit known for model %q", name)
	}
	enc, err := tokens.EncodingFor(name)
	if err != nil {
		return "", err
	}
	return tokens.CutRule(user, tokens.Rule{Truncate: "keep-last"}, tokens.Limits{Model: name, ContextLimit: limit, Encoding: enc})
}
