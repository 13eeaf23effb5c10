package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
)

func TestRetryAfterHeader(t *testing.T) {
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for _, tc := range []struct {
		header map[string]string
		want   time.Duration
	}{
		{nil, 0},
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After": "-1"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": now.Add(10 * time.Second).Format(http.TimeFormat)}, 10 * time.Second},
		{map[string]string{"Retry-After": now.Add(-10 * time.Second).Format(http.TimeFormat)}, 0},
		{map[string]string{"Retry-After-Ms": "250", "Retry-After": "3"}, 250 * time.Millisecond},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		if got := retryAfter(h, now); got != tc.want {
			t.Errorf("retryAfter(%v) = %v, want %v", tc.header, got, tc.want)
		}
	}
}

func TestBodyMessage(t *testing.T) {
	for _, tc := range []struct {
		status int
		body   string
		want   string
	}{
		{400, `{"error": {"message": "bad model", "type": "invalid_request_error"}}`, "invalid_request_error: bad model"},
		{400, `{"error": {"message": "no type"}}`, "no type"},
		{404, `{"error": "model \"x\" not found"}`, `model "x" not found`},  // Ollama
		{400, `{"detail": "max_tokens too large"}`, "max_tokens too large"}, // FastAPI (vLLM)
		{400, `{"message": "plain"}`, "plain"},
		{502, `<html>Bad gateway, Authorization: Bearer sk-x</html>`, "Bad Gateway"},
		{500, `{"error": {}}`, "Internal Server Error"},
		{599, ``, "error"},
	} {
		res := &http.Response{StatusCode: tc.status, Body: io.NopCloser(strings.NewReader(tc.body))}
		if got, _ := bodyMessage(res); got != tc.want {
			t.Errorf("bodyMessage(%d %s) = %q, want %q", tc.status, tc.body, got, tc.want)
		}
	}
}

func TestScrubBeforeTruncate(t *testing.T) {
	key := "sk-test-SECRET123"
	msg := strings.Repeat("x", 495) + key + " tail"
	got := truncate(scrub(msg, key), 500)
	if strings.Contains(got, "sk-test") || strings.Contains(got, "SECRET") {
		t.Errorf("part of the key survived: %q", got[480:])
	}
	if got := truncate("héllo", 2); got != "h..." {
		t.Errorf("truncate split a character: %q", got)
	}
}

// TestQuota: OpenAI's 429 insufficient_quota is fatal, not a rate limit to
// wait out; a plain 429 stays retryable, and a timeout says so.
func TestQuota(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		body             string
		retryable, fatal bool
	}{
		{`{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}`, false, true},
		{`{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}}`, false, true},
		{`{"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}}`, true, false},
		{`{"error": {"message": "slow down", "code": 429}}`, true, false},
	} {
		res := &http.Response{StatusCode: 429, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body))}
		err := Classify("openai", "", errors.New("429"), res, ctx, ctx, time.Minute)
		var ae *model.APIError
		if !errors.As(err, &ae) || ae.Retryable != tc.retryable || ae.Fatal != tc.fatal || ae.Timeout {
			t.Errorf("%s: %#v, want retryable %v, fatal %v", tc.body, err, tc.retryable, tc.fatal)
		}
	}
	call, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	err := Classify("openai", "", context.DeadlineExceeded, nil, ctx, call, time.Minute)
	var ae *model.APIError
	if !errors.As(err, &ae) || !ae.Timeout || !ae.Retryable || ae.Fatal {
		t.Errorf("timeout: %#v, want a retryable timeout", err)
	}
}
