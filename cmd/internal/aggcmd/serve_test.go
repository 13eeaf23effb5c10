package aggcmd

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/testkit/blocked"
	"github.com/evalmd/evalmd/internal/testkit/syncbuf"
)

var reServing = regexp.MustCompile(`at (http://[^/ ]+/) `)

// serveDir runs agg --serve on dir at a free port of 127.0.0.1 and returns
// its URL; stop ends it and returns what the command returned.
func serveDir(t *testing.T, dir string) (url string, stderr *syncbuf.Buffer, stop func() error) {
	t.Helper()
	ctx, cancel := context.WithCancel(t.Context())
	stderr = &syncbuf.Buffer{}
	done := make(chan error, 1)
	go func() { done <- aggregate(ctx, io.Discard, stderr, []string{"-i", dir, "--serve", "127.0.0.1:0"}) }()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(10 * time.Millisecond) {
		if m := reServing.FindStringSubmatch(stderr.String()); m != nil {
			url = m[1]
			break
		}
		select {
		case err := <-done:
			t.Fatalf("agg --serve ended: %v\n%s", err, stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("agg --serve does not say where it serves:\n%s", stderr.String())
		}
	}
	stopped := false
	stop = func() error {
		cancel()
		stopped = true
		select {
		case err := <-done:
			return err
		case <-time.After(time.Minute):
			t.Fatal("agg --serve did not stop")
		}
		return nil
	}
	t.Cleanup(func() {
		if !stopped {
			stop()
		}
	})
	return url, stderr, stop
}

// get fetches url with the Host header host (the URL's when "").
func get(t *testing.T, method, url, host string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(method, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if host != "" {
		req.Host = host
	}
	resp, err := (&http.Client{Timeout: time.Minute}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

var reSince = regexp.MustCompile(`data-url="(/changes\?since=[^"]+)"`)

// The served page: a notice while the folder has no outputs, the report
// once it has; a page's question is answered as soon as the outputs change
// (205), at once for a page made before; only GET, only this address's
// names; the end of the context stops the server without an error.
func TestServe(t *testing.T) {
	dir := t.TempDir()
	url, stderr, stop := serveDir(t, dir)

	code, page := get(t, "GET", url, "")
	if code != 200 || !strings.Contains(page, "No output files in "+dir+" yet") {
		t.Fatalf("%d before any output:\n%s", code, page)
	}
	m := reSince.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("the notice asks no server:\n%s", page)
	}
	asked := make(chan int, 1)
	go func() { code, _ := get(t, "GET", url+m[1][1:], ""); asked <- code }()
	// The output comes once the server holds the question.
	held, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := blocked.Wait(held, "aggcmd.(*server).serveChanges", 1); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join("..", "..", "..", "agg", "testdata", "bench", "output-comp-a-m1-0001.json"))
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(dir, "output-comp-a-m1-0001.json"), data, 0o644)
	select {
	case code := <-asked:
		if code != http.StatusResetContent {
			t.Errorf("the held question: %d, want 205", code)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the held question is not answered when an output appears")
	}
	code, page = get(t, "GET", url, "")
	if code != 200 || !strings.Contains(page, "Leaderboard") || !strings.Contains(page, "connect-src 'self'") {
		t.Fatalf("%d after an output:\n%.1000s", code, page)
	}
	if m2 := reSince.FindStringSubmatch(page); m2 == nil || m2[1] == m[1] {
		t.Errorf("the report asks %q, the notice asked %q", m2, m[1])
	}
	if code, _ := get(t, "GET", url+m[1][1:], ""); code != http.StatusResetContent {
		t.Errorf("a page made before the change: %d, want 205 at once", code)
	}

	for _, tc := range []struct {
		method, path, host string
		want               int
	}{
		{"GET", "", "evil.example:80", http.StatusForbidden},
		{"GET", "", "localhost" + url[strings.LastIndex(url, ":"):len(url)-1], http.StatusOK},
		{"POST", "", "", http.StatusMethodNotAllowed},
		{"GET", "output-comp-a-m1-0001.json", "", http.StatusNotFound},
	} {
		if code, _ := get(t, tc.method, url+tc.path, tc.host); code != tc.want {
			t.Errorf("%s /%s (Host %q): %d, want %d", tc.method, tc.path, tc.host, code, tc.want)
		}
	}

	if err := stop(); err != nil {
		t.Errorf("stopping: %v", err)
	}
	if !strings.HasSuffix(stderr.String(), "stopped serving\n") {
		t.Errorf("stderr:\n%s", stderr.String())
	}
}

// --serve listens where told: a port alone on 127.0.0.1, another computer's
// reach only with --allow-remote; it serves the report alone.
func TestServeAddress(t *testing.T) {
	for _, tc := range []struct {
		addr   string
		remote bool
		want   string // the address, or part of the error
	}{
		{"8080", false, "127.0.0.1:8080"},
		{":8080", false, "127.0.0.1:8080"},
		{"127.0.0.1:0", false, "127.0.0.1:0"},
		{"localhost:8080", false, "localhost:8080"},
		{"[::1]:8080", false, "[::1]:8080"},
		{"0.0.0.0:8080", false, "not a loopback address"},
		{"192.168.1.5:8080", false, "add --allow-remote"},
		{"example.com:80", false, "not a loopback address"},
		{"0.0.0.0:8080", true, "0.0.0.0:8080"},
		{"127.0.0.1", false, "give 127.0.0.1:PORT"},
	} {
		got, err := serveAddr(tc.addr, tc.remote)
		if err != nil {
			got = err.Error()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("--serve %s (remote %v): %q, want %q", tc.addr, tc.remote, got, tc.want)
		}
	}
	for _, args := range [][]string{
		{"-i", t.TempDir(), "--serve", "0", "-o", "x.md"},
		{"-i", t.TempDir(), "--serve", "0", "-html", "x.html"},
		{"-i", t.TempDir(), "--allow-remote"},
	} {
		err := aggregate(t.Context(), io.Discard, io.Discard, args)
		if err == nil || !strings.Contains(err.Error(), "serve") {
			t.Errorf("agg %q: %v", args, err)
		}
	}
}
