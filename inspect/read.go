package inspect

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/evalmd/evalmd/internal/readfile"
)

// ReadLog loads an Inspect log, .eval (a zip, told by its first bytes) or
// JSON: one this package wrote, or one of Inspect's own written with
// deflate (members this package does not model are skipped). It fails on a
// log of a later format version, as Inspect does.
func ReadLog(path string) (*Log, error) {
	data, err := readfile.Read(path, readfile.Output)
	if err != nil {
		return nil, err
	}
	lg, err := parseLog(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return lg, nil
}

// parseLog is ReadLog of a log's bytes.
func parseLog(data []byte) (*Log, error) {
	var lg *Log
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		var err error
		if lg, err = readEval(data); err != nil {
			return nil, fmt.Errorf("not an Inspect .eval log: %w", err)
		}
	} else if err := json.Unmarshal(data, &lg); err != nil || lg == nil {
		return nil, fmt.Errorf("not an Inspect log: %w", err)
	}
	if lg.Version > logVersion {
		return nil, fmt.Errorf("log format version %d is newer than %d", lg.Version, logVersion)
	}
	if lg.Eval.Task == "" && lg.Eval.Created == "" {
		return nil, errors.New("not an Inspect log: no eval.task or eval.created")
	}
	return lg, nil
}

// indent re-indents JSON with two spaces.
func indent(data []byte) ([]byte, error) {
	var buf bytes.Buffer
	if err := json.Indent(&buf, data, "", "  "); err != nil {
		return nil, err
	}
	buf.WriteByte('\n')
	return buf.Bytes(), nil
}
