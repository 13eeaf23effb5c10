package runner

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// builtJobs are Jobs built as they are taken, counting what was built and
// how many built jobs were not emitted yet at most.
type builtJobs struct {
	jobs []Job
	fail int // Job(fail) fails; -1: none

	mu          sync.Mutex
	built       []int
	alive, most int
}

func (b *builtJobs) Len() int                { return len(b.jobs) }
func (b *builtJobs) Model(i int) model.Model { return b.jobs[i].Model }
func (b *builtJobs) Key(i int) string        { return b.jobs[i].Key }
func (b *builtJobs) Job(i int) (Job, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if i == b.fail {
		return Job{}, errors.New("question 7's files are gone")
	}
	b.built[i]++
	b.alive++
	b.most = max(b.most, b.alive)
	return b.jobs[i], nil
}

func (b *builtJobs) emitted() {
	b.mu.Lock()
	b.alive--
	b.mu.Unlock()
}

// RunJobs builds each job once, when a worker takes it, and holds no more
// built jobs than are in flight; each outcome says which job it is. A job
// that cannot be built stops the run with its error.
func TestRunJobsBuildsWhenTaken(t *testing.T) {
	m := newFuncModel(echo)
	jobs := makeJobs(500)
	for i := range jobs {
		jobs[i].Model = m
	}
	b := &builtJobs{jobs: jobs, fail: -1, built: make([]int, len(jobs))}
	seen := make([]bool, len(jobs))
	st, err := RunJobs(context.Background(), b, Options{Concurrency: 4}, func(o Outcome) {
		if o.Key != jobs[o.Index].Key || seen[o.Index] {
			t.Errorf("outcome %q at index %d (seen: %v)", o.Key, o.Index, seen[o.Index])
		}
		seen[o.Index] = true
		if want := "answer to " + jobs[o.Index].Task.Question.Name; o.Response.Text != want {
			t.Errorf("job %d answered %q", o.Index, o.Response.Text)
		}
		b.emitted()
	})
	if err != nil || st.Answered != len(jobs) {
		t.Fatalf("%+v, %v", st, err)
	}
	for i, n := range b.built {
		if n != 1 {
			t.Errorf("job %d built %d times", i, n)
		}
	}
	// Four in flight, four in the outcomes' buffer, one being emitted.
	if b.most > 9 {
		t.Errorf("%d built jobs held at once at -c 4", b.most)
	}

	b = &builtJobs{jobs: jobs, fail: 7, built: make([]int, len(jobs))}
	_, err = RunJobs(context.Background(), b, Options{Concurrency: 1}, func(Outcome) {})
	if err == nil || !strings.Contains(err.Error(), "question 7's files are gone") {
		t.Errorf("a job that could not be built: %v", err)
	}
}

// A resumed run builds a journaled job to check its request against the
// record, settles it from the journal with its index, and asks the rest.
func TestRunJobsResumes(t *testing.T) {
	m := newFuncModel(echo)
	jobs := makeJobs(20)
	for i := range jobs {
		jobs[i].Model = m
	}
	journal := filepath.Join(t.TempDir(), "j")
	if _, err := Run(context.Background(), nil, jobs[:12], Options{Journal: journal}, nil); err != nil {
		t.Fatal(err)
	}
	calls := m.calls.Load()
	b := &builtJobs{jobs: jobs, fail: -1, built: make([]int, len(jobs))}
	var fromJournal []int
	_, err := RunJobs(context.Background(), b, Options{Journal: journal}, func(o Outcome) {
		if o.FromJournal {
			fromJournal = append(fromJournal, o.Index)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(fromJournal) != 12 || fromJournal[0] != 0 || fromJournal[11] != 11 {
		t.Errorf("from the journal: %v, want jobs 0 to 11", fromJournal)
	}
	if asked := m.calls.Load() - calls; asked != 8 {
		t.Errorf("%d asked, want the 8 not journaled", asked)
	}
	for i, n := range b.built {
		if n != 1 {
			t.Errorf("job %d built %d times", i, n)
		}
	}
}
