package harness

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"

	"github.com/evalmd/evalmd/grade"
	"github.com/evalmd/evalmd/harness/internal/execute"
	"github.com/evalmd/evalmd/harness/internal/plan"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
)

// BatchConfig is run --batch: the questions go through the providers'
// batch APIs at batch prices instead of live calls.
type BatchConfig = execute.Batch

// Subset chooses the questions a run asks of each sheet (run --limit,
// --questions); the zero Subset asks them all.
type Subset = plan.Subset

// checks are what the plan checks of every question, before any call,
// as each is built (prepare.Options.Check), and what it gathers of them.
type checks struct {
	graders *regrade.Graders
	batch   bool
	// capped says the run has a cap (MaxCost): every question must bound
	// its output.
	capped bool
	made   map[string]model.Model
	// ungraded are the questions that cannot be graded, each once (not
	// once per model), at its sheet's line.
	ungraded []regrade.Ungradable
	seen     map[regrade.Ungradable]bool
	// keyed are the questions asked of each model that answers from a
	// fixed set of keys (replay), for warnUnmatched.
	keyed map[string][]model.QuestionRef
}

// question checks question i of output o, whose task is t and record q:
// whether it can be graded (regrade.Graders.Check: its grader is one, it
// has a ground truth its grader can read, a tolerance that is a number...),
// gathered for ungradedError; that an agent-mode question can run; and a
// keyed model's question is noted.
func (c *checks) question(o *plan.Output, i int, t *model.Task, q *result.Question) error {
	if err := c.graders.CheckIn(q, &o.File.Sheet); err != nil {
		u := regrade.Ungradable{At: fmt.Sprintf("%s:%d", o.SheetPath, checkLine(o.Item(i), err)), Name: q.Name, Why: err.Error()}
		if c.seen == nil {
			c.seen = map[regrade.Ungradable]bool{}
		}
		if !c.seen[u] {
			c.seen[u] = true
			c.ungraded = append(c.ungraded, u)
		}
	}
	if err := checkAgentMode(o, t, q.Name, c.batch); err != nil {
		return err
	}
	if c.capped {
		if err := boundedOutput(o, i, t, q); err != nil {
			return err
		}
	}
	if _, ok := c.made[o.Model].(keyedAnswers); ok {
		if c.keyed == nil {
			c.keyed = map[string][]model.QuestionRef{}
		}
		c.keyed[o.Model] = append(c.keyed[o.Model], t.Question)
	}
	return nil
}

// checkLine is the line a question's check error is at: the meta key's
// line when the error is about one (grade.MetaError), else the question's.
func checkLine(it *sheet.Item, err error) int {
	var me *grade.MetaError
	if errors.As(err, &me) && it.MetaLines[me.Key] > 0 {
		return it.MetaLines[me.Key]
	}
	return it.Line
}

// ungradedError names the questions that cannot be graded, which stop a
// run before any call; nil when every one can be.
func (c *checks) ungradedError() error {
	if len(c.ungraded) == 0 {
		return nil
	}
	return &regrade.UngradedError{Where: "run", Questions: c.ungraded, Before: true}
}

// checkAgentMode refuses an agent-mode question that cannot run: in a
// batch run (a batch answers one completion per request, an agent makes
// many) or on a model that takes no tools (an agent's every turn offers
// python).
func checkAgentMode(o *plan.Output, t *model.Task, name string, batch bool) error {
	noTools := o.File.Sheet.ModelInfo != nil && o.File.Sheet.ModelInfo.NoTools
	if !batch && !noTools || t.Solve == nil || t.Solve.Mode != model.ModeAgent {
		return nil
	}
	if batch {
		return fmt.Errorf("%s: question %q is in agent mode (many model calls, each on the last one's result), which a batch cannot answer; run it without --batch, or with --mode code or chat",
			o.SheetPath, name)
	}
	return fmt.Errorf("%s: question %q is in agent mode, which offers the model a python tool, and %s takes no tools (a text-completions endpoint, --completion-api); run it without --completion-api, or with --mode code or chat",
		o.SheetPath, name, o.File.Sheet.ModelName)
}

// Shard is a share of a run (run --shard K/N); the zero Shard is the
// whole run.
type Shard = plan.Shard

// ParseShard reads --shard's K/N.
func ParseShard(s string) (Shard, error) { return plan.ParseShard(s) }

// ResumeFiles are the journal and the run state of the run cfg describes:
// in the output folder (else the folder -d named, else the first sheet's),
// named by a hash of the sheets, the models and the output folder, so the
// same command finds them again and another run's are never mixed in,
// keyed with the machine's key (Config.Key), so that no one else can name
// them: a journal planted where a run looks for its own would be resumed
// as answers the run had paid for. A shard's are its own, named with the
// shard, beside its sibling shards'. A Config that has no key yet, not
// being run, names them by the hash alone.
func ResumeFiles(cfg Config) (journal, state string) {
	name := hex.EncodeToString(runHash(cfg))
	if k := cmp.Or(cfg.Key, cfg.once); k != nil {
		name = k.Tag("evalmd run journal", name)
	}
	return resumeFiles(cfg, name[:12])
}

// resumeFiles are the journal and the state of cfg's run named name.
func resumeFiles(cfg Config, name string) (journal, state string) {
	dir := cfg.OutDir
	switch {
	case dir != "":
	case cfg.SheetRoot != "":
		dir = cfg.SheetRoot
	case len(cfg.Sheets) > 0:
		dir = filepath.Dir(cfg.Sheets[0])
	}
	base := filepath.Join(dir, ".evalmd-run-"+name)
	if !cfg.Shard.IsZero() {
		base = strings.TrimSuffix(result.ShardName(base+".json", cfg.Shard.K, cfg.Shard.N), ".json")
	}
	return base + ".journal", base + ".run"
}

// sayPlanted says, when a journal lies where one not keyed with the
// machine's key would be named (evalmd's before the keys, or a stranger's
// plainly planted), that the run leaves it alone: its answers are no
// answers of this machine, and its questions are asked.
func (cfg Config) sayPlanted(journal string) {
	plain, _ := resumeFiles(cfg, hex.EncodeToString(runHash(cfg))[:12])
	if plain == journal {
		return
	}
	if _, err := os.Lstat(plain); err == nil {
		cfg.say("warning: not resuming from %s: evalmd did not write it on this machine (a run's journal is named with the machine's key); its questions are asked", plain)
	}
}

// sharedRunID is the run id of a shard run without --run-id: made from
// the run's hash and its number of shards, so every shard of the run,
// on any machine, names its outputs with the same id (RunIDLen hex
// digits, none for 0).
func sharedRunID(cfg Config) string {
	h := sha256.New()
	fmt.Fprintf(h, "shared run id\x00%x\x00%d", runHash(cfg), cfg.Shard.N)
	return hex.EncodeToString(h.Sum(nil))[:min(max(cfg.RunIDLen, 0), 2*sha256.Size)]
}

// runHash names the run cfg describes, whatever the shard: its sheets,
// models, output folder, and subset and run id when given.
func runHash(cfg Config) []byte {
	models := append([]string(nil), cfg.Models...)
	sort.Strings(models)
	var sheets []string
	for _, s := range cfg.Sheets {
		if a, err := filepath.Abs(s); err == nil {
			s = a
		}
		sheets = append(sheets, s)
	}
	sort.Strings(sheets)
	abs := func(p string) string {
		if p == "" {
			return ""
		}
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	h := sha256.New()
	for _, part := range [][]string{models, sheets, {abs(cfg.OutDir), abs(cfg.SheetRoot)}} {
		for _, s := range part {
			fmt.Fprintf(h, "%s\x00", s)
		}
		h.Write([]byte{1})
	}
	if !cfg.Subset.IsZero() {
		// Another subset is another run: its own run id and outputs, so
		// a rerun with other flags never fills this one's files. (Left
		// out of the hash when unused, so earlier journals still resume.)
		fmt.Fprintf(h, "limit %d\x00%s\x00", cfg.Subset.Limit, strings.Join(cfg.Subset.Questions, "\x00"))
	}
	if cfg.RunID != "" {
		// Another run id is another run, likewise.
		fmt.Fprintf(h, "run id %s\x00", cfg.RunID)
	}
	return h.Sum(nil)
}

// syncWriter serialises writes to the console: outputs are written (and
// reported) by their own goroutine while the runner warns from others.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}
