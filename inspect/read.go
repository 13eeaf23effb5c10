package inspect

import (
	"bytes"
	"encoding/json"
)

// indent re-indents JSON with two spaces.
func indent(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
