package model

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// One server is one spelling, and a URL holding a key is refused without
// the error repeating it.
func TestCleanBaseURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
		{"http://127.0.0.1:8080/v1/", "http://127.0.0.1:8080/v1"},
		{"http://127.0.0.1:8080/v1//", "http://127.0.0.1:8080/v1"},
		{"HTTP://LocalHost:8080/v1", "http://localhost:8080/v1"},
		{"https://API.OpenAI.com:443/v1/", "https://api.openai.com/v1"},
		{"http://host:80/v1", "http://host/v1"},
		{"https://host:80/v1", "https://host:80/v1"},
		{"http://[::1]:80/", "http://[::1]"},
		{"http://[::1]:8000/v1", "http://[::1]:8000/v1"},
		{" http://host/v1 ", "http://host/v1"},
		{"http://host/V1", "http://host/V1"}, // a path keeps its case
		{"https://host/openai/deployments?api-version=1", "https://host/openai/deployments?api-version=1"},
		{"https://host/v1?model=a&region=eu", "https://host/v1?model=a&region=eu"},
		{"https://api.openai.com/v1", "https://api.openai.com/v1"}, {"https://api.anthropic.com", "https://api.anthropic.com"}, {"http://localhost:11434/v1", "http://localhost:11434/v1"},
	} {
		got, err := CleanBaseURL(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("CleanBaseURL(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"http://u:sk-secret@host/v1", "http://sk-secret@host/v1", "http://:sk-secret@host/v1",
		"ftp://host/v1", "host:8080/v1", "", "http://", "http://sk-secret@host:bad/v1", "http://[sk-secret/v1"} {
		_, err := CleanBaseURL(in)
		if err == nil {
			t.Errorf("CleanBaseURL(%q) accepted", in)
			continue
		}
		if strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("CleanBaseURL(%q): error %q repeats the secret", in, err)
		}
		if strings.Contains(in, "@") && !strings.Contains(in, "bad") && !errors.Is(err, errBaseURLUser) {
			t.Errorf("CleanBaseURL(%q): %v, want errBaseURLUser", in, err)
		}
	}
	// A key in the query string is refused as a key in USER:PASS@ is:
	// a parameter named like a secret, a value or a name like a key, or
	// a query string that does not parse.
	for _, in := range []string{"https://host/v1?key=sk-secret", "https://host/v1?api-key=sk-secret", "https://host/v1?token=sk-secret",
		"https://host/v1?api_key=sk-secret", "https://host/v1?API-KEY=sk-secret", "https://host/v1?access_token=sk-secret",
		"https://host/v1?x-api-key=sk-secret&api-version=1", "https://host/v1?auth=sk-secret", "https://host/v1?secret=sk-secret",
		"https://host/v1?password=sk-secret", "https://host/v1?key", "https://host/v1?q=sk-secret", "https://host/v1?sk-secret",
		"https://host/v1?q=Bearer%20sk-secret", "https://host/v1?key=sk-secret%zz", "https://host/v1?a=1;key=sk-secret",
		"https://host/v1/?token=sk-secret#frag", "HTTP://HOST/v1?Key=sk-secret"} {
		_, err := CleanBaseURL(in)
		if !errors.Is(err, errBaseURLQuery) {
			t.Errorf("CleanBaseURL(%q): %v, want errBaseURLQuery", in, err)
			continue
		}
		if strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("CleanBaseURL(%q): error %q repeats the secret", in, err)
		}
	}
}

// RedactURL hides what looks like a key in a URL and leaves every other
// URL as it was, byte for byte (a recorded base_url does not change).
func TestRedactURL(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"http://127.0.0.1:1/sk-abc123def456ghi789jkl/v1", "http://127.0.0.1:1/[redacted]/v1"},
		{"http://127.0.0.1:1/sk-abc/v1/chat/completions", "http://127.0.0.1:1/[redacted]/v1/chat/completions"},
		{"https://mainnet.example.io/v3/3f9a2c7e41b84d0f9e6a5b2c1d0e8f7a", "https://mainnet.example.io/v3/[redacted]"},
		{"https://h/k/123e4567-e89b-12d3-a456-426614174000/v1", "https://h/k/[redacted]/v1"},
		{"https://h/v1/batches?limit=100&after=sk-x", "https://h/v1/batches?limit=100&after=[redacted]"},
		{"https://h/v1?api-version=2024-06-01&token=abc", "https://h/v1?api-version=2024-06-01&token=[redacted]"},
		{"http://user:pw@h/v1", "http://[redacted]@h/v1"},
		{"http://h/%73k-abc/v1", "http://h/[redacted]/v1"}, // sk- escaped
		// Unchanged: no key in them.
		{"http://127.0.0.1:8080/v1", "http://127.0.0.1:8080/v1"},
		{"https://x.openai.azure.com/openai/deployments/gpt-4o-mini-2024-07-18?api-version=2024-06-01", "https://x.openai.azure.com/openai/deployments/gpt-4o-mini-2024-07-18?api-version=2024-06-01"},
		{"https://api-inference.example.co/models/meta-llama/Meta-Llama-3.1-70B-Instruct/v1", "https://api-inference.example.co/models/meta-llama/Meta-Llama-3.1-70B-Instruct/v1"},
		{"HTTP://H:80/v1/", "HTTP://H:80/v1/"},
		{"", ""},
		{"http://h/%zz/sk-abc", "[a URL that does not parse]"},
	} {
		if got := RedactURL(tc.in); got != tc.want {
			t.Errorf("RedactURL(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// An Info written into a file records its base URL as RedactURL prints it.
func TestInfoRecordsRedactedBaseURL(t *testing.T) {
	b, err := json.Marshal(Info{Provider: "openai-api", Model: "m", BaseURL: "http://h/sk-abc123def456ghi789jkl/v1", Vision: true})
	if err != nil || string(b) != `{"provider":"openai-api","model":"m","base_url":"http://h/[redacted]/v1","vision":true}` {
		t.Errorf("%s %v", b, err)
	}
}
