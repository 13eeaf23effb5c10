// Package providertest holds the checks every HTTP provider's tests run:
// a request using every field, and the classification of server failures.
package providertest

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
)

// Ptr returns a pointer to v.
func Ptr[T any](v T) *T { return &v }

// PNG is not a real PNG: the providers only base64 it, and the fake
// servers decode it back, so any bytes show the round trip.
var PNG = []byte("\x89PNG\r\n\x1a\nfake-image-bytes")

// fullRequest exercises every part of a Request a provider sends.
func FullRequest() model.Request {
	return model.Request{
		System: "You are terse.",
		Messages: []model.Message{
			{Role: "user", Content: "first question"},
			{Role: "assistant", Content: "first answer"},
			{Role: "user", Content: "What is in the picture?", Images: []model.Image{{MediaType: "image/png", Data: PNG}}},
		},
		Settings: model.Settings{
			Temperature: Ptr(0.25),
			TopP:        Ptr(0.9),
			MaxTokens:   123,
			Seed:        Ptr(int64(42)),
			Stop:        []string{"END", "STOP"},
		},
	}
}

// errorCase is one server behaviour and how a provider must classify it.
type errorCase struct {
	name       string
	reply      fakeserver.Reply
	status     int
	retryable  bool
	retryAfter time.Duration
	contains   string // in the error message
	timeout    bool   // the request ran out of time (APIError.Timeout)
	fatal      bool   // the account or key is refused (APIError.Fatal)
}

// Anthropic's answers to an account out of credit and to a key without
// permission, as its API sends them.
const (
	creditTooLow = `{"type": "error", "error": {"type": "invalid_request_error", "message": "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits."}, "request_id": "req_fake"}`
	noPermission = `{"type": "error", "error": {"type": "permission_error", "message": "Your API key does not have permission to use the specified resource."}}`
)

func errorCases() []errorCase {
	return []errorCase{
		{name: "400", reply: fakeserver.Reply{Status: 400, Message: "bad request"}, status: 400, contains: "bad request"},
		{name: "400 credit balance", reply: fakeserver.Reply{Status: 400, RawBody: creditTooLow}, status: 400, contains: "credit balance is too low", fatal: true},
		{name: "401", reply: fakeserver.Reply{Status: 401, Message: "invalid key"}, status: 401, contains: "invalid key", fatal: true},
		{name: "402", reply: fakeserver.Reply{Status: 402}, status: 402, fatal: true},
		{name: "403", reply: fakeserver.Reply{Status: 403, RawBody: `{"error": {"message": "flagged by moderation"}}`}, status: 403, contains: "flagged"},
		{name: "403 permission_error", reply: fakeserver.Reply{Status: 403, RawBody: noPermission}, status: 403, contains: "permission", fatal: true},
		{name: "404", reply: fakeserver.Reply{Status: 404, Message: "no such model"}, status: 404, contains: "no such model"},
		{name: "408", reply: fakeserver.Reply{Status: 408}, status: 408, retryable: true},
		{name: "409", reply: fakeserver.Reply{Status: 409}, status: 409, retryable: true},
		{name: "429 retry-after", reply: fakeserver.Reply{Status: 429, Message: "slow down", RetryAfter: "7"}, status: 429, retryable: true, retryAfter: 7 * time.Second, contains: "slow down"},
		{name: "500", reply: fakeserver.Reply{Status: 500}, status: 500, retryable: true},
		{name: "502 plain text", reply: fakeserver.Reply{Status: 502, RawBody: "<html>bad gateway</html>"}, status: 502, retryable: true, contains: "Bad Gateway"},
		{name: "503", reply: fakeserver.Reply{Status: 503}, status: 503, retryable: true},
		{name: "529 overloaded", reply: fakeserver.Reply{Status: 529, Message: "overloaded"}, status: 529, retryable: true},
		{name: "rate-limit fault", reply: fakeserver.Reply{Fault: fakeserver.RateLimit}, status: 429, retryable: true, retryAfter: 2 * time.Second},
		{name: "server-error fault", reply: fakeserver.Reply{Fault: fakeserver.ServerError}, status: 500, retryable: true},
		{name: "connection reset", reply: fakeserver.Reply{Fault: fakeserver.Reset}, retryable: true, contains: "transport"},
		{name: "malformed json", reply: fakeserver.Reply{Fault: fakeserver.MalformedJSON}, retryable: true, contains: "malformed"},
		{name: "timeout", reply: fakeserver.Reply{Fault: fakeserver.Timeout}, retryable: true, contains: "timed out", timeout: true},
	}
}

// CheckErrorCases runs every errorCase against a fresh fake server built by
// start and a model built by build with a request timeout: short for the
// case that hangs, so the client's timeout is what ends it (the server
// holds it for a minute), and long for the others, so a loaded machine
// never turns their answer into a timeout. No case bounds the wall time.
func CheckErrorCases(t *testing.T, start func(*testing.T, fakeserver.Options) *fakeserver.Server, build func(url string, timeout time.Duration) (model.Model, error)) {
	for _, tc := range errorCases() {
		t.Run(tc.name, func(t *testing.T) {
			srv := start(t, fakeserver.Options{
				Reply:      func(fakeserver.Call) fakeserver.Reply { return tc.reply },
				RetryAfter: 2 * time.Second,
				Hang:       time.Minute,
			})
			timeout := time.Minute
			if tc.timeout {
				timeout = 300 * time.Millisecond
			}
			m, err := build(srv.URL, timeout)
			if err != nil {
				t.Fatal(err)
			}
			req := model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}}
			_, err = m.Complete(context.Background(), req)
			t.Log(err)
			var apiErr *model.APIError
			if !errors.As(err, &apiErr) {
				t.Fatalf("error %v (%T) is not an *model.APIError", err, err)
			}
			if apiErr.Status != tc.status || apiErr.Retryable != tc.retryable || apiErr.RetryAfter != tc.retryAfter ||
				apiErr.Timeout != tc.timeout || apiErr.Fatal != tc.fatal {
				t.Errorf("got status %d retryable %v retry-after %v timeout %v fatal %v, want %d %v %v %v %v (%v)",
					apiErr.Status, apiErr.Retryable, apiErr.RetryAfter, apiErr.Timeout, apiErr.Fatal,
					tc.status, tc.retryable, tc.retryAfter, tc.timeout, tc.fatal, err)
			}
			if !strings.Contains(err.Error(), tc.contains) {
				t.Errorf("error %q does not contain %q", err, tc.contains)
			}
			if !strings.Contains(err.Error(), "model "+m.Name()+":") {
				t.Errorf("error %q does not name the model", err)
			}
			if n := srv.Count(); n != 1 {
				t.Errorf("server saw %d requests, want 1: the provider must not retry (the runner does)", n)
			}
		})
	}
}

// secret is a key that must never appear in an error message.
const secret = "sk-test-SECRET123"

// echoAuth answers 401 quoting the credentials the client sent, in the JSON
// error message and in a raw body, as a careless proxy might.
func echoAuth(raw bool) func(fakeserver.Call) fakeserver.Reply {
	return func(c fakeserver.Call) fakeserver.Reply {
		echo := "auth=" + c.Header.Get("Authorization") + " x-api-key=" + c.Header.Get("X-Api-Key")
		if raw {
			return fakeserver.Reply{Status: 401, RawBody: echo}
		}
		return fakeserver.Reply{Status: 401, Message: "bad credentials: " + echo}
	}
}

// CheckKeyNeverInError checks that a key the server echoes back never
// reaches an error message; build makes the model with that key.
func CheckKeyNeverInError(t *testing.T, start func(*testing.T, fakeserver.Options) *fakeserver.Server, build func(url, key string) (model.Model, error)) {
	for _, raw := range []bool{false, true} {
		srv := start(t, fakeserver.Options{Reply: echoAuth(raw)})
		m, err := build(srv.URL, secret)
		if err != nil {
			t.Fatal(err)
		}
		_, err = m.Complete(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}})
		if err == nil {
			t.Fatal("want an error")
		}
		if strings.Contains(err.Error(), secret) || strings.Contains(err.Error(), "SECRET123") {
			t.Errorf("raw=%v: the key leaked into the error: %v", raw, err)
		}
		// The server did echo the key: the JSON message is kept, scrubbed.
		if !raw && !strings.Contains(err.Error(), "[redacted]") {
			t.Errorf("raw=%v: want the echoed key scrubbed to [redacted]: %v", raw, err)
		}
		var apiErr *model.APIError
		if !errors.As(err, &apiErr) || apiErr.Status != 401 || apiErr.Retryable {
			t.Errorf("raw=%v: want a non-retryable 401 APIError, got %v", raw, err)
		}
	}
}

// CheckReplyCap checks the cap on a reply's body: a reply past it fails
// with one non-retryable error naming the model and the cap, read no
// further than the cap (the server is left with the rest, and the memory
// taken stays near the cap), and a reply under it is read whole. build
// makes the model with Options.MaxReply set to limit (0: the default).
func CheckReplyCap(t *testing.T, start func(*testing.T, fakeserver.Options) *fakeserver.Server, build func(url string, limit int64) (model.Model, error)) {
	for _, tc := range []struct {
		limit, pad int64
		want       string // "" for an answer
	}{
		{0, 300 << 20, "reply larger than 32 MiB"},    // the default cap, the 300 MB reply
		{1 << 20, 4 << 20, "reply larger than 1 MiB"}, // a cap given
		{8 << 20, 4 << 20, ""},                        // a large reply under it
		{1 << 20, 1<<20 - 4<<10, ""},                  // close under it
	} {
		srv := start(t, fakeserver.Options{MaxRequests: 2, Reply: func(fakeserver.Call) fakeserver.Reply {
			return fakeserver.Reply{Text: "big", Pad: tc.pad}
		}})
		m, err := build(srv.URL, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		resp, err := m.Complete(context.Background(), model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}}})
		runtime.ReadMemStats(&after)
		limit := tc.limit
		if limit == 0 {
			limit = model.DefaultMaxReply
		}
		if tc.want == "" {
			if err != nil || int64(len(resp.Text)) != 3+tc.pad {
				t.Errorf("cap %d, reply of %d: %d bytes, %v; want it whole", tc.limit, tc.pad, len(resp.Text), err)
			}
			continue
		}
		var apiErr *model.APIError
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "model "+m.Name()+":") ||
			!strings.Contains(err.Error(), "--max-reply") || strings.Contains(err.Error(), "\n") ||
			!errors.As(err, &apiErr) || apiErr.Retryable {
			t.Errorf("cap %d, reply of %d: %v; want one non-retryable line naming the model and %q", tc.limit, tc.pad, err, tc.want)
		}
		// What the server got rid of includes what the sockets buffer; the
		// client read no more than the cap. Allocation: wire.Client's
		// io.ReadAll doubles its buffer up to the cap.
		sent, alloc := srv.Padded(), after.TotalAlloc-before.TotalAlloc
		t.Logf("cap %d, reply of %d: the server sent %d bytes, %d allocated", limit, tc.pad, sent, alloc)
		if sent > limit+16<<20 {
			t.Errorf("cap %d: the server sent %d bytes of a %d-byte reply: the client read on past the cap", tc.limit, sent, tc.pad)
		}
		if alloc > uint64(4*limit) && !raceEnabled {
			t.Errorf("cap %d: %d bytes allocated for the reply", tc.limit, alloc)
		}
	}
}

// CheckToolCalls sends a tool-calling conversation (a tool offered, an
// assistant turn with two calls, their two results) and checks that the
// server received each part on its own wire format, and that the calls the
// server answers come back as Response.ToolCalls with their arguments.
func CheckToolCalls(t *testing.T, start func(*testing.T, fakeserver.Options) *fakeserver.Server, build func(url string) (model.Model, error)) {
	t.Helper()
	srv := start(t, fakeserver.Options{Reply: func(fakeserver.Call) fakeserver.Reply {
		return fakeserver.Reply{ToolCalls: []fakeserver.ToolCall{{ID: "call_9", Name: "python", Arguments: `{"code":"print(1+1)"}`}}}
	}})
	m, err := build(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	req := model.Request{
		Messages: []model.Message{
			{Role: "user", Content: "How many rows?"},
			{Role: "assistant", Content: "Let me look.", ToolCalls: []model.ToolCall{
				{ID: "call_1", Name: "python", Arguments: `{"code":"import pandas as pd"}`},
				{ID: "call_2", Name: "python", Arguments: `{"code":"len(pd.read_csv('t.csv'))"}`},
			}},
			{Role: "tool", ToolCallID: "call_1", Content: ""},
			{Role: "tool", ToolCallID: "call_2", Content: "42"},
		},
		Settings: model.Settings{MaxTokens: 50},
		Tools:    []model.Tool{{Name: "python", Description: "run code", Parameters: []byte(`{"type":"object","properties":{"code":{"type":"string"}},"required":["code"]}`)}},
	}
	resp, err := m.Complete(context.Background(), req)
	if err != nil {
		t.Fatal(err)
	}
	want := []model.ToolCall{{ID: "call_9", Name: "python", Arguments: `{"code":"print(1+1)"}`}}
	if len(resp.ToolCalls) != 1 || resp.ToolCalls[0] != want[0] {
		t.Errorf("tool calls = %+v, want %+v", resp.ToolCalls, want)
	}
	calls := srv.Calls()
	if len(calls) != 1 {
		t.Fatalf("server saw %d calls, want 1", len(calls))
	}
	c := calls[0]
	if strings.Join(c.Tools, ",") != "python" {
		t.Errorf("tools offered = %q, want [python]", c.Tools)
	}
	var got []string
	for _, msg := range c.Messages {
		line := msg.Role + ":" + msg.Text
		for _, tc := range msg.ToolCalls {
			line += " call(" + tc.ID + "," + tc.Name + "," + tc.Arguments + ")"
		}
		if msg.ToolCallID != "" {
			line += " for " + msg.ToolCallID
		}
		got = append(got, line)
	}
	wantMsgs := []string{
		"user:How many rows?",
		`assistant:Let me look. call(call_1,python,{"code":"import pandas as pd"}) call(call_2,python,{"code":"len(pd.read_csv('t.csv'))"})`,
		"tool: for call_1",
		"tool:42 for call_2",
	}
	if strings.Join(got, "\n") != strings.Join(wantMsgs, "\n") {
		t.Errorf("server received:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(wantMsgs, "\n"))
	}
}

// RefusesBadRequest checks that m refuses a request no provider can send
// (model.Request.Check) before any call: its error is Check's, not a
// transport error from the closed port m is pointed at.
func RefusesBadRequest(t *testing.T, m model.Model) {
	t.Helper()
	bad := model.Request{Messages: []model.Message{{Role: "user", Content: "hi"}, {Role: "tool", Content: "4"}}}
	_, err := m.Complete(context.Background(), bad)
	if err == nil || !strings.Contains(err.Error(), "message 1: a tool result without the id of its call") {
		t.Errorf("%s: %v, want the request refused before any call", m.Name(), err)
	}
}
