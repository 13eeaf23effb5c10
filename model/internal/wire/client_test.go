package wire

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
)

// localServer serves h on 127.0.0.1 for one test, and closes itself after
// a minute whatever the test does.
func localServer(t *testing.T, h http.HandlerFunc) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(h) // httptest listens on 127.0.0.1
	stop := time.AfterFunc(time.Minute, srv.Close)
	t.Cleanup(func() { stop.Stop(); srv.Close() })
	return srv
}

func TestClientURL(t *testing.T) {
	for _, tc := range []struct{ base, path, want string }{
		{"https://api.openai.com/v1", "/chat/completions", "https://api.openai.com/v1/chat/completions"},
		{"https://api.anthropic.com", "/v1/messages", "https://api.anthropic.com/v1/messages"},
		{"https://x.openai.azure.com/openai/v1?api-version=preview", "/responses", "https://x.openai.azure.com/openai/v1/responses?api-version=preview"},
		{"http://127.0.0.1:8080/v1/", "/files/f%2F1/content", "http://127.0.0.1:8080/v1/files/f%252F1/content"},
		{"https://api.openai.com/v1", "/batches?limit=100&after=batch_1", "https://api.openai.com/v1/batches?limit=100&after=batch_1"},
		{"https://x.openai.azure.com/openai/v1?api-version=preview", "/batches?limit=100", "https://x.openai.azure.com/openai/v1/batches?api-version=preview&limit=100"},
	} {
		got, err := (&Client{BaseURL: tc.base}).URL(tc.path)
		if err != nil || got != tc.want {
			t.Errorf("URL(%q, %q) = %q, %v; want %q", tc.base, tc.path, got, err, tc.want)
		}
	}
}

// TestClientCall checks one call end to end: headers and body out, the
// reply decoded, and each kind of failure classified as the providers
// need it.
func TestClientCall(t *testing.T) {
	srv := localServer(t, func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/v1/echo":
			body, _ := io.ReadAll(r.Body)
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"auth":"`+r.Header.Get("Authorization")+`","type":"`+r.Header.Get("Content-Type")+`","body":`+string(body)+`}`)
		case "/v1/limited":
			w.Header().Set("Retry-After", "7")
			w.WriteHeader(http.StatusTooManyRequests)
			io.WriteString(w, `{"error":{"type":"rate_limit_error","message":"slow down, sk-secret"}}`)
		case "/v1/big":
			io.WriteString(w, `{"text":"`+strings.Repeat("x", 4096)+`"}`)
		case "/v1/garbled":
			io.WriteString(w, `{"text":`)
		case "/v1/slow":
			select {
			case <-r.Context().Done():
			case <-time.After(5 * time.Second):
			}
		case "/v1/upload":
			if err := r.ParseMultipartForm(1 << 20); err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			f, h, err := r.FormFile("file")
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			data, _ := io.ReadAll(f)
			io.WriteString(w, `{"purpose":"`+r.FormValue("purpose")+`","name":"`+h.Filename+`","type":"`+h.Header.Get("Content-Type")+`","size":`+strconv.Itoa(len(data))+`}`)
		default:
			http.NotFound(w, r)
		}
	})
	c := &Client{HTTP: srv.Client(), BaseURL: srv.URL + "/v1", Header: http.Header{"Authorization": {"Bearer sk-secret"}},
		Provider: "test", Key: "sk-secret", Timeout: 2 * time.Second, MaxReply: 1024}
	ctx := context.Background()

	var echo struct {
		Auth, Type string
		Body       struct{ N int }
	}
	if err := c.Post(ctx, "/echo", map[string]int{"n": 3}, &echo); err != nil {
		t.Fatal(err)
	}
	if echo.Auth != "Bearer sk-secret" || echo.Type != "application/json" || echo.Body.N != 3 {
		t.Errorf("echo = %+v", echo)
	}

	var up struct {
		Purpose, Name, Type string
		Size                int
	}
	if err := c.Upload(ctx, "/upload", map[string]string{"purpose": "batch"}, "file", "b.jsonl", "application/jsonl", []byte("{}\n{}\n"), &up); err != nil {
		t.Fatal(err)
	}
	if up.Purpose != "batch" || up.Name != "b.jsonl" || up.Type != "application/jsonl" || up.Size != 6 {
		t.Errorf("upload = %+v", up)
	}

	for _, tc := range []struct {
		path                      string
		status                    int
		retryable, timeout, fatal bool
		retryAfter                time.Duration
		in                        string
	}{
		{path: "/limited", status: 429, retryable: true, retryAfter: 7 * time.Second, in: "rate_limit_error: slow down, [redacted]"},
		{path: "/big", in: "reply larger than 1 KiB"},
		{path: "/garbled", retryable: true, in: "malformed reply"},
		{path: "/missing", status: 404, in: "Not Found"},
	} {
		err := c.Get(ctx, tc.path, &struct{}{})
		var ae *model.APIError
		if !errors.As(err, &ae) {
			t.Errorf("%s: %v, want an *APIError", tc.path, err)
			continue
		}
		if ae.Status != tc.status || ae.Retryable != tc.retryable || ae.Timeout != tc.timeout || ae.RetryAfter != tc.retryAfter ||
			!strings.Contains(ae.Message, tc.in) || strings.Contains(err.Error(), "sk-secret") {
			t.Errorf("%s: %+v", tc.path, ae)
		}
	}

	short := *c
	short.Timeout = 100 * time.Millisecond
	var ae *model.APIError
	if err := short.Get(ctx, "/slow", nil); !errors.As(err, &ae) || !ae.Timeout || !ae.Retryable {
		t.Errorf("slow: %v, want a retryable timeout", err)
	}
	if _, err := short.Open(ctx, "/slow"); !errors.As(err, &ae) || !ae.Timeout {
		t.Errorf("open slow: %v, want a timeout", err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	if err := c.Get(cancelled, "/echo", nil); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: %v, want context.Canceled", err)
	}

	// Open streams past MaxReply: a results file is read a line at a time.
	body, err := c.Open(ctx, "/big")
	if err != nil {
		t.Fatal(err)
	}
	data, err := io.ReadAll(body)
	body.Close()
	if err != nil || len(data) != 4096+len(`{"text":""}`) {
		t.Errorf("open big: %d bytes, %v", len(data), err)
	}
}

// A connection's failure quotes the request's URL with what looks like a
// key in its path redacted (Go's *url.Error quotes it whole).
func TestTransportErrorRedactsURL(t *testing.T) {
	srv := localServer(t, func(http.ResponseWriter, *http.Request) {})
	addr := srv.Listener.Addr().String()
	srv.Close() // nothing listens there now: the connection is refused
	c := &Client{HTTP: &http.Client{}, BaseURL: "http://" + addr + "/sk-abc123def456ghi789jkl/v1", Provider: "p", Timeout: time.Minute}
	err := c.Post(context.Background(), "/chat/completions", map[string]string{}, nil)
	var ae *model.APIError
	if !errors.As(err, &ae) || !ae.Retryable || !strings.Contains(err.Error(), addr+"/[redacted]/v1/chat/completions") || strings.Contains(err.Error(), "sk-abc") {
		t.Errorf("err %v, want a transport error naming the URL, its key redacted", err)
	}
}
