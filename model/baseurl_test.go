package model

import (
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
