package config

import (
	"strings"

	"github.com/evalmd/evalmd/internal/setting"
)

// A member is one of a config file's own members (the settings aside):
// its name, the yaml tag of its Config field (TestMembersAreTheFields),
// what it holds, and the JSON Schema of its value, no looser than Parse.
type member struct {
	name, doc string
	schema    map[string]any
}

// price is an IN,OUT[,CACHED_IN[,CACHE_WRITE]] price as model.ParsePrice
// reads it.
const price = `^\s*\$?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:\s*,\s*\$?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)){1,3}\s*$`

// memberTable lists the members, in Config's order.
func memberTable() []member {
	str := func(pattern string) map[string]any {
		s := map[string]any{"type": "string"}
		if pattern != "" {
			s["pattern"] = pattern
		}
		return s
	}
	mapOf := func(v map[string]any) map[string]any {
		return map[string]any{"type": "object", "additionalProperties": v}
	}
	ceilings := map[string]any{}
	for _, s := range setting.All {
		if s.Ceiling != "" {
			ceilings[s.Name] = s.Schema()
		}
	}
	return []member{
		{"models", "The models run when no -m is given, one per item (openai/gpt-4o-mini, ollama/llama3, mock...).",
			map[string]any{"type": "array", "items": str(`^[^,]*[^,\s][^,]*$`)}},
		{"base_urls", "Servers by provider or openai-api NAME (openai, anthropic, ollama, vllm, llamacpp, NAME): the base URL its models are sent to when neither --base-url nor NAME_BASE_URL names one. A workspace evalmd.yaml cannot name the server of a provider whose key is in the environment.",
			mapOf(str(`^\s*[Hh][Tt][Tt][Pp][Ss]?://[^\s/?#]`))},
		{"judge", "The judge grader's model when no --judge is given.", str("")},
		{"prices", "Prices by model name, IN,OUT[,CACHED_IN[,CACHE_WRITE]] in US dollars per million tokens (as --price, which wins).", mapOf(str(price))},
		{"concurrency", "Requests in flight per model when no -c is given: a number (at least 1), or auto.",
			map[string]any{"anyOf": []any{map[string]any{"type": "integer", "minimum": 1}, map[string]any{"type": "string", "enum": []string{"auto"}},
				str(`^\s*\+?0*[1-9][0-9]*\s*$`)}}},
		{"ceilings", "The most a sheet or a workspace evalmd.yaml may set these settings to (as run --ceiling, which wins). Your own config file only.",
			map[string]any{"type": "object", "properties": ceilings, "additionalProperties": false}},
		{"data_roots", "Folders whose files sheets may send, besides each sheet's own (as run --data-root; a relative one from the file's folder). Your own config file only.",
			map[string]any{"type": "array", "items": str(`\S`)}},
		{"vision", "By model name, whether the model is sent a question's images (true or false), over what its name says (OpenAI's but gpt-3.5, Anthropic's); run --vision wins.",
			mapOf(map[string]any{"type": "boolean"})},
		{"max_cost", "run --max-cost when it is not given: the most a run may spend, in US dollars (what was spent plus the worst case of the requests in flight). Your own config file only.",
			map[string]any{"type": "number", "exclusiveMinimum": 0}},
		{"latest_version", "agg --latest-version when it is not given: count only the runs of each sheet's newest version.", map[string]any{"type": "boolean"}},
	}
}

// memberNames lists the members, comma-separated.
func memberNames() string {
	var names []string
	for _, m := range memberTable() {
		names = append(names, m.name)
	}
	return strings.Join(names, ", ")
}

// Schema is the JSON Schema of a config file, evalmd.yaml or the user's
// config.yaml (file config.json): its members and the settings a config
// file may set, each with its description.
func Schema() ([]byte, error) {
	props := map[string]any{}
	for _, m := range memberTable() {
		s := map[string]any{"description": m.doc}
		for k, v := range m.schema {
			s[k] = v
		}
		props[m.name] = s
	}
	for _, s := range setting.All {
		if s.From&setting.Config != 0 {
			props[s.Name] = s.Schema()
		}
	}
	return setting.Document("config.json", "evalmd config",
		"evalmd's config file: a workspace's evalmd.yaml, or your own ~/.config/evalmd/config.yaml. Defaults for runs: models, servers, the judge, prices, concurrency and the settings (flags, then a question's meta, then its sheet's come first). API keys never go here. README: The config file, Settings.", props)
}
