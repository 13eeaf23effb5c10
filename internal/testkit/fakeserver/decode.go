package fakeserver

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"strings"
)

// The helpers below read the loosely typed request body (decoded with
// UseNumber) without trusting its shape: a client under test may send
// anything, and a wrong shape must become a 400, not a crash.

func floatField(body map[string]any, key string) (*float64, error) {
	v, ok := body[key]
	if !ok || v == nil {
		return nil, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: want a number, got %T", key, v)
	}
	f, err := n.Float64()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	return &f, nil
}

func intField(body map[string]any, key string) (*int64, error) {
	v, ok := body[key]
	if !ok || v == nil {
		return nil, nil
	}
	n, ok := v.(json.Number)
	if !ok {
		return nil, fmt.Errorf("%s: want an integer, got %T", key, v)
	}
	i, err := n.Int64()
	if err != nil {
		return nil, fmt.Errorf("%s: %v", key, err)
	}
	return &i, nil
}

func intPtr(p *int64) *int {
	if p == nil {
		return nil
	}
	i := int(*p)
	return &i
}

// stringsField reads a string or an array of strings.
func stringsField(body map[string]any, key string) ([]string, error) {
	switch v := body[key].(type) {
	case nil:
		return nil, nil
	case string:
		return []string{v}, nil
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			s, ok := e.(string)
			if !ok {
				return nil, fmt.Errorf("%s: want strings, got %T", key, e)
			}
			out = append(out, s)
		}
		return out, nil
	default:
		return nil, fmt.Errorf("%s: want a string or strings, got %T", key, v)
	}
}

func stringField(m map[string]any, key string) string {
	s, _ := m[key].(string)
	return s
}

// dataURL decodes "data:image/png;base64,...." into an Image.
func dataURL(u string) (Image, error) {
	rest, ok := strings.CutPrefix(u, "data:")
	if !ok {
		return Image{}, fmt.Errorf("image url is not a data URL: %.40q", u)
	}
	meta, data, ok := strings.Cut(rest, ",")
	if !ok {
		return Image{}, fmt.Errorf("data URL without a comma")
	}
	mediaType, ok := strings.CutSuffix(meta, ";base64")
	if !ok {
		return Image{}, fmt.Errorf("data URL is not base64")
	}
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return Image{}, fmt.Errorf("data URL: %v", err)
	}
	return Image{MediaType: mediaType, Data: b}, nil
}

// settings lifts the generation settings both APIs share; stopKey is "stop"
// for OpenAI and "stop_sequences" for Anthropic.
func settings(body map[string]any, stopKey string) (Settings, error) {
	var s Settings
	var err error
	if s.Temperature, err = floatField(body, "temperature"); err != nil {
		return s, err
	}
	if s.TopP, err = floatField(body, "top_p"); err != nil {
		return s, err
	}
	mt, err := intField(body, "max_tokens")
	if err != nil {
		return s, err
	}
	s.MaxTokens = intPtr(mt)
	mct, err := intField(body, "max_completion_tokens")
	if err != nil {
		return s, err
	}
	s.MaxCompletionTokens = intPtr(mct)
	if s.Seed, err = intField(body, "seed"); err != nil {
		return s, err
	}
	if s.Stop, err = stringsField(body, stopKey); err != nil {
		return s, err
	}
	if v, ok := body["reasoning_effort"]; ok {
		if s.ReasoningEffort, ok = v.(string); !ok {
			return s, fmt.Errorf("reasoning_effort: want a string, got %T", v)
		}
	}
	return s, nil
}
