package runner

import (
	"context"
	"errors"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/evalmd/evalmd/internal/grace"
	"github.com/evalmd/evalmd/model"
)

// A context with a graceful end (a command's first Ctrl-C): once it ends,
// nothing new is sent, and the requests in flight are answered, journaled
// and emitted; Stopping is told how many were in flight. Ending the second
// context abandons them instead.
func TestGracefulStop(t *testing.T) {
	for _, abort := range []bool{false, true} {
		name := "first end"
		if abort {
			name = "second end"
		}
		t.Run(name, func(t *testing.T) {
			finish, cancelFinish := context.WithCancel(context.Background())
			defer cancelFinish()
			ctx, cancel := context.WithCancel(grace.WithFinish(finish))
			defer cancel()
			const c = 3
			arrived := make(chan struct{}, c)
			release := make(chan struct{})
			m := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
				arrived <- struct{}{}
				select {
				case <-release:
				case <-ctx.Done():
					return model.Response{}, ctx.Err()
				}
				return echo(ctx, req)
			})
			var told atomic.Int64
			told.Store(-1)
			journal := filepath.Join(t.TempDir(), "j")
			opt := Options{Concurrency: c, Journal: journal, Stopping: func(n int) {
				told.Store(int64(n))
				if abort {
					cancelFinish()
				} else {
					close(release)
				}
			}}
			go func() {
				for range c {
					<-arrived
				}
				cancel()
			}()
			got, st, err := collect(t, ctx, m, makeJobs(20), opt)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v, want the context's", err)
			}
			if told.Load() != c {
				t.Errorf("Stopping told %d in flight, want %d", told.Load(), c)
			}
			if n := m.calls.Load(); n != c {
				t.Errorf("%d requests sent, want the %d in flight", n, c)
			}
			want := c
			if abort {
				want = 0
			}
			if len(got) != want || st.Answered != want {
				t.Errorf("%d emitted, %d answered; want %d", len(got), st.Answered, want)
			}
			j, recs, err := openJournal(journal)
			if err != nil {
				t.Fatal(err)
			}
			j.close()
			if len(recs) != want {
				t.Errorf("%d journaled, want %d", len(recs), want)
			}
		})
	}
}
