package model

import "strings"

// contextLimits are context windows in tokens (input plus output), from the
// providers' model pages. A key matches the model name itself or the name
// followed by "-..." (a dated or variant suffix); the longest matching key
// wins, so "gpt-4-turbo-2024-04-09" takes gpt-4-turbo's limit and
// "gpt-4-0613" takes gpt-4's. The first three are DSBench's MODEL_LIMITS.
// A function, not a package variable, so nothing can change it at run time.
func contextLimits() map[string]int {
	return map[string]int{
		"gpt-3.5-turbo-0125":     16385,
		"gpt-4-turbo-2024-04-09": 128000,
		"gpt-4o-2024-05-13":      128000,

		"gpt-3.5-turbo":          16385,
		"gpt-3.5-turbo-16k":      16385,
		"gpt-3.5-turbo-0301":     4096,
		"gpt-3.5-turbo-0613":     4096,
		"gpt-3.5-turbo-instruct": 4096,
		"gpt-4":                  8192,
		"gpt-4-32k":              32768,
		"gpt-4-turbo":            128000,
		"gpt-4-1106-preview":     128000,
		"gpt-4-0125-preview":     128000,
		"gpt-4-vision-preview":   128000,
		"gpt-4o":                 128000,
		"gpt-4o-mini":            128000,
		"chatgpt-4o-latest":      128000,
		"gpt-4.1":                1047576,
		"gpt-4.5-preview":        128000,
		"gpt-5":                  400000,
		"o1":                     200000,
		"o1-mini":                128000,
		"o1-preview":             128000,
		"o3":                     200000,
		"o3-mini":                200000,
		"o4-mini":                200000,
		"claude":                 200000,
		"claude-2.0":             100000,
		"claude-instant":         100000,
	}
}

// ContextLimit returns the context window of a model (the provider's own
// name, "gpt-4-0613", not "openai/gpt-4-0613") from the table, matching the
// longest key that equals the name or is followed in it by "-". ok is false
// for a model the table does not know.
func ContextLimit(name string) (limit int, ok bool) {
	best := -1
	for key, v := range contextLimits() {
		if (name == key || strings.HasPrefix(name, key+"-")) && len(key) > best {
			best, limit = len(key), v
		}
	}
	return limit, best >= 0
}
