package runner

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// A server that refuses connections stops the run: after 3 in a row when
// it has refused every one since the run began (down, or the base URL
// wrong), after MaxRefusals (20) in a row once it had answered (a server
// that went away mid-run may be restarting).
func TestRefusalsStopTheRun(t *testing.T) {
	refused := &model.APIError{Retryable: true, Message: "transport error", Cause: fmt.Errorf("dial tcp: %w", syscall.ECONNREFUSED)}
	for _, tc := range []struct {
		name     string
		answered int64 // calls answered before the server went away
		calls    int64 // calls made in all
		says     string
	}{
		{"never reached", 0, 3, "refused 3 connections in a row, and none since the run began: is the server running"},
		{"went away", 2, 22, "refused 20 connections in a row: is the server running"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var n atomic.Int64
			m := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
				if n.Add(1) <= tc.answered {
					return model.Response{Text: "ok"}, nil
				}
				return model.Response{}, refused
			})
			s := &noSleep{}
			_, _, err := collect(t, context.Background(), m, makeJobs(40), Options{Concurrency: 1, Sleep: s.sleep})
			if err == nil || !strings.Contains(err.Error(), tc.says) || strings.Contains(err.Error(), "\n") {
				t.Errorf("err %v, want one line saying %q", err, tc.says)
			}
			if got := m.calls.Load(); got != tc.calls {
				t.Errorf("%d calls, want %d", got, tc.calls)
			}
		})
	}
}
