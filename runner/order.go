package runner

import (
	"context"
	"sync"
)

// taker hands a pool's workers its jobs in the order given, but for the
// jobs of one Job.Group: the first of a group taken (its leader) is sent
// alone, and the others wait, while the workers take the jobs after them,
// until it is settled. A prompt cache written by the leader is then read
// by the rest, where sent at once they would all have written it.
type taker struct {
	jobs  Jobs
	queue []int // job places, in order

	mu      sync.Mutex
	wake    *sync.Cond
	next    int       // the next place of queue to take
	ready   []heldJob // jobs of settled groups' leaders, to take first
	groups  map[string]*group
	waiting int // jobs held for their group's leader
}

// group is the state of one Job.Group among a pool's jobs.
type group struct {
	leader  string // the leader's key
	settled bool
	held    []heldJob
}

type heldJob struct {
	place int
	job   Job
}

// newTaker takes queue's jobs; a worker waiting for a leader stops
// waiting when start ends.
func newTaker(start context.Context, jobs Jobs, queue []int) (*taker, func() bool) {
	t := &taker{jobs: jobs, queue: queue, groups: map[string]*group{}}
	t.wake = sync.NewCond(&t.mu)
	stop := context.AfterFunc(start, func() {
		t.mu.Lock()
		t.wake.Broadcast()
		t.mu.Unlock()
	})
	return t, stop
}

// take is the next job to send and its place; ok is false when none is
// left (or start ended). A job is built (Jobs.Job) outside the lock, so
// workers build theirs at once.
func (t *taker) take(start context.Context) (place int, j Job, ok bool, err error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for start.Err() == nil {
		if len(t.ready) > 0 {
			h := t.ready[0]
			t.ready = t.ready[1:]
			return h.place, h.job, true, nil
		}
		if t.next < len(t.queue) {
			place = t.queue[t.next]
			t.next++
			t.mu.Unlock()
			j, err = t.jobs.Job(place)
			t.mu.Lock()
			if err != nil {
				return place, j, false, err
			}
			if t.admit(place, j) {
				return place, j, true, nil
			}
			continue
		}
		if t.waiting == 0 {
			return 0, Job{}, false, nil
		}
		t.wake.Wait()
	}
	return 0, Job{}, false, nil
}

// admit says whether j may be sent now: it has no group, leads it, or
// its group's leader is settled; else it is held for the leader.
func (t *taker) admit(place int, j Job) bool {
	if j.Group == "" {
		return true
	}
	g := t.groups[j.Group]
	switch {
	case g == nil:
		t.groups[j.Group] = &group{leader: j.Key}
		return true
	case g.settled:
		return true
	}
	g.held = append(g.held, heldJob{place, j})
	t.waiting++
	return false
}

// settled is told that j is done with (answered, failed or abandoned):
// when it led its group, the jobs held for it are let go.
func (t *taker) settled(j Job) {
	if j.Group == "" {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	g := t.groups[j.Group]
	if g == nil || g.settled || g.leader != j.Key {
		return
	}
	g.settled = true
	t.ready = append(t.ready, g.held...)
	t.waiting -= len(g.held)
	g.held = nil
	t.wake.Broadcast()
}
