package model

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// MetaProblem is a generation setting in a sheet's meta that could not be
// read, and so was ignored.
type MetaProblem struct {
	Key, Value string
	Msg        string // says what was wrong and that the value is ignored
}

// SettingsFromMeta reads the generation settings a sheet's meta gives:
// temperature, top_p, max_tokens, seed, and stop (sequences separated by
// "|", or a JSON array or string, so "\n" can be said). A value it cannot
// read (Python's None, "warm") is ignored, as LIME's extract_gen_params
// ignores it, and returned as a problem for the caller to report.
func SettingsFromMeta(meta map[string]string) (Settings, []MetaProblem) {
	var s Settings
	var problems []MetaProblem
	bad := func(key, why string) {
		problems = append(problems, MetaProblem{Key: key, Value: meta[key],
			Msg: fmt.Sprintf("meta %s: %q %s; ignored, as LIME ignores a setting it cannot read", key, meta[key], why)})
	}
	if v := meta["max_tokens"]; v != "" {
		if n, err := strconv.Atoi(v); err == nil && n >= 0 {
			s.MaxTokens = n
		} else {
			bad("max_tokens", "is not a whole number >= 0")
		}
	}
	if v := meta["seed"]; v != "" {
		if n, err := strconv.ParseInt(v, 10, 64); err == nil {
			s.Seed = &n
		} else {
			bad("seed", "is not a whole number")
		}
	}
	if v := meta["stop"]; v != "" {
		if stop, ok := parseStop(v); ok {
			s.Stop = stop
		} else {
			bad("stop", `is not stop sequences (A|B, or a JSON array such as ["\n", "END"])`)
		}
	}
	for _, key := range []string{"temperature", "top_p"} {
		v := meta[key]
		if v == "" {
			continue
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			bad(key, "is not a number")
			continue
		}
		if key == "temperature" {
			s.Temperature = &f
		} else {
			s.TopP = &f
		}
	}
	return s, problems
}

// parseStop reads a stop meta value; "None" (Python's) is no value.
func parseStop(v string) ([]string, bool) {
	v = strings.TrimSpace(v)
	switch {
	case v == "None" || v == "null":
		return nil, false
	case strings.HasPrefix(v, "["):
		var stop []string
		if json.Unmarshal([]byte(v), &stop) != nil {
			return nil, false
		}
		return dropEmpty(stop), true
	case strings.HasPrefix(v, `"`):
		var one string
		if json.Unmarshal([]byte(v), &one) != nil {
			return nil, false
		}
		return dropEmpty([]string{one}), true
	}
	var stop []string
	for _, part := range strings.Split(v, "|") {
		stop = append(stop, strings.TrimSpace(part))
	}
	return dropEmpty(stop), true
}

func dropEmpty(ss []string) []string {
	var out []string
	for _, s := range ss {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Over returns s with every setting o sets put in its place: o wins.
func (s Settings) Over(o Settings) Settings {
	if o.Temperature != nil {
		s.Temperature = o.Temperature
	}
	if o.TopP != nil {
		s.TopP = o.TopP
	}
	if o.MaxTokens > 0 {
		s.MaxTokens = o.MaxTokens
	}
	if o.Seed != nil {
		s.Seed = o.Seed
	}
	if len(o.Stop) > 0 {
		s.Stop = o.Stop
	}
	return s
}

// IsZero reports whether s sets nothing.
func (s Settings) IsZero() bool {
	return s.Temperature == nil && s.TopP == nil && s.MaxTokens == 0 && s.Seed == nil && len(s.Stop) == 0
}

// Equal reports whether two settings set the same values.
func (s Settings) Equal(o Settings) bool {
	eqF := func(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }
	if !eqF(s.Temperature, o.Temperature) || !eqF(s.TopP, o.TopP) || s.MaxTokens != o.MaxTokens {
		return false
	}
	if (s.Seed == nil) != (o.Seed == nil) || (s.Seed != nil && *s.Seed != *o.Seed) || len(s.Stop) != len(o.Stop) {
		return false
	}
	for i := range s.Stop {
		if s.Stop[i] != o.Stop[i] {
			return false
		}
	}
	return true
}
