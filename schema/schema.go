// Package schema loads sheet schemas: YAML files that say which markdown
// headers start a sheet, a question and their sections (LIME's
// md-schema.yaml semantics). The default schema is embedded.
//
// A Schema has a Level for the sheet and one for a question; a Level's
// Children are the minor sections it may hold.
package schema

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalmd/evalmd/internal/readfile"
)

//go:embed default.yaml
var defaultYAML []byte

// Schema says how a sheet's markdown is split into sections.
type Schema struct {
	Sheet    Level `yaml:"sheet"`
	Question Level `yaml:"question"`
	// EscapeHeaders lets a text line start with "#" without opening a
	// section: a line that begins with a backslash followed by more
	// backslashes and then '#' loses its first backslash ("\# of words" is
	// the text "# of words"). LIME has no such rule, so its own schema
	// file leaves it off; benchmark texts need it (DSBench has lines that
	// begin "# ").
	EscapeHeaders bool `yaml:"escape_headers"`
}

// Level is a major section (sheet or question): its header depth and the
// minor sections it may hold.
type Level struct {
	MdHeader int      `yaml:"md_header"`
	Children Children `yaml:"children"`
}

// Children are the minor sections of a major one.
type Children struct {
	MdHeader int      `yaml:"md_header"`
	Options  []string `yaml:"options"`
}

// Has reports whether name is one of the level's minor sections.
func (l *Level) Has(name string) bool {
	for _, o := range l.Children.Options {
		if o == name {
			return true
		}
	}
	return false
}

// Default returns the embedded default schema.
func Default() *Schema {
	s, err := parse("default.yaml", defaultYAML)
	if err != nil {
		// The embedded file is part of the binary and tested; failing here
		// means the build itself is broken.
		panic(err)
	}
	return s
}

// Load reads a schema file.
func Load(path string) (*Schema, error) {
	data, err := readfile.Read(path, readfile.Sheet)
	if err != nil {
		return nil, err
	}
	return parse(path, data)
}

var (
	yamlLine    = regexp.MustCompile(`^(?:yaml: )?line (\d+): `)
	yamlUnknown = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// parse decodes a schema. Unknown keys, bad values and invalid YAML are
// refused with one line naming name:line.
func parse(name string, data []byte) (*Schema, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Schema
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:1: empty schema", name)
		}
		line, msg := yamlError(err)
		return nil, fmt.Errorf("%s:%d: invalid schema: %s", name, line, msg)
	}
	var root yaml.Node
	_ = yaml.Unmarshal(data, &root) // decoded above, so it parses
	at := func(path ...string) int { return keyLine(&root, path) }
	for _, l := range []struct {
		key string
		lv  *Level
	}{{"sheet", &s.Sheet}, {"question", &s.Question}} {
		if l.lv.MdHeader < 1 || l.lv.MdHeader > 6 {
			return nil, fmt.Errorf("%s:%d: %s.md_header must be 1 to 6, not %d", name, at(l.key, "md_header"), l.key, l.lv.MdHeader)
		}
		if c := l.lv.Children.MdHeader; c < 1 || c > 6 {
			return nil, fmt.Errorf("%s:%d: %s.children.md_header must be 1 to 6, not %d", name, at(l.key, "children", "md_header"), l.key, c)
		}
	}
	if s.Sheet.MdHeader == s.Question.MdHeader {
		return nil, fmt.Errorf("%s:%d: sheet and question use the same md_header %d", name, at("question", "md_header"), s.Sheet.MdHeader)
	}
	if !s.Question.Has("question") {
		return nil, fmt.Errorf("%s:%d: question.children.options must list \"question\"", name, at("question", "children", "options"))
	}
	return &s, nil
}

// yamlError makes a YAML error one line: the first problem's line and
// text, and how many more there are.
func yamlError(err error) (int, string) {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	line, msg := 1, strings.TrimSpace(msgs[0])
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ = strconv.Atoi(m[1])
		msg = msg[len(m[0]):]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	// A value quoted in the message may span lines; the error is one.
	msg = strings.ReplaceAll(msg, "\n", `\n`)
	if m := yamlUnknown.FindStringSubmatch(msg); m != nil {
		msg = fmt.Sprintf("unknown key %q", m[1])
	}
	if n := len(msgs) - 1; n == 1 {
		msg += " (and 1 more error)"
	} else if n > 1 {
		msg += fmt.Sprintf(" (and %d more errors)", n)
	}
	return line, msg
}

// keyLine is the line of the value at path in a YAML document, or of the
// deepest key of path that is there (1 for none).
func keyLine(n *yaml.Node, path []string) int {
	line := 1
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, key := range path {
		if n.Kind != yaml.MappingNode {
			return line
		}
		found := false
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == key {
				line, n, found = n.Content[i].Line, n.Content[i+1], true
				break
			}
		}
		if !found {
			return line
		}
	}
	return line
}
