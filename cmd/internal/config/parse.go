package config

// This file reads one config file: its YAML, its members checked and
// their lines found for errors, its settings.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/model"
)

// Parse reads one file's content; name is used in errors.
func Parse(name string, data []byte) (*Config, error) {
	c := &Config{from: map[string]string{}}
	if len(bytes.TrimSpace(data)) == 0 {
		return c, nil
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, decodeError(name, err)
	}
	if err := noKeys(name, &doc); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(c); err != nil {
		return nil, decodeError(name, err)
	}
	if err := c.checkMembers(name, &doc); err != nil {
		return nil, err
	}
	if err := c.readSettings(name); err != nil {
		return nil, err
	}
	for _, k := range sortedKeys(c.Ceilings) {
		if err := setting.CheckCeiling(k, c.Ceilings[k]); err != nil {
			return nil, fmt.Errorf("config %s:%d: ceilings: %v", name, memberLine(&doc, "ceilings", k), err)
		}
	}
	if len(c.Ceilings) > 0 {
		c.settings[0].Ceilings = c.Ceilings
	}
	c.prices = map[string]model.Price{}
	for m, s := range c.Prices {
		p, err := model.ParsePrice(s)
		if err != nil {
			return nil, fmt.Errorf("config %s:%d: prices: %s: %v", name, topLine(&doc, "prices"), m, err)
		}
		c.prices[m] = p
	}
	return c, nil
}

// topLine is the line of the top-level member key of doc; 0 when it has
// none.
func topLine(doc *yaml.Node, key string) int {
	if k, _ := topMember(doc, key); k != nil {
		return k.Line
	}
	return 0
}

// topMember is the top-level member key of doc: its key and value nodes,
// nil when it has none.
func topMember(doc *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	if len(doc.Content) == 0 {
		return nil, nil
	}
	m := doc.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i], m.Content[i+1]
		}
	}
	return nil, nil
}

// checkMembers checks the members decoded from the file name (doc):
// concurrency, models, data_roots (made relative to the file's folder)
// and base_urls, noting the lines of those only the user's file may give.
func (c *Config) checkMembers(name string, doc *yaml.Node) error {
	// Present and empty is refused as -c "" is.
	if n := topLine(doc, "concurrency"); n != 0 {
		if _, _, err := ParseConcurrency(c.Concurrency); err != nil {
			return fmt.Errorf("config %s:%d: concurrency %w", name, n, err)
		}
	}
	if _, v := topMember(doc, "models"); v != nil {
		for _, item := range v.Content {
			c.modelLines = append(c.modelLines, item.Line)
		}
	}
	for _, m := range c.Models {
		if strings.TrimSpace(m) == "" || strings.Contains(m, ",") {
			return fmt.Errorf("config %s:%d: models: give one model per list item, not %q", name, topLine(doc, "models"), m)
		}
	}
	c.userOnly, c.lines = map[string]int{}, map[string]int{}
	for _, k := range []string{"judge", "base_urls", "models"} {
		c.lines[k] = topLine(doc, k)
	}
	for _, k := range []string{"data_roots", "ceilings", "max_cost"} {
		if n := topLine(doc, k); n != 0 {
			c.userOnly[k] = n
		}
	}
	if v := c.MaxCost; v != nil && (*v <= 0 || math.IsNaN(*v) || math.IsInf(*v, 0)) {
		return fmt.Errorf("config %s:%d: max_cost: give a positive number of US dollars", name, topLine(doc, "max_cost"))
	}
	for i, d := range c.DataRoots {
		if strings.TrimSpace(d) == "" {
			return fmt.Errorf("config %s:%d: data_roots: an empty folder name", name, topLine(doc, "data_roots"))
		}
		if !filepath.IsAbs(d) {
			c.DataRoots[i] = filepath.Join(filepath.Dir(name), d)
		}
	}
	c.baseURLLines = map[string]int{}
	for k, u := range c.BaseURLs {
		c.baseURLLines[k] = memberLine(doc, "base_urls", k)
		// The error never quotes the URL: it may hold a key (user:sk-...@, ?key=sk-...).
		if _, err := model.CleanBaseURL(u); err != nil {
			return fmt.Errorf("config %s:%d: base_urls: %s: the URL %w", name, c.baseURLLines[k], k, err)
		}
	}
	return nil
}

// readSettings takes the settings out of Others: a member named as a
// setting that a config file may set is one, checked; any other is an
// error naming its line. The layer made is a workspace file's until Load
// finds it is the user's own.
func (c *Config) readSettings(name string) error {
	l := setting.Layer{Source: setting.Workspace, File: name, Values: map[string]string{}, Lines: map[string]int{}}
	keys := make([]string, 0, len(c.Others))
	for k := range c.Others {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		n := c.Others[k]
		s := setting.Lookup(k)
		if s == nil || s.From&setting.Config == 0 {
			return fmt.Errorf("config %s:%d: unknown member %s (known: %s, and the settings %s)", name, n.Line, k, memberNames(), setting.Names(setting.Config))
		}
		text := n.Value
		if n.Kind == yaml.SequenceNode { // stop: [a, b]
			var list []string
			if err := n.Decode(&list); err != nil {
				return fmt.Errorf("config %s:%d: %s: %v", name, n.Line, k, err)
			}
			b, _ := json.Marshal(list)
			text = string(b)
		} else if n.Kind != yaml.ScalarNode {
			return fmt.Errorf("config %s:%d: %s: want a value, not a %s", name, n.Line, k, map[yaml.Kind]string{yaml.MappingNode: "map"}[n.Kind])
		}
		if err := s.Check(strings.TrimSpace(text)); err != nil {
			return fmt.Errorf("config %s:%d: %s %q: %v", name, n.Line, k, text, err)
		}
		l.Values[k], l.Lines[k] = text, n.Line
	}
	c.Others = nil
	c.settings = []setting.Layer{l}
	return nil
}

// Settings are the settings the files give, as layers for
// setting.Resolve: the user's file, then the workspace's over it.
func (c *Config) Settings() []setting.Layer { return c.settings }

// memberLine is the line of key's member sub in a file's top mapping (0
// when there is none).
func memberLine(doc *yaml.Node, key, sub string) int {
	k, v := topMember(doc, key)
	if k == nil {
		return 0
	}
	for j := 0; j+1 < len(v.Content); j += 2 {
		if v.Content[j].Value == sub {
			return v.Content[j].Line
		}
	}
	return k.Line
}

// decodeError says what the first decoding error is, on one line, with the
// file and line.
func decodeError(name string, err error) error {
	var te *yaml.TypeError
	if errors.As(err, &te) && len(te.Errors) > 0 {
		msg := te.Errors[0]
		if rest, ok := strings.CutPrefix(msg, "line "); ok {
			if n, why, ok := strings.Cut(rest, ": "); ok {
				why = strings.Replace(why, " in type config.Config", "", 1)
				return fmt.Errorf("config %s:%s: %s", name, n, why)
			}
		}
		return fmt.Errorf("config %s: %s", name, msg)
	}
	msg := strings.TrimPrefix(err.Error(), "yaml: ")
	if rest, ok := strings.CutPrefix(msg, "line "); ok {
		if n, why, ok := strings.Cut(rest, ": "); ok {
			return fmt.Errorf("config %s:%s: %s", name, n, why)
		}
	}
	return fmt.Errorf("config %s: %s", name, msg)
}

// noKeys refuses a member named like a secret, and a value that looks like
// an API key, naming the line and never the value.
func noKeys(name string, n *yaml.Node) error {
	if n.Kind == yaml.MappingNode {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := strings.ToLower(n.Content[i].Value)
			if setting.Lookup(k) != nil {
				continue // max_tokens, token_budget: counts of tokens, not secrets
			}
			if model.SecretName(k) {
				return fmt.Errorf("config %s:%d: %s: API keys and other secrets are read from the environment only (OPENAI_API_KEY, ANTHROPIC_API_KEY, NAME_API_KEY), never from a config file; remove the line",
					name, n.Content[i].Line, n.Content[i].Value)
			}
		}
	}
	if n.Kind == yaml.ScalarNode {
		if model.SecretValue(n.Value) {
			return fmt.Errorf("config %s:%d: this value looks like an API key; keys are read from the environment only, never from a config file", name, n.Line)
		}
	}
	for _, c := range n.Content {
		if err := noKeys(name, c); err != nil {
			return err
		}
	}
	return nil
}
