package fakeserver

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

const chatBody = `{"model": "m", "messages": [{"role": "system", "content": "sys"},
	{"role": "user", "content": [{"type": "text", "text": "hello"},
	{"type": "image_url", "image_url": {"url": "data:image/png;base64,aGk="}}]}],
	"temperature": 0.5, "max_tokens": 9, "seed": 3, "stop": "END"}`

// post sends body to url and returns the status (0 on a transport error)
// and the response body.
func post(t *testing.T, client *http.Client, url, body string) (int, string, error) {
	t.Helper()
	res, err := client.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		return 0, "", err
	}
	defer res.Body.Close()
	b, err := io.ReadAll(res.Body)
	return res.StatusCode, string(b), err
}

func TestOpenAIRecordsAndAnswers(t *testing.T) {
	srv := NewOpenAI(t, Options{InputTokens: 11, OutputTokens: 4, Reply: func(c Call) Reply {
		return Reply{Text: "echo " + c.LastUserText()}
	}})
	status, body, err := post(t, http.DefaultClient, srv.URL+"/chat/completions", chatBody)
	if err != nil || status != 200 {
		t.Fatalf("status %d, %v: %s", status, err, body)
	}
	var got struct {
		Choices []struct{ Message struct{ Content string } }
		Usage   struct{ PromptTokens, CompletionTokens int } `json:"usage"`
	}
	if err := json.Unmarshal([]byte(body), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Choices) != 1 || got.Choices[0].Message.Content != "echo hello" {
		t.Errorf("reply = %s", body)
	}
	if !strings.Contains(body, `"prompt_tokens":11`) || !strings.Contains(body, `"completion_tokens":4`) {
		t.Errorf("usage not in reply: %s", body)
	}
	c := srv.Calls()[0]
	if c.N != 1 || c.Model != "m" || c.System != "sys" || len(c.Messages) != 2 {
		t.Errorf("call = %+v", c)
	}
	if imgs := c.Messages[1].Images; len(imgs) != 1 || imgs[0].MediaType != "image/png" || string(imgs[0].Data) != "hi" {
		t.Errorf("images = %+v", imgs)
	}
	s := c.Settings
	if *s.Temperature != 0.5 || *s.MaxTokens != 9 || *s.Seed != 3 || len(s.Stop) != 1 || s.Stop[0] != "END" || s.TopP != nil {
		t.Errorf("settings = %+v", s)
	}
}

func TestRefusals(t *testing.T) {
	srv := NewOpenAI(t, Options{MaxRequests: 2})
	anth := NewAnthropic(t, Options{})
	for _, tc := range []struct {
		url, body string
		want      int
	}{
		{srv.URL + "/chat/completions", `{not json`, 400},
		{srv.URL + "/completions", chatBody, 404},
		{srv.URL + "/chat/completions", chatBody, 503},                     // third request: over the limit
		{anth.URL + "/v1/messages", `{"model": "c", "messages": []}`, 400}, // no max_tokens
		{anth.URL + "/v1/messages", `{"model": "c", "max_tokens": 5, "messages": [{"role": "user", "content": [{"type": "video"}]}]}`, 400},
	} {
		status, body, err := post(t, http.DefaultClient, tc.url, tc.body)
		if err != nil || status != tc.want {
			t.Errorf("%s %.30s: status %d, %v, want %d: %s", tc.url, tc.body, status, err, tc.want, body)
		}
	}
	if srv.Count() != 3 || len(srv.Calls()) != 0 {
		t.Errorf("count %d, recorded %d; want 3 and 0", srv.Count(), len(srv.Calls()))
	}
}

func TestFaultRateIsSeededAndShared(t *testing.T) {
	var last *Server
	run := func() []int {
		srv := NewOpenAI(t, Options{FaultRate: 0.3, Faults: []Fault{RateLimit, ServerError}, Seed: 9, RetryAfter: 1500 * time.Millisecond})
		var statuses []int
		for range 200 {
			res, err := http.Post(srv.URL+"/chat/completions", "application/json", strings.NewReader(chatBody))
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode == 429 && res.Header.Get("Retry-After") != "2" {
				t.Errorf("429 with Retry-After %q, want 2 (1.5s rounded up)", res.Header.Get("Retry-After"))
			}
			res.Body.Close()
			statuses = append(statuses, res.StatusCode)
		}
		last = srv
		return statuses
	}
	a, b := run(), run()
	counts := map[int]int{}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("request %d: %d then %d with the same seed", i, a[i], b[i])
		}
		counts[a[i]]++
	}
	failed := counts[429] + counts[500]
	if n := faulted(last); n != failed {
		t.Errorf("Call.Fault marks %d calls, but %d failed", n, failed)
	}
	if failed < 35 || failed > 85 || counts[429] == 0 || counts[500] == 0 {
		t.Errorf("statuses %v: want about 30%% of 200 failing, both kinds", counts)
	}
}

// TestLatencyAndConcurrency: calls wait Latency and run side by side. The
// script holds each call until all four have arrived (or 30 s pass), so
// MaxInFlight is 4 however slowly the machine starts the goroutines; no
// upper bound on the time, which a loaded machine could exceed.
func TestLatencyAndConcurrency(t *testing.T) {
	arrived := make(chan struct{}, 4)
	all := make(chan struct{})
	go func() {
		defer close(all)
		for range 4 {
			select {
			case <-arrived:
			case <-time.After(30 * time.Second):
				return
			}
		}
	}()
	srv := NewAnthropic(t, Options{Latency: 200 * time.Millisecond, Reply: func(Call) Reply {
		arrived <- struct{}{}
		<-all
		return Reply{}
	}})
	body := `{"model": "c", "max_tokens": 5, "system": "s", "messages": [{"role": "user", "content": "hi"}]}`
	begin := time.Now()
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if status, b, err := post(t, http.DefaultClient, srv.URL+"/v1/messages", body); status != 200 || err != nil {
				t.Errorf("status %d, %v: %s", status, err, b)
			}
		})
	}
	wg.Wait()
	if d := time.Since(begin); d < 200*time.Millisecond {
		t.Errorf("calls with 200ms of latency took %v", d)
	}
	if n := srv.MaxInFlight(); n != 4 {
		t.Errorf("MaxInFlight = %d, want 4", n)
	}
	if c := srv.Calls()[0]; c.System != "s" || c.LastUserText() != "hi" {
		t.Errorf("call = %+v", c)
	}
}

// TestSlots: a server of two slots refuses a third request at once with a
// 429 without Retry-After, and serves again once a slot is free.
func TestSlots(t *testing.T) {
	hold := make(chan struct{})
	held := make(chan struct{}, 2)
	srv := NewOpenAI(t, Options{Slots: 2, Reply: func(c Call) Reply {
		if c.N <= 2 {
			held <- struct{}{}
			<-hold
		}
		return Reply{}
	}})
	url := srv.URL + "/chat/completions"
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			if status, b, err := post(t, http.DefaultClient, url, chatBody); status != 200 || err != nil {
				t.Errorf("held call: status %d, %v: %s", status, err, b)
			}
		})
	}
	<-held
	<-held
	res, err := http.Post(url, "application/json", strings.NewReader(chatBody))
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != http.StatusTooManyRequests || res.Header.Get("Retry-After") != "" {
		t.Errorf("third call with two slots taken: %d, Retry-After %q; want 429 without one", res.StatusCode, res.Header.Get("Retry-After"))
	}
	close(hold)
	wg.Wait()
	if status, b, err := post(t, http.DefaultClient, url, chatBody); status != 200 || err != nil {
		t.Errorf("after the slots freed: status %d, %v: %s", status, err, b)
	}
	if srv.Busy() != 1 || len(srv.Calls()) != 3 || srv.Count() != 4 {
		t.Errorf("busy %d, recorded %d, count %d; want 1, 3, 4", srv.Busy(), len(srv.Calls()), srv.Count())
	}
}

func TestResetAndMalformed(t *testing.T) {
	srv := NewOpenAI(t, Options{Reply: func(c Call) Reply {
		return Reply{Fault: []Fault{Reset, MalformedJSON}[c.N-1]}
	}})
	if _, _, err := post(t, http.DefaultClient, srv.URL+"/chat/completions", chatBody); err == nil {
		t.Error("reset: want a transport error")
	}
	status, body, err := post(t, http.DefaultClient, srv.URL+"/chat/completions", chatBody)
	if err != nil || status != 200 || json.Valid([]byte(body)) {
		t.Errorf("malformed: status %d, %v, valid JSON %v", status, err, json.Valid([]byte(body)))
	}
}

func TestCloseEndsHangs(t *testing.T) {
	srv := NewOpenAI(t, Options{Reply: func(Call) Reply { return Reply{Fault: Timeout} }, Hang: time.Minute})
	done := make(chan error, 1)
	go func() {
		_, _, err := post(t, http.DefaultClient, srv.URL+"/chat/completions", chatBody)
		done <- err
	}()
	for deadline := time.Now().Add(time.Minute); srv.Count() == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the request did not arrive in a minute")
		}
	}
	begin := time.Now()
	srv.Close()
	srv.Close() // twice is fine
	// Bounds far below the minute of Hang, far above what a loaded
	// machine takes.
	if d := time.Since(begin); d > 20*time.Second {
		t.Errorf("Close took %v with a request hanging", d)
	}
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("the hanging request did not end when the server closed")
	}
	// A client with a timeout gives up by itself: shown with a fresh server.
	srv2 := NewOpenAI(t, Options{Reply: func(Call) Reply { return Reply{Fault: Timeout} }})
	client := &http.Client{Timeout: 100 * time.Millisecond}
	if _, _, err := post(t, client, srv2.URL+"/chat/completions", chatBody); err == nil {
		t.Error("want the client's timeout")
	}
}

func faulted(s *Server) int {
	n := 0
	for _, c := range s.Calls() {
		if c.Fault != NoFault {
			n++
		}
	}
	return n
}

func TestBatchServerIsBounded(t *testing.T) {
	srv := NewOpenAIBatch(t, BatchOptions{MaxRequests: 1})
	for i, want := range []int{http.StatusNotFound, http.StatusServiceUnavailable} {
		res, err := http.Get(srv.URL + "/batches/none")
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != want {
			t.Errorf("request %d: status %d, want %d", i+1, res.StatusCode, want)
		}
	}
}

// The fake Anthropic applies the messages API's thinking rules: a budget
// of at least 1024 below max_tokens for enabled, none for adaptive, no
// temperature but 1 with either, and no other type.
func TestAnthropicThinkingRules(t *testing.T) {
	srv := NewAnthropic(t, Options{})
	for _, c := range []struct {
		thinking, extra string
		status          int
		msg             string
	}{
		{`{"type":"enabled","budget_tokens":2000}`, "", 200, ""},
		{`{"type":"enabled","budget_tokens":500}`, "", 400, "greater than or equal to 1024"},
		{`{"type":"enabled","budget_tokens":5000}`, "", 400, "`max_tokens` must be greater"},
		{`{"type":"adaptive"}`, "", 200, ""},
		{`{"type":"adaptive","budget_tokens":2000}`, "", 400, "Extra inputs are not permitted"},
		{`{"type":"adaptive"}`, `,"temperature":0.5`, 400, "`temperature` may only be set to 1"},
		{`{"type":"disabled"}`, `,"temperature":0.5`, 200, ""},
		{`{"type":"auto"}`, "", 400, "thinking.type"},
	} {
		body := `{"model":"m","max_tokens":4096,"thinking":` + c.thinking + c.extra + `,"messages":[{"role":"user","content":"q"}]}`
		status, reply, err := post(t, http.DefaultClient, srv.URL+"/v1/messages", body)
		if err != nil || status != c.status || !strings.Contains(reply, c.msg) {
			t.Errorf("thinking %s%s: status %d (%v) %s; want %d %q", c.thinking, c.extra, status, err, reply, c.status, c.msg)
		}
	}
}

// Cached tokens are reported as each API reports them: OpenAI's inside
// the prompt's count, Anthropic's beside an input_tokens without them.
func TestCachedTokensReported(t *testing.T) {
	reply := func(Call) Reply {
		return Reply{InputTokens: 2500, CacheReadTokens: 2000, CacheWriteTokens: 300, OutputTokens: 50}
	}
	anthropicBody := `{"model":"m","max_tokens":64,"messages":[{"role":"user","content":"q"}]}`
	responsesBody := `{"model":"m","input":"q"}`
	for _, tc := range []struct {
		name, url, body string
		want            []string
	}{
		{"chat", NewOpenAI(t, Options{Reply: reply}).URL + "/chat/completions", chatBody,
			[]string{`"prompt_tokens":2500`, `"prompt_tokens_details":{"cached_tokens":2000}`}},
		{"responses", NewOpenAIResponses(t, Options{Reply: reply}).URL + "/responses", responsesBody,
			[]string{`"input_tokens":2500`, `"input_tokens_details":{"cached_tokens":2000}`}},
		{"anthropic", NewAnthropic(t, Options{Reply: reply}).URL + "/v1/messages", anthropicBody,
			[]string{`"input_tokens":200`, `"cache_read_input_tokens":2000`, `"cache_creation_input_tokens":300`}},
	} {
		status, body, err := post(t, http.DefaultClient, tc.url, tc.body)
		if err != nil || status != 200 {
			t.Fatalf("%s: status %d, %v: %s", tc.name, status, err, body)
		}
		for _, w := range tc.want {
			if !strings.Contains(body, w) {
				t.Errorf("%s: reply has no %s: %s", tc.name, w, body)
			}
		}
	}
}
