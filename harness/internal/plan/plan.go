// Package plan is the first step of a run: the sheets read and the models
// named become the run's jobs, one output file each (a sheet on a model),
// with the questions it asks and the key each is journalled under. Make
// is a pure function: it reads no file and asks no model, so every rule
// of a run's shape (where outputs go, which questions a subset keeps,
// which outputs would collide) is tested alone.
//
// A job is the unit later steps see: the execute step asks its questions,
// the write step writes its output. A sheet whose questions are asked N
// times (the epochs setting) is N jobs on each model, one per epoch
// (Job.Epoch), each its own output file (result.EpochName) and journal
// keys; a reuse of earlier answers looks them up by request key at the
// execute step, not here.
package plan

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/evalmd/evalmd/harness/internal/reuse"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/sheet"
)

// Sheet is a sheet as the plan sees it.
type Sheet struct {
	Path string // as given: outputs are named and placed from it
	// Key names the sheet in journal keys: its absolute path, so a rerun
	// from another folder finds the same journal entries.
	Key       string
	Questions []Question
}

// Question is what a subset chooses a question by.
type Question struct {
	Name string
	ID   string // its id meta, "" when none
	// Epochs is how many times it is asked (its resolved epochs setting;
	// 0 is once).
	Epochs int
}

// Options shape the jobs.
type Options struct {
	Models []string
	// OutDir is the output folder, "" for beside each sheet (LIME's way);
	// with SheetRoot, each output goes to its sheet's folder relative to
	// SheetRoot below OutDir.
	OutDir, SheetRoot string
	RunID             string // "" names outputs without a run id (-u 0)
	Subset            Subset
	// Shard, when not zero, keeps of each job the questions that fall in
	// it (ShardOf); every job is kept, also one left with no question,
	// so each shard writes its part of every output.
	Shard Shard
}

// Job is one output file: a sheet on a model, in one epoch.
type Job struct {
	Sheet int // index into the sheets given to Make
	Model string
	// Epoch is which of the sheet's Epochs this job asks (1..Epochs);
	// Epochs is 1 when each question is asked once. A question of fewer
	// epochs than its sheet's most is in the first of its jobs only.
	Epoch, Epochs int
	OutPath       string
	// Questions are the indices of the sheet's questions asked, in sheet
	// order; Key(i) is the journal key of Questions[i], made when asked
	// (a million questions' keys are 100 MB).
	Questions []int
	// places[i] is Questions[i]'s place among the questions the subset
	// chose, which its key holds; nil when it is i.
	places   []int
	sheetKey string
	// Subset is what the output records of the subset (nil: every
	// question).
	Subset *result.Subset
	// Shard is the share of the run this job asks (Options.Shard): its
	// output is that part of the output the whole run writes
	// (result.ShardName), its Questions those of the shard.
	Shard Shard
}

// Make lays the sheets out on the models, sheet by sheet, each on every
// model in turn. Two jobs that would write one file are an error naming
// the two sheets or the two models; so is a --questions glob that matches
// no question. A sheet of which the subset asks nothing gets no job; a
// sheet without questions does (its output holds none). A sheet is asked
// in as many epochs as its chosen questions' most, each model's epochs in
// order, so a run stopped in epoch 3 has epochs 1 and 2 written.
func Make(sheets []Sheet, opt Options) ([]Job, error) {
	if err := collisions(sheets, opt); err != nil {
		return nil, err
	}
	matched := make([]bool, len(opt.Subset.Questions))
	var jobs []Job
	for si, s := range sheets {
		chosen := opt.Subset.choose(s.Questions, matched)
		if len(chosen) == 0 && len(s.Questions) > 0 {
			continue // the subset asks nothing of this sheet: no output
		}
		epochs := 1
		for _, q := range chosen {
			epochs = max(epochs, s.Questions[q].Epochs)
		}
		var occ []int
		if !opt.Shard.IsZero() {
			occ = occurrences(s.Questions)
		}
		for _, m := range opt.Models {
			for k := 1; k <= epochs; k++ {
				jobs = append(jobs, shardJob(epochJob(s, si, m, k, epochs, chosen, opt), s, occ, opt))
			}
		}
	}
	if err := opt.Subset.unmatched(matched); err != nil {
		return nil, err
	}
	return jobs, nil
}

// epochJob is epoch k of n of sheet s on model m: the chosen questions
// of k epochs or more. A question's key holds its place among the chosen,
// so it is the same in every epoch but for the epoch.
func epochJob(s Sheet, si int, m string, k, n int, chosen []int, opt Options) Job {
	job := Job{Sheet: si, Model: m, Epoch: k, Epochs: n, sheetKey: s.Key,
		OutPath: result.EpochName(outPath(opt, s.Path, m, opt.RunID), k, n), Subset: opt.Subset.Record(len(s.Questions))}
	if k == 1 {
		job.Questions = chosen // every question has an epoch 1
	}
	for i, q := range chosen {
		if k == 1 || max(s.Questions[q].Epochs, 1) < k {
			continue
		}
		job.Questions = append(job.Questions, q)
		job.places = append(job.places, i)
	}
	if len(job.Questions) < len(chosen) {
		// Fewer epochs for some questions: the file says it is not all,
		// and why.
		if job.Subset == nil {
			job.Subset = &result.Subset{Of: len(s.Questions)}
		}
		job.Subset.Epoch = k
	} else {
		job.places = nil
	}
	if job.Questions == nil {
		job.Questions = []int{}
	}
	return job
}

// Key is the journal key of Questions[i], a question named name.
func (j *Job) Key(i int, name string) string {
	return Key(j.Model, j.sheetKey, j.Epoch, j.place(i), name)
}

// place is Questions[i]'s place among the questions the subset chose.
func (j *Job) place(i int) int {
	if j.places == nil {
		return i
	}
	return j.places[i]
}

// shardJob keeps of job the questions of opt's shard, occ being each
// sheet question's occurrence of its name; without a shard it is job.
func shardJob(job Job, s Sheet, occ []int, opt Options) Job {
	if opt.Shard.IsZero() {
		return job
	}
	job.Shard = opt.Shard
	job.OutPath = result.ShardName(job.OutPath, opt.Shard.K, opt.Shard.N)
	sheet := SheetName(s.Path, opt.SheetRoot)
	qs, places := []int{}, []int{}
	for i, q := range job.Questions {
		it := Item{Model: job.Model, Sheet: sheet, Epoch: job.Epoch, Name: s.Questions[q].Name, Occurrence: occ[q]}
		if ShardOf(it, opt.Shard.N) == opt.Shard.K {
			qs, places = append(qs, q), append(places, job.place(i))
		}
	}
	job.Questions, job.places = qs, places
	return job
}

// Key names a question of a job in the run's journals. The model and
// sheet keep the run's outputs apart in its one journal; the index (in
// the job) keeps duplicate question names apart; the name makes a journal
// of an edited sheet visibly stale rather than misapplied. An epoch past
// the first is part of the key, so it never takes another epoch's answer.
func Key(model, sheetKey string, epoch, i int, name string) string {
	k := fmt.Sprintf("%s|%s|%d:%s", model, sheetKey, i, name)
	if epoch > 1 {
		k += fmt.Sprintf("|epoch %d", epoch)
	}
	return k
}

// outPath is where the output of a sheet and model goes.
func outPath(opt Options, sheetPath, modelName, runID string) string {
	dir := filepath.Dir(sheetPath)
	if opt.OutDir != "" {
		dir = opt.OutDir
		if opt.SheetRoot != "" {
			if rel, err := filepath.Rel(opt.SheetRoot, filepath.Dir(sheetPath)); err == nil && !strings.HasPrefix(rel, "..") {
				dir = filepath.Join(opt.OutDir, rel)
			}
		}
	}
	return filepath.Join(dir, result.FileName(sheetPath, modelName, runID))
}

// collisions refuses a run in which two sheets, or two models whose names
// differ only in characters a file name cannot hold ("a:b", "a/b"), would
// write one file; the error names the two that collide. Every sheet counts,
// also one the subset asks nothing of.
func collisions(sheets []Sheet, opt Options) error {
	type pair struct{ sheet, model string }
	seen := map[string]pair{}
	for _, s := range sheets {
		for _, m := range opt.Models {
			out := outPath(opt, s.Path, m, "")
			// Every sheet runs every model, so two sheets collide on one
			// model and two models on one sheet: never both.
			prev, ok := seen[out]
			switch {
			case !ok:
				seen[out] = pair{s.Path, m}
			case prev.sheet == s.Path:
				return fmt.Errorf("models %s and %s would both write %s (a file name cannot hold what tells them apart): run them apart, each with its own -o folder", prev.model, m, out)
			default:
				return fmt.Errorf("%s and %s would both write %s: give each its own -o folder", prev.sheet, s.Path, out)
			}
		}
	}
	return nil
}

// Output is a job made ready to run: the output file its questions fill
// in, as yet unanswered, and how each question's task and record are made
// (Build, in the order of Job.Questions). The plan step makes it and
// checks every question (prompt.Builder); the execute step builds each
// question as it asks it, answers and grades it, and puts it where the
// write step writes it from: a run of a million questions holds those in
// flight, also when it reuses earlier answers (Reuse). What needs every
// question at once (Inspect logs, batches, a dry run's writers) has them
// built and kept (Materialize).
type Output struct {
	Job
	SheetPath string
	// File is the output file's sheet record; its Questions, and Tasks
	// beside them, are filled by Materialize only.
	File  *result.File
	Tasks []model.Task
	// Build makes question i's task and unanswered record; Item is its
	// sheet item (its name, its line), without building it.
	Build func(ctx context.Context, i int) (model.Task, result.Question, error)
	Item  func(i int) *sheet.Item
	// Solve says some question runs code or an agent (the sandbox).
	Solve bool
	// Prefix is what its questions' requests share, marked for the
	// model's prompt cache (model.Request.Prefix); zero when none is.
	Prefix model.Prefix
	// Reuse holds the answers earlier outputs of its sheet and model got
	// to the same requests: the execute step takes each question's from
	// there instead of asking it (see harness/internal/reuse); nil when
	// none is reused (a first run, run --fresh).
	Reuse *reuse.Index
	// Earlier are the earlier outputs of its sheet and model in its
	// folder, oldest first (reuse.Index's): one it would only repeat is
	// not written again (reuse.Repeats), and those it supersedes are
	// moved aside once it is written (reuse.Supersedes), both told by
	// Outline, which the execute step makes as it grades each question
	// when there are earlier outputs.
	Earlier []reuse.Earlier
	Outline *reuse.Outline
	// Current, when set, is the earlier output that holds what this one
	// would (reuse.Repeats): the writers write nothing for it, and it
	// supersedes the earlier outputs as this one would have.
	Current *reuse.Earlier
}

// Len is the number of questions the output asks.
func (o *Output) Len() int { return len(o.Questions) }

// Key is the journal key of question i.
func (o *Output) Key(i int) string { return o.Job.Key(i, o.Item(i).Name) }

// Materialize builds every question and keeps them, in Tasks and
// File.Questions, for what needs them all at once; once is enough.
func (o *Output) Materialize(ctx context.Context) error {
	if o.File.Questions != nil {
		return nil
	}
	tasks, qs := make([]model.Task, o.Len()), make([]result.Question, o.Len())
	for i := range tasks {
		var err error
		if tasks[i], qs[i], err = o.Build(ctx, i); err != nil {
			return err
		}
	}
	o.Tasks, o.File.Questions = tasks, qs
	return nil
}

// Question is question i's task and record: those Materialize kept, else
// built now.
func (o *Output) Question(ctx context.Context, i int) (model.Task, *result.Question, error) {
	if o.File.Questions != nil {
		return o.Tasks[i], &o.File.Questions[i], nil
	}
	t, q, err := o.Build(ctx, i)
	return t, &q, err
}

// Prices are a run's price overrides: One for every model (--price), else
// ByModel's by model name as given (a config file's); neither: the price
// table's.
type Prices struct {
	One     *model.Price
	ByModel map[string]model.Price
}

// For is the price override of the model named name, nil for none.
func (p Prices) For(name string) *model.Price {
	if p.One != nil {
		return p.One
	}
	if q, ok := p.ByModel[name]; ok {
		return &q
	}
	return nil
}
