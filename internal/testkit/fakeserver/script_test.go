package fakeserver

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
)

func TestScripts(t *testing.T) {
	for _, tc := range []struct {
		name    string
		script  func(Call) Reply
		prompts []string
		want    []int
	}{
		{"FailFirst", FailFirst(2, ServerError, Fixed("ok")), []string{"a", "b", "a", "b"}, []int{500, 500, 200, 200}},
		{"FailEachFirst", FailEachFirst(1, RateLimit, nil), []string{"a", "b", "a", "b", "a"}, []int{429, 429, 200, 200, 200}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := NewOpenAI(t, Options{Reply: tc.script})
			for i, p := range tc.prompts {
				body := fmt.Sprintf(`{"model": "m", "messages": [{"role": "user", "content": %q}]}`, p)
				res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(body))
				if err != nil {
					t.Fatal(err)
				}
				res.Body.Close()
				if res.StatusCode != tc.want[i] {
					t.Errorf("call %d (%s): status %d, want %d", i+1, p, res.StatusCode, tc.want[i])
				}
			}
		})
	}
}
