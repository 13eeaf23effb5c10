package wire

import (
	"context"
	"errors"
	"io"
	"math"
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
		// Past what a Duration holds: the longest one, never a negative
		// one (converting such a float to int64 is), nor 0.
		{map[string]string{"Retry-After": "1e30"}, math.MaxInt64},
		{map[string]string{"Retry-After-Ms": "1e30"}, math.MaxInt64},
		{map[string]string{"Retry-After": "NaN"}, 0},
		{map[string]string{"Retry-After": "Fri, 31 Dec 9999 23:59:59 GMT"}, math.MaxInt64},
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

// TestAccountRefused: an answer that refuses the account or its key
// (OpenAI's 429 insufficient_quota, Anthropic's 400 about the credit
// balance, any 401 or 402, Anthropic's permission_error) is fatal and not
// retried; a plain 429 stays retryable, other 400s and a bare 403 are
// neither, and a timeout says so.
func TestAccountRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		status           int
		body             string
		retryable, fatal bool
	}{
		{429, `{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota", "param": null, "code": "insufficient_quota"}}`, false, true},
		{429, `{"error": {"message": "You exceeded your current quota", "type": "insufficient_quota"}}`, false, true},
		{429, `{"error": {"message": "Rate limit reached for requests", "type": "requests", "code": "rate_limit_exceeded"}}`, true, false},
		{429, `{"error": {"message": "slow down", "code": 429}}`, true, false},
		{429, `{"type": "error", "error": {"type": "rate_limit_error", "message": "Number of request tokens has exceeded your per-minute rate limit"}}`, true, false},
		{400, `{"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}, "request_id": "req_1"}`, false, true},
		{400, `{"type": "error", "error": {"type": "invalid_request_error", "message": "You have reached your specified API usage limits. You will regain access on 2026-12-01 at 00:00 UTC."}}`, false, true},
		{400, `{"type": "error", "error": {"type": "invalid_request_error", "message": "max_tokens: 100000 > 64000, which is the maximum allowed"}}`, false, false},
		{401, `{"type": "error", "error": {"type": "authentication_error", "message": "invalid x-api-key"}}`, false, true},
		{401, `{"error": {"message": "Incorrect API key provided", "type": "invalid_request_error", "code": "invalid_api_key"}}`, false, true},
		{401, `Unauthorized`, false, true},
		{402, `{"type": "error", "error": {"type": "billing_error", "message": "There is an issue with your billing"}}`, false, true},
		{403, `{"type": "error", "error": {"type": "permission_error", "message": "Your API key does not have permission to use the specified resource."}}`, false, true},
		{403, `{"error": {"message": "Your input was flagged", "code": 403}}`, false, false},
		{404, `{"type": "error", "error": {"type": "not_found_error", "message": "model: claude-x"}}`, false, false},
	} {
		res := &http.Response{StatusCode: tc.status, Header: http.Header{}, Body: io.NopCloser(strings.NewReader(tc.body))}
		err := Classify("p", "", errors.New("failed"), res, ctx, ctx, time.Minute)
		var ae *model.APIError
		if !errors.As(err, &ae) || ae.Status != tc.status || ae.Retryable != tc.retryable || ae.Fatal != tc.fatal || ae.Timeout {
			t.Errorf("%d %s: %#v, want retryable %v, fatal %v", tc.status, tc.body, err, tc.retryable, tc.fatal)
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

// A capped body gives up to the cap and then fails with TooLargeError,
// at once when the Content-Length says so; a body within the cap reads
// whole, however the reads are sized.
func TestCapped(t *testing.T) {
	for _, tc := range []struct {
		size, limit, declared int64
		tooLarge              bool
	}{
		{10, 10, -1, false},
		{10, 10, 10, false},
		{11, 10, -1, true},
		{11, 10, 11, true},
		{0, 10, 0, false},
		{1 << 20, 1000, -1, true},
	} {
		body := io.NopCloser(strings.NewReader(strings.Repeat("x", int(tc.size))))
		data, err := io.ReadAll(capped(body, tc.limit, tc.declared))
		var big *TooLargeError
		switch {
		case tc.tooLarge && (!errors.As(err, &big) || big.Limit != tc.limit || int64(len(data)) > tc.limit):
			t.Errorf("%+v: read %d bytes, %v; want at most the cap, then TooLargeError", tc, len(data), err)
		case !tc.tooLarge && (err != nil || int64(len(data)) != tc.size):
			t.Errorf("%+v: read %d bytes, %v; want it whole", tc, len(data), err)
		}
	}
}

// A failed request's id, as OpenAI (x-request-id) and Anthropic
// (request-id) give it, ends the error's message: their support asks for
// it. An id that is long, not printable or holds the key is left out.
func TestRequestIDInError(t *testing.T) {
	const key = "sk-test-KEY"
	for _, tc := range []struct {
		header map[string]string
		want   string
	}{
		{map[string]string{"X-Request-Id": "req_abc123"}, "HTTP 500: server_error: boom (request req_abc123)"},
		{map[string]string{"Request-Id": "req_011CSH"}, "HTTP 500: server_error: boom (request req_011CSH)"},
		{nil, "HTTP 500: server_error: boom"},
		{map[string]string{"X-Request-Id": "a b"}, "HTTP 500: server_error: boom"},
		{map[string]string{"X-Request-Id": strings.Repeat("x", 101)}, "HTTP 500: server_error: boom"},
		{map[string]string{"X-Request-Id": "id-" + key}, "HTTP 500: server_error: boom"},
	} {
		h := http.Header{}
		for k, v := range tc.header {
			h.Set(k, v)
		}
		res := &http.Response{StatusCode: 500, Header: h, Body: io.NopCloser(strings.NewReader(`{"error":{"type":"server_error","message":"boom"}}`))}
		err := Classify("p", key, errors.New("HTTP 500"), res, context.Background(), context.Background(), time.Minute)
		if got := err.Error(); !strings.HasSuffix(got, tc.want) || strings.Contains(got, key) {
			t.Errorf("%v: %q, want it to end %q", tc.header, got, tc.want)
		}
	}
}

// bodyMessage extracts the error text and code from an error response's
// body (dataMessage).
func bodyMessage(res *http.Response) (msg, code string) {
	return dataMessage(res.StatusCode, readBody(res))
}
