package execute

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/result"
)

// Resume is the journal of one run (every sheet on every model) and the
// run id it was started with, so that rerunning the same command after a
// crash, a Ctrl-C or failed questions asks only what is missing and
// writes the same files; and the output files the run wrote, so that the
// rerun knows them from another run's.
type Resume struct {
	Journal string `json:"-"` // the runner's journal
	state   string // a small JSON file holding the run id
	RunID   string `json:"run_id"`
	// Written are the sums of the output files the run wrote, by
	// absolute path, each saved just before its file is written.
	Written map[string]string `json:"written,omitempty"`
	// Exists says an earlier, unfinished run left them: RunID is its.
	Exists bool `json:"-"`
	// Once says no later run can find the journal (it is named with a
	// key of this run alone): it is removed when the run ends, whatever
	// became of its questions.
	Once bool `json:"-"`
}

// LoadResume finds the journal of an earlier, unfinished run of the same
// command at journal, its state at state. A state file whose run id is
// not one (a crafted "x/../../trav") is an error.
func LoadResume(journal, state string) (Resume, error) {
	st := Resume{Journal: journal, state: state, Written: map[string]string{}}
	data, err := readfile.Read(st.state, readfile.Small)
	if err != nil {
		return st, nil
	}
	if json.Unmarshal(data, &st) == nil {
		if err := result.CheckRunID(st.RunID); err != nil {
			return st, fmt.Errorf("%s: %w; remove the file to start afresh", st.state, err)
		}
		st.Exists = true
	}
	if st.Written == nil {
		st.Written = map[string]string{} // a state that held "written": null
	}
	return st, nil
}

// save records the run id, and the outputs written, beside the journal.
func (st Resume) save() error {
	if st.state == "" {
		return nil
	}
	if err := outfile.MkdirAll(filepath.Dir(st.state), 0o755); err != nil {
		return err
	}
	data, _ := json.Marshal(st)
	// The state is the run's own; a stale one is replaced.
	return outfile.Write(st.state, data, outfile.Options{Force: true})
}

// Wrote saves, before the output file at path (absolute) is written, the
// sum of what it will hold.
func (st Resume) Wrote(path, sum string) error {
	if st.state == "" {
		return nil
	}
	st.Written[path] = sum
	return st.save()
}

// remove deletes the journal once every output holds every answer.
func (st Resume) remove() {
	if st.Journal != "" {
		os.Remove(st.Journal)
		outfile.Remove(st.state)
		matches, _ := filepath.Glob(strings.TrimSuffix(st.Journal, ".journal") + ".batch-*.journal")
		for _, p := range matches {
			os.Remove(p)
		}
	}
}

// batchJournal is the batch journal of one model, beside the run's.
func batchJournal(runJournal, modelName string) string {
	return strings.TrimSuffix(runJournal, ".journal") + ".batch-" + result.SafeName(modelName) + ".journal"
}
