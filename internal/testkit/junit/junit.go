// Package junit checks JUnit XML the way CI test reporters need it: a
// structural check of everything Apache Ant's JUnit schema requires, as
// windyroad's JUnit.xsd (github.com/windyroad/JUnit-Schema) states it, the
// schema most JUnit readers (GitLab's test reports, Jenkins' junit step,
// GitHub's test-report actions) accept. It checks the elements, their
// order and count, the attributes allowed and required, and their
// lexical types; and, beyond the schema, that each suite's counts are its
// test cases'.
package junit

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// node is an element with its attributes, child elements and text.
type node struct {
	name     string
	attrs    map[string]string
	children []*node
	text     string
	line     int
}

// parse reads an XML document into its root element; encoding/xml's
// decoder refuses what is not well-formed XML (characters XML forbids,
// unescaped markup).
func parse(data []byte) (*node, error) {
	dec := xml.NewDecoder(bytes.NewReader(data))
	var stack []*node
	var root *node
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		line, _ := dec.InputPos()
		switch t := tok.(type) {
		case xml.StartElement:
			n := &node{name: t.Name.Local, attrs: map[string]string{}, line: line}
			if t.Name.Space != "" {
				return nil, fmt.Errorf("line %d: element %s in namespace %q: the schema has none", line, n.name, t.Name.Space)
			}
			for _, a := range t.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			if len(stack) > 0 {
				p := stack[len(stack)-1]
				p.children = append(p.children, n)
			} else if root != nil {
				return nil, fmt.Errorf("line %d: a second root element", line)
			} else {
				root = n
			}
			stack = append(stack, n)
		case xml.EndElement:
			stack = stack[:len(stack)-1]
		case xml.CharData:
			if len(stack) > 0 {
				stack[len(stack)-1].text += string(t)
			}
		}
	}
	if root == nil {
		return nil, errors.New("no root element")
	}
	return root, nil
}

// Lexical types of the schema's attributes.
var (
	xsInt     = regexp.MustCompile(`^[+-]?[0-9]+$`)
	xsDecimal = regexp.MustCompile(`^[+-]?([0-9]+(\.[0-9]*)?|\.[0-9]+)$`)
	timestamp = regexp.MustCompile(`^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}$`)
)

type attrType uint8

const (
	anyString attrType = iota
	token              // xs:token: any text, white space collapsed
	nonEmpty           // xs:token with minLength 1
	integer            // xs:int
	decimal            // xs:decimal
	dateTime           // ISO8601_DATETIME_PATTERN: no zone
)

// attrSpec is an attribute the schema declares.
type attrSpec struct {
	typ      attrType
	required bool
}

var (
	suiteAttrs = map[string]attrSpec{"name": {nonEmpty, true}, "timestamp": {dateTime, true}, "hostname": {nonEmpty, true},
		"tests": {integer, true}, "failures": {integer, true}, "errors": {integer, true}, "skipped": {integer, false},
		"time": {decimal, true}, "package": {token, true}, "id": {integer, true}}
	caseAttrs     = map[string]attrSpec{"name": {token, true}, "classname": {token, true}, "time": {decimal, true}}
	resultAttrs   = map[string]attrSpec{"message": {anyString, false}, "type": {anyString, true}}
	propertyAttrs = map[string]attrSpec{"name": {nonEmpty, true}, "value": {anyString, true}}
)

// checkAttrs checks n's attributes against specs: none undeclared, every
// required one present, each of its type.
func checkAttrs(n *node, specs map[string]attrSpec) error {
	for _, k := range slices.Sorted(maps.Keys(n.attrs)) {
		spec, ok := specs[k]
		if !ok {
			return fmt.Errorf("line %d: <%s> has attribute %s, which the schema does not declare", n.line, n.name, k)
		}
		if err := checkType(n.attrs[k], spec.typ); err != nil {
			return fmt.Errorf("line %d: <%s %s=%q>: %v", n.line, n.name, k, n.attrs[k], err)
		}
	}
	for _, k := range slices.Sorted(maps.Keys(specs)) {
		if _, ok := n.attrs[k]; specs[k].required && !ok {
			return fmt.Errorf("line %d: <%s> lacks the required attribute %s", n.line, n.name, k)
		}
	}
	return nil
}

func checkType(v string, typ attrType) error {
	collapsed := strings.Join(strings.Fields(v), " ")
	switch typ {
	case nonEmpty:
		if collapsed == "" {
			return errors.New("an empty token")
		}
	case integer:
		if !xsInt.MatchString(collapsed) {
			return errors.New("not an xs:int")
		}
		if _, err := strconv.ParseInt(collapsed, 10, 32); err != nil {
			return errors.New("out of xs:int's range")
		}
	case decimal:
		if !xsDecimal.MatchString(collapsed) {
			return errors.New("not an xs:decimal")
		}
	case dateTime:
		if !timestamp.MatchString(collapsed) {
			return errors.New("not YYYY-MM-DDThh:mm:ss (the schema's pattern, without a zone)")
		}
	}
	return nil
}

// Check checks a JUnit XML document: a testsuites root without attributes
// holding testsuite elements (or a lone testsuite root, without package
// and id), each with properties, its test cases, system-out and
// system-err in that order; a test case holds at most one of skipped,
// error and failure.
func Check(data []byte) error {
	root, err := parse(data)
	if err != nil {
		return err
	}
	switch root.name {
	case "testsuite":
		spec := maps.Clone(suiteAttrs)
		delete(spec, "package")
		delete(spec, "id")
		return checkSuite(root, spec)
	case "testsuites":
	default:
		return fmt.Errorf("line %d: root element <%s>, want <testsuites> or <testsuite>", root.line, root.name)
	}
	if len(root.attrs) > 0 {
		return fmt.Errorf("line %d: <testsuites> has attributes; the schema declares none", root.line)
	}
	if strings.TrimSpace(root.text) != "" {
		return fmt.Errorf("line %d: <testsuites> holds text", root.line)
	}
	for _, s := range root.children {
		if s.name != "testsuite" {
			return fmt.Errorf("line %d: <%s> in <testsuites>, want <testsuite>", s.line, s.name)
		}
		if err := checkSuite(s, suiteAttrs); err != nil {
			return err
		}
	}
	return nil
}

func checkSuite(s *node, spec map[string]attrSpec) error {
	if err := checkAttrs(s, spec); err != nil {
		return err
	}
	if strings.TrimSpace(s.text) != "" {
		return fmt.Errorf("line %d: <testsuite> holds text outside its elements", s.line)
	}
	var names []string
	for _, c := range s.children {
		names = append(names, c.name)
	}
	// properties, testcase*, system-out, system-err
	if len(names) < 3 || names[0] != "properties" || names[len(names)-2] != "system-out" || names[len(names)-1] != "system-err" {
		return fmt.Errorf("line %d: <testsuite> holds %v; want properties, testcase..., system-out, system-err", s.line, names)
	}
	for _, p := range s.children[0].children {
		if p.name != "property" {
			return fmt.Errorf("line %d: <%s> in <properties>", p.line, p.name)
		}
		if err := checkAttrs(p, propertyAttrs); err != nil {
			return err
		}
	}
	for _, out := range s.children[len(s.children)-2:] {
		if len(out.attrs) > 0 || len(out.children) > 0 {
			return fmt.Errorf("line %d: <%s> holds attributes or elements; the schema allows text only", out.line, out.name)
		}
	}
	counts := map[string]int{}
	for _, c := range s.children[1 : len(s.children)-2] {
		if c.name != "testcase" {
			return fmt.Errorf("line %d: <%s> among the test cases", c.line, c.name)
		}
		kind, err := checkCase(c)
		if err != nil {
			return err
		}
		counts["tests"]++
		counts[kind]++
	}
	for attr, kind := range map[string]string{"tests": "tests", "failures": "failure", "errors": "error", "skipped": "skipped"} {
		v, ok := s.attrs[attr]
		if !ok {
			continue
		}
		if n, _ := strconv.Atoi(strings.TrimSpace(v)); n != counts[kind] {
			return fmt.Errorf("line %d: <testsuite %s=%q> but it holds %d", s.line, attr, v, counts[kind])
		}
	}
	return nil
}

// checkCase checks a test case and returns what it holds: "failure",
// "error", "skipped", or "" when it passed.
func checkCase(c *node) (string, error) {
	if err := checkAttrs(c, caseAttrs); err != nil {
		return "", err
	}
	if strings.TrimSpace(c.text) != "" {
		return "", fmt.Errorf("line %d: <testcase> holds text outside its elements", c.line)
	}
	switch len(c.children) {
	case 0:
		return "", nil
	case 1:
	default:
		return "", fmt.Errorf("line %d: <testcase> holds %d elements; the schema allows one of skipped, error, failure", c.line, len(c.children))
	}
	r := c.children[0]
	switch r.name {
	case "skipped":
		return "skipped", nil
	case "error", "failure":
		if len(r.children) > 0 {
			return "", fmt.Errorf("line %d: <%s> holds elements; the schema allows text only", r.line, r.name)
		}
		return r.name, checkAttrs(r, resultAttrs)
	}
	return "", fmt.Errorf("line %d: <%s> in <testcase>; the schema allows skipped, error or failure", r.line, r.name)
}
