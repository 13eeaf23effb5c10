// Package browsertest runs headless Chromium for tests, with no driver:
// Run loads a page once and returns what Chromium prints (the DOM, with
// --dump-dom) or writes (a picture, with --screenshot); Open keeps a page
// open and evaluates JavaScript in it as it changes, over the DevTools
// protocol on a pipe (Chromium's --remote-debugging-pipe: JSON messages
// ended by NUL bytes on its file descriptors 3 and 4).
//
// Find finds the browser. Without one the tests skip, unless
// EVALMD_REQUIRE_SHARED=1 (CI, whose .ci/run installs Debian's chromium),
// where they fail.
package browsertest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"testing"
	"time"
)

// Find returns the path of a headless-capable Chromium, or skips the test
// (fails it where EVALMD_REQUIRE_SHARED=1).
func Find(t testing.TB) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("EVALMD_REQUIRE_SHARED") == "1" {
		t.Fatal("chromium not found (apt-get install chromium); EVALMD_REQUIRE_SHARED=1 requires the browser tests")
	}
	t.Skip("chromium not found: the browser tests need Debian's chromium")
	return ""
}

// flags are every run's: headless, no first-run work, no network of the
// browser's own, a profile of the test's.
func flags(t testing.TB) []string {
	return []string{"--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync",
		"--hide-scrollbars", "--user-data-dir=" + t.TempDir()}
}

// Run runs bin on url with the extra arguments and returns its standard
// output. The page is loaded, its script runs, and Chromium prints the DOM
// (--dump-dom) or writes a picture (--screenshot). The time limit only
// stops a hung browser.
func Run(t testing.TB, bin, url string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append(append(flags(t), args...), url)...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("chromium %s: %v\n%s", url, err, stderr.String())
	}
	return stdout.Bytes()
}

// Page is a page open in a browser that the test drives.
type Page struct {
	send    *os.File // the browser's fd 3
	session string

	mu      sync.Mutex
	next    int
	waiting map[int]chan reply
	dead    error // set when the browser's pipe ends
}

// reply is a protocol answer: its result, or its error.
type reply struct {
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// Open starts bin on a new page at url and returns it; the browser ends
// with the test.
func Open(t testing.TB, bin, url string) *Page {
	t.Helper()
	toBrowser, send, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	receive, fromBrowser, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, append(flags(t), "--remote-debugging-pipe", "about:blank")...)
	cmd.ExtraFiles = []*os.File{toBrowser, fromBrowser} // its fds 3 and 4
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	toBrowser.Close()
	fromBrowser.Close()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		send.Close()
		receive.Close()
	})
	p := &Page{send: send, waiting: map[int]chan reply{}}
	go p.read(receive)

	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := p.call("Target.createTarget", map[string]any{"url": url}, &target); err != nil {
		t.Fatalf("chromium: opening %s: %v\n%s", url, err, stderr.String())
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := p.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		t.Fatalf("chromium: %v\n%s", err, stderr.String())
	}
	p.session = attached.SessionID
	return p
}

// read hands each message the browser sends to the call waiting for it;
// events (messages without an id) are dropped.
func (p *Page) read(r *os.File) {
	br := bufio.NewReader(r)
	for {
		msg, err := br.ReadBytes(0)
		if err != nil {
			p.mu.Lock()
			p.dead = fmt.Errorf("the browser's pipe ended: %w", err)
			for id, ch := range p.waiting {
				close(ch)
				delete(p.waiting, id)
			}
			p.mu.Unlock()
			return
		}
		var m struct {
			ID *int `json:"id"`
			reply
		}
		if json.Unmarshal(msg[:len(msg)-1], &m) != nil || m.ID == nil {
			continue
		}
		p.mu.Lock()
		if ch, ok := p.waiting[*m.ID]; ok {
			ch <- m.reply
			delete(p.waiting, *m.ID)
		}
		p.mu.Unlock()
	}
}

// call sends one protocol command (to the page's session once there is
// one) and decodes its result into out.
func (p *Page) call(method string, params any, out any) error {
	p.mu.Lock()
	if p.dead != nil {
		p.mu.Unlock()
		return p.dead
	}
	p.next++
	id := p.next
	ch := make(chan reply, 1)
	p.waiting[id] = ch
	p.mu.Unlock()
	msg := map[string]any{"id": id, "method": method, "params": params}
	if p.session != "" {
		msg["sessionId"] = p.session
	}
	data, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := p.send.Write(append(data, 0)); err != nil {
		return fmt.Errorf("%s: %w", method, err)
	}
	select {
	case r, ok := <-ch:
		if !ok {
			return fmt.Errorf("%s: %w", method, p.dead)
		}
		if r.Error != nil {
			return fmt.Errorf("%s: %s", method, r.Error.Message)
		}
		if out != nil {
			return json.Unmarshal(r.Result, out)
		}
		return nil
	case <-time.After(time.Minute):
		return fmt.Errorf("%s: no answer within a minute", method)
	}
}

// Eval evaluates the JavaScript expression in the page as it is now and
// decodes its value (JSON) into out. While the page reloads it fails:
// callers that wait for a change ask again.
func (p *Page) Eval(expr string, out any) error {
	var r struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		Exception *struct {
			Text string `json:"text"`
		} `json:"exceptionDetails"`
	}
	if err := p.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &r); err != nil {
		return err
	}
	if r.Exception != nil {
		return fmt.Errorf("%s: %s", expr, r.Exception.Text)
	}
	if len(r.Result.Value) == 0 {
		return fmt.Errorf("%s: no value", expr)
	}
	return json.Unmarshal(r.Result.Value, out)
}
