package model

import (
	"strings"
	"testing"
)

// A model's server is --base-url, else the environment's NAME_BASE_URL,
// else the config's base_urls entry (a value, matched as NAME_BASE_URL is:
// my-server is MY_SERVER), else the provider's default; a bad URL is an
// error naming where it came from, never the URL; one with a key (in
// USER:PASS@ or its query string) is refused from each of the three.
func TestServer(t *testing.T) {
	env := map[string]string{"VLLM_BASE_URL": "http://env:1/v1", "MY_SERVER_BASE_URL": "", "KEYED_BASE_URL": "http://env:1/v1?api-key=sk-secret"}
	urls := map[string]string{"vllm": "http://conf:1/v1", "ollama": "http://conf:2/v1", "my-server": "http://conf:3/v1", "bad": "ftp://x:secret@h",
		"keyed-conf": "https://conf:4/v1?token=sk-secret"}
	for _, tc := range []struct {
		opt        Options
		name, want string
		err        string
	}{
		{Options{BaseURL: "http://flag:1/v1", BaseURLs: urls}, "vllm", "http://flag:1/v1", ""},
		{Options{BaseURLs: urls}, "vllm", "http://env:1/v1", ""},
		{Options{BaseURLs: urls}, "ollama", "http://conf:2/v1", ""},
		{Options{BaseURLs: urls}, "MY_SERVER", "http://conf:3/v1", ""},
		{Options{BaseURLs: urls}, "anthropic", "", ""},
		{Options{}, "ollama", "", ""},
		{Options{BaseURLs: urls}, "bad", "", "the base URL from the config's base_urls: bad"},
		{Options{BaseURL: "http://flag:1/v1?key=sk-secret"}, "vllm", "", "the base URL from --base-url holds a key in its query string"},
		{Options{BaseURLs: urls}, "keyed", "", "the base URL from KEYED_BASE_URL holds a key in its query string"},
		{Options{BaseURLs: urls}, "keyed-conf", "", "the base URL from the config's base_urls: keyed-conf holds a key in its query string"},
	} {
		tc.opt.Getenv = func(k string) string { return env[k] }
		got, err := tc.opt.Server(tc.name)
		if got != tc.want || (err == nil) != (tc.err == "") || err != nil && (!strings.Contains(err.Error(), tc.err) || strings.Contains(err.Error(), "secret")) {
			t.Errorf("%s with %+v: %q, %v; want %q, %q", tc.name, tc.opt.BaseURLs, got, err, tc.want, tc.err)
		}
	}
}
