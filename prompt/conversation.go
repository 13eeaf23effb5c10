package prompt

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/sheet"
)

// conversation is the messages a question's turns send before its
// question (the sheet's few-shot turns, then its own), refused at the
// first turn's line when it opens with an assistant turn and the model
// refuses that (UserFirst).
func (b *Builder) conversation(sheetPath string, it *sheet.Item) ([]model.Message, error) {
	if len(it.Turns) == 0 {
		return nil, nil
	}
	if first := it.Turns[0]; first.Role == "assistant" && b.UserFirst {
		return nil, fmt.Errorf("%s:%d: question %q: the conversation opens with an assistant turn, which %s refuses: begin it with a user turn",
			sheetPath, first.Line, it.Name, b.Model)
	}
	msgs := make([]model.Message, 0, len(it.Turns)+1)
	for _, t := range it.Turns {
		msgs = append(msgs, model.Message{Role: t.Role, Content: t.Text})
	}
	return msgs, nil
}

// answerFormat sets what the request asks the answer to be: JSON
// following the question's schema section (which asks for JSON whatever
// response_format says), JSON (response_format: json), or text, which is
// sent as no format at all so that a sheet without either keys as before.
func answerFormat(sheetPath string, it *sheet.Item, req *model.Task) error {
	if req.Settings.ResponseFormat != model.ResponseJSON {
		req.Settings.ResponseFormat = "" // text
	}
	if it.Schema == nil {
		return nil
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, []byte(it.Schema.Text)); err != nil {
		// The parser checked it; a schema made otherwise may be bad.
		return fmt.Errorf("%s:%d: question %q: schema: %w", sheetPath, it.Schema.Line, it.Name, err)
	}
	req.Schema = buf.Bytes()
	req.Settings.ResponseFormat = model.ResponseSchema
	return nil
}
