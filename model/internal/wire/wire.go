// Package wire is how the HTTP providers (model/openai, model/anthropic)
// talk to their servers, the same way: Client sends their JSON requests,
// with a time limit and a cap on each reply; Classify says of every
// failure whether a retry may help, how long the server asked to be left
// alone, and never quotes a key or a raw body; Results reads a batch's
// results file a line at a time.
package wire

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/evalmd/evalmd/model"
)

// Classify turns a failed call (Client's) into the error Complete returns: the
// caller's own cancellation as is, everything else as an *APIError that says
// whether a retry may help. res is the HTTP response, if one arrived; parent
// is the caller's context and call the one bounded by the request timeout.
// Messages never carry a raw body, only the error text parsed from it, and
// key is scrubbed from all of them.
func Classify(provider, key string, err error, res *http.Response, parent, call context.Context, timeout time.Duration) error {
	if parent.Err() != nil {
		return parent.Err() // the caller gave up: not the server's fault, not to retry
	}
	var urlErr *url.Error
	if errors.As(err, &urlErr) {
		// Go's error quotes the request's URL, whose path may hold a
		// key (a proxy taking it so).
		urlErr.URL = model.RedactURL(urlErr.URL)
	}
	if res != nil && res.StatusCode >= 400 {
		e := statusError(provider, key, res.StatusCode, readBody(res))
		e.RetryAfter = retryAfter(res.Header, time.Now())
		if id := requestID(res.Header, key); id != "" {
			e.Message += " (request " + id + ")"
		}
		return e
	}
	var big *TooLargeError
	if errors.As(err, &big) {
		// Not retried: a server that sent this much will likely do so
		// again, and each attempt may be billed.
		return &model.APIError{Provider: provider, Message: big.Error()}
	}
	if call.Err() != nil || errors.Is(err, context.DeadlineExceeded) {
		return &model.APIError{Provider: provider, Retryable: true, Timeout: true,
			Message: fmt.Sprintf("request timed out after %s", timeout)}
	}
	if res != nil {
		// A success status whose body could not be read or decoded: a
		// truncated or garbled reply, worth another try.
		return &model.APIError{Provider: provider, Status: 0, Retryable: true,
			Message: truncate(scrub("malformed reply: "+err.Error(), key), 500)}
	}
	if isTransport(err) {
		return &model.APIError{Provider: provider, Retryable: true,
			Message: truncate(scrub("transport error: "+err.Error(), key), 500), Cause: err}
	}
	// Anything else failed before a request left (a bad base URL, an
	// unencodable body): retrying cannot help.
	return &model.APIError{Provider: provider, Message: truncate(scrub(err.Error(), key), 500)}
}

// TooLargeError is a reply whose body passed Client.MaxReply.
type TooLargeError struct{ Limit int64 }

func (e *TooLargeError) Error() string {
	return fmt.Sprintf("reply larger than %s, not read further (--max-reply raises the cap)", Size(e.Limit))
}

// Size writes a byte count for a person: 32 MiB, 1.5 GiB, 800 bytes.
func Size(n int64) string {
	switch {
	case n >= 1<<30:
		return strconv.FormatFloat(float64(n)/(1<<30), 'f', -1, 64) + " GiB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', -1, 64) + " MiB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', -1, 64) + " KiB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// cappedBody is a response body read through Client.MaxReply's cap
// (capped).
type cappedBody struct {
	io.ReadCloser
	left, limit int64
	declared    int64 // Content-Length; -1 when unknown
}

func (b *cappedBody) Read(p []byte) (int, error) {
	if b.declared > b.limit {
		return 0, &TooLargeError{Limit: b.limit}
	}
	if b.left <= 0 {
		// The cap is reached: one more byte says whether the body goes on.
		var one [1]byte
		n, err := io.ReadFull(b.ReadCloser, one[:])
		if n > 0 {
			return 0, &TooLargeError{Limit: b.limit}
		}
		return 0, err
	}
	if int64(len(p)) > b.left {
		p = p[:b.left]
	}
	n, err := b.ReadCloser.Read(p)
	b.left -= int64(n)
	return n, err
}

// retryableStatus says which HTTP statuses are worth retrying: rate limits,
// request timeouts, conflicts, and server-side failures (5xx, Anthropic's 529).
func retryableStatus(status int) bool {
	switch status {
	case http.StatusTooManyRequests, http.StatusRequestTimeout, http.StatusConflict:
		return true
	}
	return status >= 500
}

// isTransport reports whether err is a network failure: a refused, reset or
// dropped connection, or a reply cut short.
func isTransport(err error) bool {
	var urlErr *url.Error
	var netErr net.Error
	return errors.As(err, &urlErr) || errors.As(err, &netErr) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED)
}

// retryAfter reads how long the server asks us to wait: OpenAI's
// retry-after-ms, else Retry-After in seconds or as an HTTP date; 0 if absent.
func retryAfter(h http.Header, now time.Time) time.Duration {
	if ms, err := strconv.ParseFloat(h.Get("Retry-After-Ms"), 64); err == nil && ms > 0 {
		return seconds(ms / 1000)
	}
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		return seconds(secs)
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now)
	}
	return 0
}

// requestID is the id the server gave a failed request (OpenAI's
// x-request-id, Anthropic's request-id), which its support asks for; ""
// when none, or when it is not a short token.
func requestID(h http.Header, key string) string {
	for _, name := range []string{"X-Request-Id", "Request-Id"} {
		id := strings.TrimSpace(h.Get(name))
		if id == "" {
			continue
		}
		if len(id) > 100 || strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r > '~' }) || (key != "" && strings.Contains(id, key)) {
			return ""
		}
		return id
	}
	return ""
}

// seconds converts a header's seconds to a Duration: 0 for none or a
// negative value, the longest Duration for one past it (converting such a
// float to an integer gives a negative number), as a far-future date gives.
func seconds(secs float64) time.Duration {
	switch {
	case !(secs > 0): // also NaN
		return 0
	case secs >= float64(math.MaxInt64)/float64(time.Second):
		return math.MaxInt64
	}
	return time.Duration(secs * float64(time.Second))
}

// StatusError is the error of one request that a batch answered with an
// HTTP error status and body: classified as Classify classifies a live
// reply with that status.
func StatusError(provider, key string, status int, body []byte) *model.APIError {
	return statusError(provider, key, status, body)
}

// statusError classifies an HTTP error status and its body.
func statusError(provider, key string, status int, body []byte) *model.APIError {
	msg, code := dataMessage(status, body)
	fatal := accountRefused(status, code, msg)
	return &model.APIError{
		Provider:  provider,
		Status:    status,
		Retryable: retryableStatus(status) && !fatal,
		Fatal:     fatal,
		Message:   truncate(scrub(msg, key), 500),
	}
}

// accountRefused says whether an error answer refuses the account or its
// key rather than the request: no other request of the run can succeed
// until a person acts, so waiting does not help, nor does asking the next
// question. Providers say it by status, by error code or type, or only in
// the message text (Anthropic answers an account out of credit with a 400
// invalid_request_error, the type of any bad request). A 403 alone is not
// enough: OpenAI-compatible gateways answer it to one request they will not
// serve (a prompt flagged by moderation) as well as to a key.
func accountRefused(status int, code, msg string) bool {
	switch status {
	case http.StatusUnauthorized, http.StatusPaymentRequired: // the key refused; payment required
		return true
	}
	switch code {
	case "insufficient_quota", // OpenAI's 429: the account is out of credit
		"authentication_error", "billing_error", "permission_error": // Anthropic's 401, 402, 403
		return true
	}
	msg = strings.ToLower(msg)
	for _, s := range [...]string{
		"credit balance is too low",               // Anthropic: "Your credit balance is too low to access the Anthropic API..."
		"reached your specified api usage limits", // Anthropic: a workspace's spend limit, "... You will regain access on DATE"
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// readBody reads an error response's body, bounded; nil when it cannot.
func readBody(res *http.Response) []byte {
	if res.Body == nil {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(res.Body, 64<<10))
	if err != nil {
		return nil
	}
	return data
}

// dataMessage extracts the error text from an error body, in the shapes
// OpenAI, Anthropic and the local servers use, and the error's code
// (OpenAI's "code", else its "type"; "" when absent). A body that is not
// such JSON is never quoted (it may echo headers, keys included): the
// status text stands in for it.
func dataMessage(status int, data []byte) (msg, code string) {
	fallback := http.StatusText(status)
	if fallback == "" {
		fallback = "error"
	}
	var body struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  json.RawMessage `json:"detail"`
	}
	if json.Unmarshal(data, &body) != nil {
		return fallback, ""
	}
	var nested struct {
		Type    string `json:"type"`
		Code    any    `json:"code"` // a string at OpenAI, a number at some servers
		Message string `json:"message"`
	}
	switch {
	case json.Unmarshal(body.Error, &nested) == nil && nested.Message != "":
		msg = nested.Message
		if nested.Type != "" {
			msg = nested.Type + ": " + msg
		}
		code = nested.Type
		if c, ok := nested.Code.(string); ok && c != "" {
			code = c
		}
	case json.Unmarshal(body.Error, &msg) == nil && msg != "": // {"error": "text"} (Ollama)
	case body.Message != "":
		msg = body.Message
	case json.Unmarshal(body.Detail, &msg) == nil && msg != "": // {"detail": "text"} (FastAPI servers)
	default:
		return fallback, ""
	}
	return msg, code
}

// scrub removes the API key from a message, whatever echoed it. It runs
// before truncate, so a cut can never leave part of a key behind.
func scrub(s, key string) string {
	if key == "" {
		return s
	}
	return strings.ReplaceAll(s, key, "[redacted]")
}

// truncate shortens s to at most n bytes without splitting a character.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "..."
}

// Truncate shortens s to at most n bytes without splitting a character,
// after scrubbing key from it.
func Truncate(s, key string, n int) string { return truncate(scrub(s, key), n) }
