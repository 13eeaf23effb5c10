package runner

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/model"
)

// The jobs of a group wait for their leader's answer before any is sent,
// while the jobs of another group and of none go on: the leader is held
// until both of them have been answered, which with the siblings holding
// the workers would never happen.
func TestGroupLeaderFirst(t *testing.T) {
	for _, tc := range []struct {
		name string
		conc int
		fail bool // the leader fails: its group goes on all the same
	}{
		{"c4", 4, false},
		{"c16", 16, false},
		{"c2", 2, false},
		{"leader fails", 4, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			release := make(chan struct{})
			var mu sync.Mutex
			var order []string
			leaderDone := false
			// The leader is the first of group a sent: workers build their
			// jobs side by side, so a1 may be admitted before a0.
			leader := ""
			var early []string // siblings sent before the leader's answer
			m := newFuncModel(func(ctx context.Context, req model.Task) (model.Response, error) {
				name := req.Question.Name
				mu.Lock()
				order = append(order, name)
				if name[0] == 'a' && leader == "" {
					leader = name
				}
				isLeader := name == leader
				if name[0] == 'a' && !isLeader && !leaderDone {
					early = append(early, name)
				}
				mu.Unlock()
				if isLeader {
					select {
					case <-release:
					case <-time.After(10 * time.Second):
						return model.Response{}, fmt.Errorf("never released")
					}
					mu.Lock()
					leaderDone = true
					mu.Unlock()
					if tc.fail {
						return model.Response{}, fmt.Errorf("bad request")
					}
				}
				return model.Response{Text: "ok " + name}, nil
			})
			var jobs []Job
			for i := range 6 {
				jobs = append(jobs, groupJob("a", i))
			}
			jobs = append(jobs, groupJob("b", 0), groupJob("b", 1), groupJob("", 0))
			answered := map[string]bool{}
			var amu sync.Mutex
			go func() {
				// The leader is released once the other groups' jobs are in.
				for {
					amu.Lock()
					ok := answered["b0"] && answered["b1"] && answered["0"]
					amu.Unlock()
					if ok {
						close(release)
						return
					}
					time.Sleep(time.Millisecond)
				}
			}()
			st, err := Run(context.Background(), m, jobs, Options{Concurrency: tc.conc, MaxAttempts: 1}, func(o Outcome) {
				amu.Lock()
				answered[jobs[o.Index].Task.Question.Name] = true
				amu.Unlock()
			})
			if err != nil || st.Answered+st.Failed != len(jobs) {
				t.Fatalf("stats %+v, %v", st, err)
			}
			if len(early) > 0 {
				t.Errorf("sent before their leader's answer: %v (order %v)", early, order)
			}
			if order[0] != leader && order[1] != leader && order[2] != leader {
				t.Errorf("the leader %s was not among the first sent: %v", leader, order)
			}
		})
	}
}

// groupJob is job i of group g, its question named g and i ("0" for i
// of no group).
func groupJob(g string, i int) Job {
	name := fmt.Sprintf("%s%d", g, i)
	return Job{Key: "k-" + name, Group: g, Task: model.Task{Request: model.Request{Messages: []model.Message{{Role: "user", Content: name}}},
		Question: model.QuestionRef{Name: name}}}
}
