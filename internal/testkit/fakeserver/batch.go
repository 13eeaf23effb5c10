package fakeserver

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// BatchOptions configure a fake batch server. The zero value answers every
// request "fake reply" and ends each batch at its first poll.
type BatchOptions struct {
	// Reply answers each request of a batch, decoded as the live fake
	// decodes it (Call.Path is the batch's endpoint). A Reply with Status
	// becomes that request's error; Fault is ignored. Called from one
	// goroutine at a time.
	Reply func(Call) Reply
	// Polls is how many status requests a batch answers as in progress
	// before it ends; default 1.
	Polls int
	// Expire, when set, says which requests the batch did not reach in its
	// window: the batch ends "expired" (OpenAI) and those requests are
	// reported expired. Called with the batch's number (1-based, in
	// creation order) and the request's custom_id.
	Expire func(batch int, customID string) bool
	// FailBatch, when it returns a message, fails batch n (1-based) as a
	// whole, as a validation failure would; it is charged nothing.
	FailBatch func(n int) string
	// MaxBatchRequests refuses a batch of more requests with 400; default
	// the provider's limit.
	MaxBatchRequests int
	// NoBatchAPI answers every batch route 404, as a server without one.
	NoBatchAPI bool
	// OnCreate, when set, is called when a batch has been created, before
	// the reply is sent (a test kills its client there). OnRequest is
	// called before any route is served, with the method and path; when it
	// returns true the request is dropped unserved, as one that never
	// reached the server.
	OnCreate  func(batchID string)
	OnRequest func(method, path string) (drop bool)
	// MaxRequests bounds the HTTP requests served; later ones get 503.
	// Default 10000.
	MaxRequests int
	// InputTokens and OutputTokens are the usage of a Reply that sets none;
	// defaults 10 and 5.
	InputTokens, OutputTokens int
}

// BatchServer is a running fake batch server, for one provider.
type BatchServer struct {
	// URL is the base URL to give a client: ".../v1" for OpenAI, the
	// server root for Anthropic.
	URL string

	openai bool
	opt    BatchOptions
	srv    *httptest.Server

	mu        sync.Mutex
	requests  int
	files     map[string][]byte
	batches   map[string]*fakeBatch
	order     []string // batch ids in creation order
	calls     []Call   // requests answered, over every batch
	liveCalls []Call   // live requests answered
}

// fakeBatch is one batch the fake holds.
type fakeBatch struct {
	id, inputFile, endpoint string
	n                       int // creation order, 1-based
	metadata                map[string]string
	lines                   [][]byte // the requests
	created                 int64
	polls                   int
	status                  string
	failMsg                 string
	outputFile, errorFile   string
	completed, failed       int
	results                 []byte // Anthropic's results JSONL
	counts                  map[string]int
}

// NewOpenAIBatch starts a fake OpenAI server serving the Files and
// Batches APIs (/v1/files, /v1/files/{id}/content, /v1/batches,
// /v1/batches/{id}) on 127.0.0.1, and live chat completions by the same
// script (a batch run's fallback); it stops when t ends.
func NewOpenAIBatch(t testing.TB, opt BatchOptions) *BatchServer {
	return newBatchServer(t, opt, true)
}

// NewAnthropicBatch starts a fake Anthropic server serving Message
// Batches (/v1/messages/batches, /v1/messages/batches/{id} and its
// /results) on 127.0.0.1, and live messages by the same script; it stops
// when t ends.
func NewAnthropicBatch(t testing.TB, opt BatchOptions) *BatchServer {
	return newBatchServer(t, opt, false)
}

func newBatchServer(t testing.TB, opt BatchOptions, isOpenAI bool) *BatchServer {
	t.Helper()
	if opt.Polls <= 0 {
		opt.Polls = 1
	}
	if opt.MaxRequests <= 0 {
		opt.MaxRequests = 10000
	}
	if opt.InputTokens == 0 {
		opt.InputTokens = 10
	}
	if opt.OutputTokens == 0 {
		opt.OutputTokens = 5
	}
	if opt.MaxBatchRequests <= 0 {
		opt.MaxBatchRequests = 100_000
		if isOpenAI {
			opt.MaxBatchRequests = 50_000
		}
	}
	s := &BatchServer{openai: isOpenAI, opt: opt, files: map[string][]byte{}, batches: map[string]*fakeBatch{}}
	// Assigned before the server starts, so the handlers' reads of s.srv
	// (the results URL) happen after it.
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.handle))
	s.srv.Start()
	s.URL = s.srv.URL
	if isOpenAI {
		s.URL += "/v1"
	}
	t.Cleanup(s.Close)
	return s
}

// Close stops the server; calling it twice is fine.
func (s *BatchServer) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// Submitted returns how many requests the batches created so far hold:
// what a run paid for.
func (s *BatchServer) Submitted() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := 0
	for _, b := range s.batches {
		if b.failMsg == "" {
			n += len(b.lines)
		}
	}
	return n
}

// SubmittedIDs counts, per custom_id, the batches (not failed) that held it.
func (s *BatchServer) SubmittedIDs() map[string]int {
	s.mu.Lock()
	defer s.mu.Unlock()
	ids := map[string]int{}
	for _, b := range s.batches {
		if b.failMsg != "" {
			continue
		}
		for _, l := range b.lines {
			ids[customID(l)]++
		}
	}
	return ids
}

// Batches returns how many batches were created.
func (s *BatchServer) Batches() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.batches)
}

// Calls returns the requests answered so far, over every batch.
func (s *BatchServer) Calls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.calls...)
}

func customID(line []byte) string {
	var l struct {
		CustomID string `json:"custom_id"`
	}
	_ = json.Unmarshal(line, &l)
	return l.CustomID
}

func (s *BatchServer) handle(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.requests++
	over := s.requests > s.opt.MaxRequests
	s.mu.Unlock()
	errBody := errorOpenAI
	if !s.openai {
		errBody = errorAnthropic
	}
	fail := func(status int, msg string) { writeJSON(w, status, errBody(status, msg)) }
	if over {
		fail(http.StatusServiceUnavailable, "fakeserver: request limit reached")
		return
	}
	if s.opt.OnRequest != nil && s.opt.OnRequest(r.Method, r.URL.Path) {
		resetConn(w)
		return
	}
	if s.opt.NoBatchAPI {
		fail(http.StatusNotFound, "fakeserver: no route "+r.Method+" "+r.URL.Path)
		return
	}
	path := r.URL.Path
	var status int
	var body any
	var raw []byte
	var msg string
	switch {
	case s.openai && r.Method == http.MethodPost && path == "/v1/files":
		status, body, msg = s.upload(r)
	case s.openai && r.Method == http.MethodGet && strings.HasPrefix(path, "/v1/files/") && strings.HasSuffix(path, "/content"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/v1/files/"), "/content")
		s.mu.Lock()
		data, ok := s.files[id]
		s.mu.Unlock()
		if !ok {
			status, msg = http.StatusNotFound, "no such file "+id
		} else {
			status, raw = http.StatusOK, data
		}
	case s.openai && r.Method == http.MethodPost && path == "/v1/batches",
		!s.openai && r.Method == http.MethodPost && path == "/v1/messages/batches":
		status, body, msg = s.create(r)
	case s.openai && r.Method == http.MethodGet && path == "/v1/batches":
		status, body = s.list(r)
	case s.openai && r.Method == http.MethodGet && strings.HasPrefix(path, "/v1/batches/"):
		status, body, msg = s.get(strings.TrimPrefix(path, "/v1/batches/"))
	case !s.openai && r.Method == http.MethodGet && strings.HasPrefix(path, "/v1/messages/batches/") && strings.HasSuffix(path, "/results"):
		id := strings.TrimSuffix(strings.TrimPrefix(path, "/v1/messages/batches/"), "/results")
		s.mu.Lock()
		b, ok := s.batches[id]
		if ok && b.status == "ended" {
			status, raw = http.StatusOK, b.results
		} else {
			status, msg = http.StatusNotFound, "no results for batch "+id
		}
		s.mu.Unlock()
	case !s.openai && r.Method == http.MethodGet && strings.HasPrefix(path, "/v1/messages/batches/"):
		status, body, msg = s.get(strings.TrimPrefix(path, "/v1/messages/batches/"))
	case s.openai && r.Method == http.MethodPost && (path == "/v1/chat/completions" || path == "/v1/responses"),
		!s.openai && r.Method == http.MethodPost && path == "/v1/messages":
		status, body, msg = s.live(r)
	default:
		status, msg = http.StatusNotFound, "fakeserver: no route "+r.Method+" "+path
	}
	switch {
	case status != http.StatusOK:
		fail(status, msg)
	case raw != nil:
		w.Header().Set("Content-Type", "application/jsonl")
		_, _ = w.Write(raw)
	default:
		writeJSON(w, status, body)
	}
}

// live answers a live request (a batch run's fallback) by the same script.
func (s *BatchServer) live(r *http.Request) (int, any, string) {
	var body map[string]any
	dec := json.NewDecoder(io.LimitReader(r.Body, 64<<20))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		return http.StatusBadRequest, nil, "bad JSON body: " + err.Error()
	}
	c := Call{Path: r.URL.Path, Header: r.Header.Clone(), Body: body}
	decode, answer := s.dialect(r.URL.Path)
	if err := decode(body, &c); err != nil {
		return http.StatusBadRequest, nil, err.Error()
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.liveCalls = append(s.liveCalls, c)
	c.N = len(s.liveCalls)
	var rep Reply
	if s.opt.Reply != nil {
		rep = s.opt.Reply(c)
	}
	if rep.Status != 0 && rep.Status != http.StatusOK {
		return rep.Status, nil, rep.Message
	}
	s.defaults(&rep, c)
	return http.StatusOK, answer(c, rep), ""
}

// LiveCalls returns the live requests answered (a batch run's fallback).
func (s *BatchServer) LiveCalls() []Call {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Call(nil), s.liveCalls...)
}

// defaults fills in what a Reply leaves unset.
func (s *BatchServer) defaults(rep *Reply, c Call) {
	if rep.Text == "" {
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
}

// upload stores a multipart file of purpose batch.
func (s *BatchServer) upload(r *http.Request) (int, any, string) {
	if err := r.ParseMultipartForm(32 << 20); err != nil {
		return http.StatusBadRequest, nil, "bad multipart body: " + err.Error()
	}
	if p := r.FormValue("purpose"); p != "batch" {
		return http.StatusBadRequest, nil, fmt.Sprintf("purpose %q: want batch", p)
	}
	f, hdr, err := r.FormFile("file")
	if err != nil {
		return http.StatusBadRequest, nil, "no file: " + err.Error()
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, 256<<20))
	if err != nil {
		return http.StatusBadRequest, nil, err.Error()
	}
	s.mu.Lock()
	id := fmt.Sprintf("file-fake-%d", len(s.files)+1)
	s.files[id] = data
	s.mu.Unlock()
	return http.StatusOK, map[string]any{"id": id, "object": "file", "bytes": len(data), "created_at": time.Now().Unix(),
		"filename": hdr.Filename, "purpose": "batch", "status": "uploaded"}, ""
}

// create makes a batch of an uploaded file (OpenAI) or of the body's
// requests (Anthropic).
func (s *BatchServer) create(r *http.Request) (int, any, string) {
	data, err := io.ReadAll(io.LimitReader(r.Body, 300<<20))
	if err != nil {
		return http.StatusBadRequest, nil, err.Error()
	}
	b := &fakeBatch{created: time.Now().Unix(), counts: map[string]int{}}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.openai {
		var req struct {
			InputFileID      string            `json:"input_file_id"`
			Endpoint         string            `json:"endpoint"`
			CompletionWindow string            `json:"completion_window"`
			Metadata         map[string]string `json:"metadata"`
		}
		if err := json.Unmarshal(data, &req); err != nil {
			return http.StatusBadRequest, nil, "bad JSON body: " + err.Error()
		}
		file, ok := s.files[req.InputFileID]
		if !ok {
			return http.StatusBadRequest, nil, "no such input file " + req.InputFileID
		}
		if req.CompletionWindow != "24h" || (req.Endpoint != "/v1/chat/completions" && req.Endpoint != "/v1/responses") {
			return http.StatusBadRequest, nil, "want completion_window 24h and endpoint /v1/chat/completions or /v1/responses"
		}
		b.inputFile, b.endpoint, b.metadata = req.InputFileID, req.Endpoint, req.Metadata
		for _, l := range bytes.Split(file, []byte("\n")) {
			if len(bytes.TrimSpace(l)) > 0 {
				b.lines = append(b.lines, l)
			}
		}
	} else {
		var req struct {
			Requests []json.RawMessage `json:"requests"`
		}
		if err := json.Unmarshal(data, &req); err != nil {
			return http.StatusBadRequest, nil, "bad JSON body: " + err.Error()
		}
		b.endpoint = "/v1/messages"
		for _, l := range req.Requests {
			b.lines = append(b.lines, l)
		}
	}
	if len(b.lines) == 0 {
		return http.StatusBadRequest, nil, "a batch needs requests"
	}
	if len(b.lines) > s.opt.MaxBatchRequests {
		return http.StatusBadRequest, nil, fmt.Sprintf("%d requests in one batch; at most %d", len(b.lines), s.opt.MaxBatchRequests)
	}
	seen := map[string]bool{}
	for i, l := range b.lines {
		id := customID(l)
		if id == "" || seen[id] {
			return http.StatusBadRequest, nil, fmt.Sprintf("request %d: custom_id %q missing or repeated", i, id)
		}
		seen[id] = true
	}
	b.n = len(s.order) + 1
	b.id = fmt.Sprintf("batch_fake_%d", b.n)
	if !s.openai {
		b.id = fmt.Sprintf("msgbatch_fake_%d", b.n)
	}
	b.status = "validating"
	if !s.openai {
		b.status = "in_progress"
	}
	if s.opt.FailBatch != nil {
		if m := s.opt.FailBatch(b.n); m != "" {
			b.failMsg, b.status = m, "failed"
		}
	}
	s.batches[b.id] = b
	s.order = append(s.order, b.id)
	if s.opt.OnCreate != nil {
		s.mu.Unlock()
		s.opt.OnCreate(b.id)
		s.mu.Lock()
	}
	return http.StatusOK, s.view(b), ""
}

// get answers a batch's status; a batch ends at its Polls-th poll.
func (s *BatchServer) get(id string) (int, any, string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, ok := s.batches[id]
	if !ok {
		return http.StatusNotFound, nil, "no such batch " + id
	}
	if b.failMsg == "" && b.status != "completed" && b.status != "expired" && b.status != "ended" {
		b.polls++
		b.status = "in_progress"
		if b.polls >= s.opt.Polls {
			s.finish(b)
		}
	}
	return http.StatusOK, s.view(b), ""
}

// list pages the OpenAI batches, newest first.
func (s *BatchServer) list(r *http.Request) (int, any) {
	s.mu.Lock()
	defer s.mu.Unlock()
	limit, _ := strconv.Atoi(r.URL.Query().Get("limit"))
	if limit <= 0 || limit > 100 {
		limit = 20
	}
	after := r.URL.Query().Get("after")
	var ids []string
	for i := len(s.order) - 1; i >= 0; i-- {
		ids = append(ids, s.order[i])
	}
	if after != "" {
		for i, id := range ids {
			if id == after {
				ids = ids[i+1:]
				break
			}
		}
	}
	more := len(ids) > limit
	if more {
		ids = ids[:limit]
	}
	data := []any{}
	for _, id := range ids {
		data = append(data, s.view(s.batches[id]))
	}
	return http.StatusOK, map[string]any{"object": "list", "data": data, "has_more": more}
}

// finish answers every request of a batch, writing its results.
func (s *BatchServer) finish(b *fakeBatch) {
	var out, errs bytes.Buffer
	expired := false
	for _, line := range b.lines {
		id, body, err := s.requestBody(line, b.endpoint)
		c := Call{N: len(s.calls) + 1, Path: b.endpoint, Body: body}
		if err == nil {
			decode, _ := s.dialect(b.endpoint)
			err = decode(body, &c)
		}
		var rep Reply
		switch {
		case err != nil:
			rep = Reply{Status: http.StatusBadRequest, Message: "fakeserver: " + err.Error()}
		case s.opt.Expire != nil && s.opt.Expire(b.n, id):
			expired = true
			s.writeResult(&out, &errs, b, id, c, Reply{}, "expired")
			continue
		default:
			s.calls = append(s.calls, c)
			if s.opt.Reply != nil {
				rep = s.opt.Reply(c)
			}
		}
		s.writeResult(&out, &errs, b, id, c, rep, "")
	}
	if s.openai {
		b.status = "completed"
		if expired {
			b.status = "expired"
		}
		if out.Len() > 0 {
			b.outputFile = fmt.Sprintf("file-fake-out-%d", b.n)
			s.files[b.outputFile] = out.Bytes()
		}
		if errs.Len() > 0 {
			b.errorFile = fmt.Sprintf("file-fake-err-%d", b.n)
			s.files[b.errorFile] = errs.Bytes()
		}
	} else {
		b.status = "ended"
		b.results = out.Bytes()
	}
}

// dialect returns how the fake reads and answers a request of endpoint.
func (s *BatchServer) dialect(endpoint string) (decode func(map[string]any, *Call) error, answer func(Call, Reply) any) {
	switch {
	case !s.openai:
		return decodeAnthropic, answerAnthropic
	case endpoint == "/v1/responses":
		return decodeResponses, answerResponses
	}
	return decodeOpenAI, answerOpenAI
}

// requestBody takes a request line apart; an OpenAI line must name the
// batch's endpoint.
func (s *BatchServer) requestBody(line []byte, endpoint string) (string, map[string]any, error) {
	var l struct {
		CustomID string          `json:"custom_id"`
		URL      string          `json:"url"`    // OpenAI
		Body     json.RawMessage `json:"body"`   // OpenAI
		Params   json.RawMessage `json:"params"` // Anthropic
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return "", nil, err
	}
	if s.openai && l.URL != endpoint {
		return l.CustomID, nil, fmt.Errorf("the line's url %q is not the batch's endpoint %s", l.URL, endpoint)
	}
	raw := l.Body
	if !s.openai {
		raw = l.Params
	}
	var body map[string]any
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	if err := dec.Decode(&body); err != nil {
		return l.CustomID, nil, fmt.Errorf("request body: %v", err)
	}
	return l.CustomID, body, nil
}

// writeResult writes one request's result in the provider's format.
func (s *BatchServer) writeResult(out, errs *bytes.Buffer, b *fakeBatch, id string, c Call, rep Reply, special string) {
	s.defaults(&rep, c)
	failed := special != "" || (rep.Status != 0 && rep.Status != http.StatusOK)
	if failed {
		b.failed++
	} else {
		b.completed++
	}
	enc := func(buf *bytes.Buffer, v any) {
		data, _ := json.Marshal(v)
		buf.Write(data)
		buf.WriteByte('\n')
	}
	if s.openai {
		line := map[string]any{"id": "batch_req_" + id, "custom_id": id, "response": nil, "error": nil}
		switch {
		case special == "expired":
			line["error"] = map[string]any{"code": "batch_expired", "message": "This request could not be executed before the completion window expired."}
			enc(errs, line)
		case failed:
			line["response"] = map[string]any{"status_code": rep.Status, "request_id": "req_" + id, "body": errorOpenAI(rep.Status, rep.Message)}
			enc(errs, line)
		default:
			_, answer := s.dialect(b.endpoint)
			line["response"] = map[string]any{"status_code": 200, "request_id": "req_" + id, "body": answer(c, rep)}
			enc(out, line)
		}
		return
	}
	var result any
	switch {
	case special == "expired":
		b.counts["expired"]++
		result = map[string]any{"type": "expired"}
	case failed:
		b.counts["errored"]++
		result = map[string]any{"type": "errored", "error": errorAnthropic(rep.Status, rep.Message)}
	default:
		result = map[string]any{"type": "succeeded", "message": answerAnthropic(c, rep)}
	}
	enc(out, map[string]any{"custom_id": id, "result": result})
}

// view is a batch as the provider's API shows it.
func (s *BatchServer) view(b *fakeBatch) any {
	if s.openai {
		v := map[string]any{
			"id": b.id, "object": "batch", "endpoint": b.endpoint, "input_file_id": b.inputFile,
			"completion_window": "24h", "status": b.status, "created_at": b.created, "expires_at": b.created + 86400,
			"metadata":       b.metadata,
			"request_counts": map[string]any{"total": len(b.lines), "completed": b.completed, "failed": b.failed},
		}
		if b.outputFile != "" {
			v["output_file_id"] = b.outputFile
		}
		if b.errorFile != "" {
			v["error_file_id"] = b.errorFile
		}
		if b.failMsg != "" {
			v["errors"] = map[string]any{"object": "list", "data": []any{map[string]any{"code": "invalid_request", "message": b.failMsg}}}
		}
		return v
	}
	created := time.Unix(b.created, 0).UTC()
	processing := len(b.lines)
	if b.status == "ended" {
		processing = 0
	}
	v := map[string]any{
		"id": b.id, "type": "message_batch", "processing_status": b.status,
		"created_at": created.Format(time.RFC3339), "expires_at": created.Add(24 * time.Hour).Format(time.RFC3339),
		"request_counts": map[string]any{"processing": processing, "succeeded": b.completed,
			"errored": b.counts["errored"], "canceled": 0, "expired": b.counts["expired"]},
	}
	if b.status == "ended" {
		v["results_url"] = s.srv.URL + "/v1/messages/batches/" + b.id + "/results"
		v["ended_at"] = time.Now().UTC().Format(time.RFC3339)
	}
	return v
}
