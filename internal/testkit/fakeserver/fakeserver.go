// Package fakeserver runs in-process fake model servers for tests: one that
// speaks the OpenAI chat-completions API (NewOpenAI) and one that speaks the
// Anthropic messages API (NewAnthropic). Both listen on 127.0.0.1 only, record
// every request (messages, system text, settings, images, headers) for
// assertions, reply from a script, and inject faults on demand: 429 with
// Retry-After, 500, connection resets, hangs past the client's timeout, and
// malformed JSON; Options.Slots makes one refuse (429) what exceeds a
// concurrency limit, as a provider does. They are bounded: after
// Options.MaxRequests calls they answer 503, and they shut down by
// themselves when the test ends.
//
// Typical use:
//
//	srv := fakeserver.NewOpenAI(t, fakeserver.Options{
//		Reply: func(c fakeserver.Call) fakeserver.Reply {
//			return fakeserver.Reply{Text: "B"}
//		},
//		FaultRate: 0.2, // 20% of calls fail
//		Faults:    []fakeserver.Fault{fakeserver.RateLimit, fakeserver.Reset},
//	})
//	m, _ := providers.New("openai/gpt-4o", model.Options{BaseURL: srv.URL, APIKey: "test-key"})
//	... run ...
//	calls := srv.Calls() // what the client sent, in arrival order
//
// Options.Reply can script each answer from the call (see Fixed, FailFirst
// and FailEachFirst for common scripts); Call.Fault records which calls got
// an injected fault, so a test can count the retries it caused.
//
// srv.URL is the base URL a client is given: for the OpenAI fake it ends in
// "/v1" (clients append "/chat/completions"); for the Anthropic fake it is the
// server root (the client appends "/v1/messages").
package fakeserver

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"testing"
	"time"
)

// Fault is a failure the server can inject instead of a normal reply.
type Fault int

const (
	// NoFault answers normally.
	NoFault Fault = iota
	// RateLimit answers 429 with a Retry-After header (Options.RetryAfter).
	RateLimit
	// ServerError answers 500 with a JSON error body.
	ServerError
	// Reset hijacks the connection and closes it with a TCP reset, so the
	// client sees a transport error and no HTTP status.
	Reset
	// Timeout holds the request without answering until the client gives up
	// (its context or timeout ends), Options.Hang passes, or the test ends.
	Timeout
	// MalformedJSON answers 200 with a truncated JSON body.
	MalformedJSON
)

// String names the fault for test messages.
func (f Fault) String() string {
	switch f {
	case NoFault:
		return "none"
	case RateLimit:
		return "rate-limit"
	case ServerError:
		return "server-error"
	case Reset:
		return "reset"
	case Timeout:
		return "timeout"
	case MalformedJSON:
		return "malformed-json"
	}
	return "fault(" + strconv.Itoa(int(f)) + ")"
}

// Image is an image the client attached to a message, decoded from base64.
type Image struct {
	MediaType string
	Data      []byte
}

// Message is one chat turn as the server received it. Text joins the turn's
// text parts with "\n".
type Message struct {
	Role   string
	Text   string
	Images []Image
	// ToolCalls are the calls an assistant turn made (both APIs).
	ToolCalls []ToolCall
	// ToolCallID is the call a tool result answers. Anthropic's tool_result
	// blocks are decoded as one Message of Role "tool" each, as OpenAI
	// sends them, so tests read both APIs alike.
	ToolCallID string
	// Thinking are the thinking blocks (Anthropic) or reasoning items (the
	// Responses API) an assistant turn sent back.
	Thinking []Thinking
}

// ToolCall is a tool call in a request's history or in a Reply.
type ToolCall struct {
	ID        string
	Name      string
	Arguments string // JSON text
}

// Settings are the generation settings the client sent; nil or empty means
// the field was absent from the request body.
type Settings struct {
	Temperature         *float64
	TopP                *float64
	MaxTokens           *int // "max_tokens" (both APIs)
	MaxCompletionTokens *int // "max_completion_tokens" (OpenAI only)
	Seed                *int64
	Stop                []string // "stop" (OpenAI) or "stop_sequences" (Anthropic)
	ReasoningEffort     string   // "reasoning_effort" (OpenAI-compatible)
}

// Call is one request the server received.
type Call struct {
	N        int // 1-based arrival number
	Path     string
	Header   http.Header // a copy of the request headers, Authorization included
	Model    string
	System   string // OpenAI: the system messages' text; Anthropic: the system field
	Messages []Message
	Settings Settings
	Tools    []string // names of the tools offered
	// ThinkingBudget is Anthropic's thinking.budget_tokens; 0 when
	// thinking is not enabled.
	ThinkingBudget int
	// Format is the structured output asked for; the zero Format when
	// none.
	Format Format
	// CacheMarks are the cache_control breakpoints of an Anthropic
	// request, in order (checked as the API checks them).
	CacheMarks []CacheMark
	Body       map[string]any // the decoded JSON body, for fields not lifted above

	// Fault is the fault injected into this call's answer, NoFault if none.
	// The Call passed to Options.Reply does not have it yet.
	Fault Fault
}

// LastUserText returns the text of the last user message, or "".
func (c Call) LastUserText() string {
	for i := len(c.Messages) - 1; i >= 0; i-- {
		if c.Messages[i].Role == "user" {
			return c.Messages[i].Text
		}
	}
	return ""
}

// Reply is what the server answers to one call. The zero Reply answers
// "fake reply" with the default usage.
type Reply struct {
	Text         string
	InputTokens  int // 0 means Options.InputTokens
	OutputTokens int // 0 means Options.OutputTokens
	Model        string
	// ToolCalls, when set, are answered as the model's tool calls (with
	// Text, if any, beside them).
	ToolCalls []ToolCall
	// FinishReason, when set, is the reply's finish_reason ("length"), or
	// Anthropic's stop_reason; else "stop" (or "tool_calls"), "end_turn".
	FinishReason string
	// NoContent answers no text at all: OpenAI's "content": null,
	// Anthropic's "content": [] (Text is ignored).
	NoContent bool
	// Refusal, when set, is OpenAI's message refusal, with content null.
	Refusal string
	// Reasoning, when set, is returned beside the answer as the message's
	// ReasoningField member: "reasoning_content" (DeepSeek, vLLM,
	// llama.cpp; the default) or "reasoning" (ollama, OpenRouter).
	Reasoning      string
	ReasoningField string
	// ReasoningTokens, when above 0, is OpenAI's
	// usage.completion_tokens_details.reasoning_tokens (the Responses
	// API's output_tokens_details.reasoning_tokens).
	ReasoningTokens int
	// CacheReadTokens and CacheWriteTokens are the parts of InputTokens
	// read from and written to the prompt cache, reported as each API
	// reports them: OpenAI's cached_tokens (chat's
	// usage.prompt_tokens_details, the Responses API's
	// usage.input_tokens_details) inside prompt_tokens or input_tokens
	// (a write is not reported); Anthropic's cache_read_input_tokens and
	// cache_creation_input_tokens beside an input_tokens that leaves them
	// out.
	CacheReadTokens, CacheWriteTokens int
	// Thoughts are answered before the text: Anthropic's thinking and
	// redacted_thinking blocks, signed, or the Responses API's reasoning
	// items, encrypted (see Thought).
	Thoughts []Thought

	// Fault, when set, replaces the answer with the injected failure.
	Fault Fault

	// Status, when not 0 or 200, answers an API error with this status and
	// Message in the provider's error format (Fault takes precedence).
	Status     int
	Message    string
	RetryAfter string // Retry-After header value for a Status reply, if any

	// RawBody, when set with Status, is sent as is instead of a JSON error
	// (a proxy's HTML page, a plain-text echo, ...), or with Status 200
	// instead of the answer.
	RawBody string

	// Pad, when above 0, makes the answer's text Pad bytes of "x" (after
	// Text), streamed from a small buffer without a Content-Length: a
	// reply past a client's cap, which the server never holds whole. It
	// stops when the client hangs up; Server.Padded counts what was sent.
	Pad int64
}

// Options configure a fake server. The zero value is a working server that
// answers "fake reply" at once.
type Options struct {
	// Reply scripts the answer to each call; nil answers Reply{}. It is
	// called concurrently and must be safe for that.
	Reply func(Call) Reply

	// Latency is waited before each answer (and before injected faults).
	Latency time.Duration

	// InputTokens and OutputTokens are the usage reported when a Reply does
	// not set its own; defaults 10 and 5.
	InputTokens, OutputTokens int

	// FaultRate is the share of calls (0..1) that fail with one of Faults,
	// chosen by a random source seeded with Seed, so a run is reproducible
	// for a given arrival order. Faults defaults to {ServerError}.
	FaultRate float64
	Faults    []Fault
	Seed      uint64

	// RetryAfter is the Retry-After sent with RateLimit faults; default 1s.
	// It is sent in whole seconds, rounded up.
	RetryAfter time.Duration

	// Hang bounds how long a Timeout fault holds a request; default 30s.
	Hang time.Duration

	// MaxRequests bounds the server: later calls are answered 503 without
	// being scripted or recorded. Default 1000.
	MaxRequests int

	// Slots, when above 0, is how many requests the server serves at
	// once, as a provider's concurrency limit: a request arriving while
	// every slot is taken is answered 429 at once, without a Retry-After,
	// and is not scripted or recorded (Busy counts them).
	Slots int

	// Unrecorded keeps no call (Calls returns none), so a benchmark of
	// a million requests measures its client, not the server's record.
	Unrecorded bool
}

// Server is a running fake server. Its methods are safe for concurrent use.
type Server struct {
	// URL is the base URL to give a client (see the package doc).
	URL string

	opt     Options
	dialect dialect
	srv     *httptest.Server
	done    chan struct{}

	mu          sync.Mutex
	calls       []Call
	count       int // calls received, refused ones included
	rng         *rand.Rand
	inFlight    int
	maxInFlight int
	serving     int // requests holding one of Options.Slots
	busy        int // requests refused for want of a slot
	padded      int64
}

// dialect is what differs between the OpenAI and the Anthropic fake.
type dialect struct {
	name    string
	path    string                                   // the one endpoint served
	decode  func(body map[string]any, c *Call) error // lifts the body into c
	answer  func(c Call, r Reply) any                // a success body
	errBody func(status int, message string) any     // an error body
	baseURL func(root string) string
}

func newServer(t testing.TB, opt Options, d dialect) *Server {
	t.Helper()
	if opt.InputTokens == 0 {
		opt.InputTokens = 10
	}
	if opt.OutputTokens == 0 {
		opt.OutputTokens = 5
	}
	if len(opt.Faults) == 0 {
		opt.Faults = []Fault{ServerError}
	}
	if opt.RetryAfter <= 0 {
		opt.RetryAfter = time.Second
	}
	if opt.Hang <= 0 {
		opt.Hang = 30 * time.Second
	}
	if opt.MaxRequests <= 0 {
		opt.MaxRequests = 1000
	}
	s := &Server{
		opt:     opt,
		dialect: d,
		done:    make(chan struct{}),
		rng:     rand.New(rand.NewPCG(opt.Seed, 0x5eed)),
	}
	// httptest.NewServer listens on 127.0.0.1 (or ::1), never a public address.
	s.srv = httptest.NewServer(http.HandlerFunc(s.handle))
	s.URL = d.baseURL(s.srv.URL)
	t.Cleanup(s.Close)
	return s
}

// Close stops the server: pending hangs and latencies end at once. It is
// called by t.Cleanup and may be called earlier; calling it twice is fine.
func (s *Server) Close() {
	s.mu.Lock()
	select {
	case <-s.done:
	default:
		close(s.done)
	}
	s.mu.Unlock()
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Calls returns a copy of the calls recorded so far, in arrival order.
// Refused calls (past MaxRequests, or not decodable) are not recorded.
func (s *Server) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

// Count returns how many requests arrived, refused ones included.
func (s *Server) Count() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.count
}

// MaxInFlight returns the largest number of requests the server was handling
// at once, to check a client's concurrency limit.
func (s *Server) MaxInFlight() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.maxInFlight
}

// Padded returns how many bytes of Reply.Pad padding the clients took
// before they hung up (or the whole of it).
func (s *Server) Padded() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.padded
}

// Busy returns how many requests were refused because every one of
// Options.Slots was taken.
func (s *Server) Busy() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.busy
}

func (s *Server) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.count++
	n := s.count
	s.inFlight++
	s.maxInFlight = max(s.maxInFlight, s.inFlight)
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.inFlight--
		s.mu.Unlock()
	}()

	if n > s.opt.MaxRequests {
		s.writeError(w, http.StatusServiceUnavailable, "fakeserver: request limit reached", "")
		return
	}
	if s.opt.Slots > 0 {
		s.mu.Lock()
		full := s.serving >= s.opt.Slots
		if full {
			s.busy++
		} else {
			s.serving++
		}
		s.mu.Unlock()
		if full {
			s.writeError(w, http.StatusTooManyRequests, "fakeserver: every slot is taken", "")
			return
		}
		defer func() {
			s.mu.Lock()
			s.serving--
			s.mu.Unlock()
		}()
	}
	if r.Method != http.MethodPost || r.URL.Path != s.dialect.path {
		s.writeError(w, http.StatusNotFound, "fakeserver: no route "+r.Method+" "+r.URL.Path, "")
		return
	}
	var body map[string]any
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, 64<<20))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		s.writeError(w, http.StatusBadRequest, "fakeserver: bad JSON body: "+err.Error(), "")
		return
	}
	c := Call{N: n, Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	if err := s.dialect.decode(body, &c); err != nil {
		if e, ok := refused(err); ok {
			s.writeError(w, e.Status, e.Message, "")
			return
		}
		s.writeError(w, http.StatusBadRequest, "fakeserver: "+err.Error(), "")
		return
	}
	s.mu.Lock()
	idx := len(s.calls)
	if !s.opt.Unrecorded {
		s.calls = append(s.calls, c)
	}
	injected := NoFault
	if s.opt.FaultRate > 0 && s.rng.Float64() < s.opt.FaultRate {
		injected = s.opt.Faults[s.rng.IntN(len(s.opt.Faults))]
	}
	s.mu.Unlock()

	var rep Reply
	if s.opt.Reply != nil {
		rep = s.opt.Reply(c)
	}
	if rep.Fault == NoFault {
		rep.Fault = injected
	}
	if rep.Fault != NoFault && !s.opt.Unrecorded {
		s.mu.Lock()
		s.calls[idx].Fault = rep.Fault
		s.mu.Unlock()
	}
	if !s.wait(r.Context(), s.opt.Latency) {
		return
	}
	s.answer(w, r, c, rep)
}

// wait sleeps d unless the request or the server ends first; it reports
// whether the full time passed.
func (s *Server) wait(ctx context.Context, d time.Duration) bool {
	if d <= 0 {
		return true
	}
	tm := time.NewTimer(d)
	defer tm.Stop()
	select {
	case <-tm.C:
		return true
	case <-ctx.Done():
	case <-s.done:
	}
	return false
}

func (s *Server) answer(w http.ResponseWriter, r *http.Request, c Call, rep Reply) {
	switch rep.Fault {
	case RateLimit:
		secs := int((s.opt.RetryAfter + time.Second - 1) / time.Second)
		s.writeError(w, http.StatusTooManyRequests, "fakeserver: rate limited", strconv.Itoa(secs))
		return
	case ServerError:
		s.writeError(w, http.StatusInternalServerError, "fakeserver: internal error", "")
		return
	case Reset:
		resetConn(w)
		return
	case Timeout:
		s.wait(r.Context(), s.opt.Hang)
		return // whatever ended the wait, the client has long given up
	case MalformedJSON:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"id": "fake", "choices": [{"message": {"content": "trunc`)
		return
	}
	if rep.RawBody != "" && rep.Status == http.StatusOK {
		// A success status with a body of the test's own (a gateway's
		// error in place of choices).
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, rep.RawBody)
		return
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		if rep.RawBody != "" {
			if rep.RetryAfter != "" {
				w.Header().Set("Retry-After", rep.RetryAfter)
			}
			w.Header().Set("Content-Type", "text/plain")
			w.WriteHeader(rep.Status)
			fmt.Fprint(w, rep.RawBody)
			return
		}
		s.writeError(w, rep.Status, rep.Message, rep.RetryAfter)
		return
	}
	if rep.Text == "" && !rep.NoContent && rep.Refusal == "" {
		rep.Text = "fake reply"
	}
	if rep.InputTokens == 0 {
		rep.InputTokens = s.opt.InputTokens
	}
	if rep.OutputTokens == 0 {
		rep.OutputTokens = s.opt.OutputTokens
	}
	if rep.Model == "" {
		rep.Model = c.Model
	}
	if rep.Pad > 0 {
		s.writePadded(w, r, s.dialect.answer(c, rep), rep.Text, rep.Pad)
		return
	}
	writeJSON(w, http.StatusOK, s.dialect.answer(c, rep))
}

// writePadded writes answer, whose text is text, with pad bytes of "x"
// streamed after the text.
func (s *Server) writePadded(w http.ResponseWriter, r *http.Request, answer any, text string, pad int64) {
	body, _ := json.Marshal(answer)
	quoted, _ := json.Marshal(text)
	at := bytes.Index(body, quoted)
	if at < 0 {
		http.Error(w, "fakeserver: cannot place the padding", http.StatusInternalServerError)
		return
	}
	at += len(quoted) - 1 // before the closing quote
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	if _, err := w.Write(body[:at]); err != nil {
		return
	}
	chunk := bytes.Repeat([]byte("x"), 64<<10)
	for pad > 0 && r.Context().Err() == nil {
		n := int64(len(chunk))
		if pad < n {
			n = pad
		}
		if _, err := w.Write(chunk[:n]); err != nil {
			return
		}
		pad -= n
		s.mu.Lock()
		s.padded += n
		s.mu.Unlock()
	}
	_, _ = w.Write(body[at:])
}

func (s *Server) writeError(w http.ResponseWriter, status int, message, retryAfter string) {
	if retryAfter != "" {
		w.Header().Set("Retry-After", retryAfter)
	}
	writeJSON(w, status, s.dialect.errBody(status, message))
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// resetConn hijacks the connection and closes it with SO_LINGER 0, so the
// client gets a TCP RST ("connection reset by peer") rather than a clean EOF.
func resetConn(w http.ResponseWriter) {
	hj, ok := w.(http.Hijacker)
	if !ok { // only HTTP/2 lacks it, and httptest.NewServer serves HTTP/1.1
		http.Error(w, "fakeserver: cannot hijack to reset", http.StatusInternalServerError)
		return
	}
	conn, _, err := hj.Hijack()
	if err != nil {
		return
	}
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = conn.Close()
}
