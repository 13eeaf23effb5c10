package fakeserver

import (
	"os"
	"testing"
	"time"
)

// TestServe serves the OpenAI fake to other processes, for benchmarks of
// a whole run (scripts/bench-run.sh): with FAKESERVER_URL_FILE set it
// writes its base URL there and answers every request, after
// FAKESERVER_LATENCY (a duration, default 1ms), recording none, until the
// process is killed. Without it the test is skipped.
//
//	FAKESERVER_URL_FILE=/tmp/url go test -run TestServe -timeout 0 ./internal/testkit/fakeserver
func TestServe(t *testing.T) {
	urlFile := os.Getenv("FAKESERVER_URL_FILE")
	if urlFile == "" {
		t.Skip("FAKESERVER_URL_FILE is not set: nothing to serve")
	}
	latency := time.Millisecond
	if s := os.Getenv("FAKESERVER_LATENCY"); s != "" {
		var err error
		if latency, err = time.ParseDuration(s); err != nil {
			t.Fatalf("FAKESERVER_LATENCY: %v", err)
		}
	}
	srv := NewOpenAI(t, Options{Latency: latency, MaxRequests: 1 << 40, Unrecorded: true})
	if err := os.WriteFile(urlFile, []byte(srv.URL+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	select {} // until killed
}
