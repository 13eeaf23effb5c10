package setting

import (
	"fmt"
	"sort"
)

// Key is a meta key that is not a setting but is read by some package:
// data about the question (its id, its grader's parameters...).
type Key struct {
	Name, Doc string
}

// Keys are the meta keys read besides the settings.
var Keys = []Key{
	{"tolerance", "numeric grader: the absolute tolerance"},
	{"rel_tolerance", "numeric grader: the relative tolerance"},
	{"json_arrays", "json grader: order (the default) or set, how arrays compare"},
	{"pattern", "regex grader: the regular expression (Go's RE2 syntax)"},
	{"match", "regex grader: find (the default: anywhere in the answer) or whole (the whole answer)"},
	{"also_grade", "graders whose verdicts are recorded beside the grade (also_graded), never changing it: json, ..."},
	{"script", "script grader: the program that grades, relative to the sheet's folder"},
	{"script_timeout", "script grader: its time limit, seconds or a duration (60s; at most 10m)"},
	{"script_memory", "script grader: its memory limit, a size (512M; at most 4G)"},
	{"judge_template", "judge grader: dsbench, inspect, or a template of its own"},
	{"judge_question", "judge grader: the question the judge is shown"},
	{"id", "the question's id (replay files, exports)"},
	{"id_type", "number: the id is a number in exports"},
	{"benchmark", "the benchmark the sheet belongs to (agg's figures)"},
	{"data_root", "a folder the sheet's files may resolve below, besides the sheet's own"},
	{"reformat_question", "reformat: required: the question's text the reformat model is shown, a JSON string"},
	{"reformat_format", "reformat: required: the answer format the reformat model is shown, a JSON string"},
}

// LIMEData are the meta keys LIME's own sheets carry as data for their
// readers (answer_suggested_length...), known so that they draw no
// warning.
var LIMEData = []string{"answer_type", "answer_suggested_length", "has_endchar", "hidden_word"}

// KeyChecker checks the meta keys of a sheet's every question, the
// known names gathered once.
type KeyChecker struct{ known map[string]bool }

// NewKeyChecker is the checker of meta keys besides data.
func NewKeyChecker(data []string) KeyChecker {
	known := map[string]bool{}
	for _, s := range All {
		known[s.Name] = true
	}
	for _, k := range Keys {
		known[k.Name] = true
	}
	for _, k := range LIMEData {
		known[k] = true
	}
	for _, k := range data {
		known[k] = true
	}
	return KeyChecker{known}
}

// Check says, for each key of a meta section that is neither a setting,
// a Key, LIME's data nor one of the checker's data (the keys benchmarks
// declare as their own), "FILE:LINE: meta KEY is not a setting or key
// evalmd reads (did you mean NEAR?); it is kept as data", with the
// nearest known name when one is within two edits. The warnings come in
// line order.
func (c KeyChecker) Check(file string, meta map[string]string, lines map[string]int) []string {
	known := c.known
	var unknown []string
	for k := range meta {
		if !known[k] {
			unknown = append(unknown, k)
		}
	}
	sort.Slice(unknown, func(i, j int) bool {
		if lines[unknown[i]] != lines[unknown[j]] {
			return lines[unknown[i]] < lines[unknown[j]]
		}
		return unknown[i] < unknown[j]
	})
	var out []string
	for _, k := range unknown {
		near := ""
		if n := nearest(k, known); n != "" {
			near = fmt.Sprintf(" (did you mean %s?)", n)
		}
		out = append(out, fmt.Sprintf("%s:%d: meta %s is not a setting or key evalmd reads%s; it is kept as data", file, lines[k], k, near))
	}
	return out
}

// nearest is the known name fewest edits from k, when within two (one for
// a name of four letters or fewer); "" otherwise.
func nearest(k string, known map[string]bool) string {
	best, bestD := "", 3
	if len(k) <= 4 {
		bestD = 2
	}
	names := make([]string, 0, len(known))
	for n := range known {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if d := edits(k, n); d < bestD {
			best, bestD = n, d
		}
	}
	return best
}

// edits is the Levenshtein distance between a and b.
func edits(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
