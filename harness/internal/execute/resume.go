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
// writes the same files.
type Resume struct {
	Journal string `json:"-"` // the runner's journal
	state   string // a small JSON file holding the run id
	RunID   string `json:"run_id"`
	// Exists says an earlier, unfinished run left them: RunID is its.
	Exists bool `json:"-"`
}

// LoadResume finds the journal of an earlier, unfinished run of the same
// command at journal, its state at state. A state file whose run id is
// not one (a crafted "x/../../trav") is an error.
func LoadResume(journal, state string) (Resume, error) {
	st := Resume{Journal: journal, state: state}
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
	return st, nil
}

// save records the run id beside the journal.
func (st Resume) save(runID string) error {
	if st.state == "" {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(st.state), 0o755); err != nil {
		return err
	}
	data, _ := json.Marshal(map[string]string{"run_id": runID})
	// The state is the run's own; a stale one is replaced.
	return outfile.Write(st.state, data, outfile.Options{Force: true})
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
