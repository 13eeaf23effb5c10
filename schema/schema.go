// Package schema loads sheet schemas: YAML files that say which markdown
// headers start a sheet, a question and their sections (LIME's
// md-schema.yaml semantics). The default schema is embedded.
package schema

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"regexp"
	"strconv"

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
	s, err := Parse("default.yaml", defaultYAML)
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
	return Parse(path, data)
}

var yamlLine = regexp.MustCompile(`line (\d+)`)

// Parse decodes a schema. Unknown keys, bad values and invalid YAML are
// refused with name:line.
func Parse(name string, data []byte) (*Schema, error) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	var s Schema
	if err := dec.Decode(&s); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%s:1: empty schema", name)
		}
		line := 1
		if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ = strconv.Atoi(m[1])
		}
		return nil, fmt.Errorf("%s:%d: invalid schema: %v", name, line, err)
	}
	for _, l := range []struct {
		key string
		lv  *Level
	}{{"sheet", &s.Sheet}, {"question", &s.Question}} {
		if l.lv.MdHeader < 1 || l.lv.MdHeader > 6 {
			return nil, fmt.Errorf("%s: %s.md_header must be 1 to 6, not %d", name, l.key, l.lv.MdHeader)
		}
		if c := l.lv.Children.MdHeader; c < 1 || c > 6 {
			return nil, fmt.Errorf("%s: %s.children.md_header must be 1 to 6, not %d", name, l.key, c)
		}
	}
	if s.Sheet.MdHeader == s.Question.MdHeader {
		return nil, fmt.Errorf("%s: sheet and question use the same md_header %d", name, s.Sheet.MdHeader)
	}
	if !s.Question.Has("question") {
		return nil, fmt.Errorf("%s: question.children.options must list \"question\"", name)
	}
	return &s, nil
}
