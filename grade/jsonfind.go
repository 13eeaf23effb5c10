package grade

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// jsonMaxStarts bounds how many opening brackets of a reply jsonFind tries
// as the start of a JSON value: each try may read to the reply's end, so a
// reply of many unclosed brackets would otherwise cost its length squared.
const jsonMaxStarts = 256

// jsonFind returns the JSON value a reply answers with, and how it was
// found ("fenced", "whole", "at byte N", and "Python literal" when it was
// one): the first ```json fenced block that holds one value; else the
// whole reply, trimmed; else the first value (object or array) starting
// at an opening bracket, JSON or a Python literal (a dict, list or
// tuple, DSBench's truths' notation). Numbers are json.Number,
// so no digit is lost before the comparison.
func jsonFind(s string) (v any, how string, ok bool) {
	for _, block := range jsonFences(s) {
		if v, err := jsonParse(block); err == nil {
			return v, "fenced", true
		}
		if v, err := pyParse(block); err == nil {
			return v, "fenced Python literal", true
		}
	}
	if v, err := jsonParse(s); err == nil {
		return v, "whole", true
	}
	// At each bracket JSON, then a Python literal: a dict's inner list is
	// not taken for the answer when the dict is Python's.
	for _, i := range jsonStarts(s) {
		dec := json.NewDecoder(strings.NewReader(s[i:]))
		dec.UseNumber()
		if err := dec.Decode(&v); err == nil {
			return v, fmt.Sprintf("at byte %d", i), true
		}
		if v, _, err := pyPrefix(s[i:]); err == nil {
			return v, fmt.Sprintf("Python literal at byte %d", i), true
		}
	}
	return nil, "", false
}

// jsonStarts are the offsets of s's first opening brackets ('{', '['),
// at most jsonMaxStarts of them.
func jsonStarts(s string) []int {
	var out []int
	for i := 0; i < len(s) && len(out) < jsonMaxStarts; i++ {
		if s[i] == '{' || s[i] == '[' {
			out = append(out, i)
		}
	}
	return out
}

// jsonFences returns the texts of s's fenced code blocks whose info
// string is json, json5, python or empty, in order. An unclosed fence
// runs to the end of s, as a reply cut at max_tokens ends.
func jsonFences(s string) []string {
	var out []string
	var body strings.Builder
	in, keep := false, false
	for line := range strings.Lines(s) {
		t := strings.TrimSpace(line)
		if !strings.HasPrefix(t, "```") {
			if in && keep {
				body.WriteString(line)
			}
			continue
		}
		if in {
			if keep {
				out = append(out, body.String())
			}
			in = false
			continue
		}
		info := strings.ToLower(strings.TrimSpace(strings.TrimLeft(t, "`")))
		in, keep = true, info == "" || info == "json" || info == "json5" || info == "python" || info == "py"
		body.Reset()
	}
	if in && keep {
		out = append(out, body.String())
	}
	return out
}

// jsonParse reads s, trimmed, as one JSON value and nothing else.
func jsonParse(s string) (any, error) {
	dec := json.NewDecoder(strings.NewReader(s))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("text after the JSON value at byte %d", dec.InputOffset())
	}
	return v, nil
}

// jsonTruth reads a ground truth as the json grader compares with it:
// one JSON value (in a fence or not), else one Python literal (DSBench's
// `{'Q': 1, '# of words': 7}`). Anything else is an error saying so.
func jsonTruth(s string) (any, error) {
	text := s
	if fs := jsonFences(s); len(fs) == 1 && strings.HasPrefix(strings.TrimSpace(s), "```") {
		text = fs[0]
	}
	v, jerr := jsonParse(text)
	if jerr == nil {
		return v, nil
	}
	if v, err := pyParse(text); err == nil {
		return v, nil
	}
	return nil, fmt.Errorf("json: ground truth %q is not JSON (%v) nor a Python literal", jsonClip(strings.TrimSpace(s)), jerr)
}

// jsonText is v as compact JSON, clipped for a message.
func jsonText(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Sprint(v)
	}
	return jsonClip(strings.TrimSpace(b.String()))
}

// jsonClip cuts s to 60 characters, whole ones, for a message.
func jsonClip(s string) string {
	if utf8.RuneCountInString(s) <= 60 {
		return s
	}
	return string([]rune(s)[:57]) + "..."
}
