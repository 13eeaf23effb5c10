package model

import (
	"fmt"
	"strconv"
	"strings"
)

// SettingsFromMeta reads the generation settings a sheet's meta gives
// (temperature, top_p, max_tokens, seed, stop). A value that is not of its
// kind is an error naming the key.
func SettingsFromMeta(meta map[string]string) (Settings, error) {
	var s Settings
	float := func(key string) (*float64, error) {
		v, ok := meta[key]
		if !ok || v == "" {
			return nil, nil
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return nil, fmt.Errorf("meta %s: %q is not a number", key, v)
		}
		return &f, nil
	}
	var err error
	if s.Temperature, err = float("temperature"); err != nil {
		return s, err
	}
	if s.TopP, err = float("top_p"); err != nil {
		return s, err
	}
	if v := meta["max_tokens"]; v != "" {
		if s.MaxTokens, err = strconv.Atoi(v); err != nil || s.MaxTokens < 0 {
			return s, fmt.Errorf("meta max_tokens: %q is not a whole number", v)
		}
	}
	if v := meta["seed"]; v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return s, fmt.Errorf("meta seed: %q is not a whole number", v)
		}
		s.Seed = &n
	}
	if v := meta["stop"]; v != "" {
		// Stop sequences are separated by "|"; JSON arrays are accepted too.
		for _, part := range strings.Split(strings.Trim(v, "[]"), "|") {
			part = strings.Trim(strings.TrimSpace(part), `"`)
			if part != "" {
				s.Stop = append(s.Stop, part)
			}
		}
	}
	return s, nil
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
