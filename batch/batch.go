// Package batch sends a run's requests through a provider's batch API
// (model.BatchAPI: OpenAI's Batches, Anthropic's Message Batches), at the
// provider's batch price, and brings every answer back to the caller.
//
// # Lifecycle
//
// Run splits the requests into batches at the provider's limits, and for
// each uploads its request file (OpenAI), journals the intent (file id,
// custom_ids, request fingerprints), creates the batch (tagged with the
// run's tag in its metadata where the provider has metadata) and journals
// its id at once. It then polls every batch until each has ended, reads
// the results (matched to requests by custom_id), journals the answers and
// hands them to the caller. Requests that errored for a passing reason or
// expired are sent again in a new batch, twice by default, or live through
// Options.Live; a request the API refused is a final error. Run returns
// the run's Stats: the jobs answered (from the journal, by a batch or
// live) or failed, the batches created and those reclaimed by their tag,
// the requests submitted and sent again, and the tokens of every answer.
//
// # Stopping and resuming
//
// Cancelling the context (Ctrl-C) stops polling and leaves the batches
// running. Running the same jobs with the same journal collects them: the
// journaled answers are handed over first, batches journaled as created
// are polled again, and an intent without a batch id (a kill between
// creating a batch and journaling its id) is reconciled by listing the
// batches that carry the run's tag: a batch made from the intent's file is
// taken up again, so nothing is bought twice; none found, the batch is
// created from the file already uploaded. Anthropic's batches carry no
// metadata: for them that window (between the server accepting a batch and
// the journal holding its id, one fsync) cannot be reconciled, and a rerun
// says so and sends those requests again.
package batch

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/runner"
)

// Job is one request to send, named by a key unique within the run (the
// runner's job key). Its Task's Request is what is sent; the whole Task
// is keyed, as the runner keys it.
type Job struct {
	Key  string
	Task model.Task
}

// Outcome is how a job ended.
type Outcome struct {
	Key      string
	Response model.Response
	// Err is the request's final error (refused by the API, or still
	// failing after the retries); nil for an answer.
	Err error
	// BatchID is the batch that answered; "" when answered live. A batch
	// answer is priced at the batch price.
	BatchID     string
	Live        bool // answered live (Options.Live)
	FromJournal bool // answered in an earlier run of the same journal
}

// Options tune Run.
type Options struct {
	// Journal is the path of the batch journal; "" keeps the state in
	// memory only (a stopped run cannot then be collected).
	Journal string
	// Model (provider/model) and BaseURL (its server) key the requests in
	// the journal with the request's RequestKey, as the runner's cache
	// does: a journaled answer is reused only for the very request.
	Model, BaseURL string
	// Poll is the wait between status checks; default 30 s.
	Poll time.Duration
	// Retries is how many new batches a request that errored for a passing
	// reason or expired is sent in; default 2, negative for none.
	Retries int
	// Live, when set, answers such requests live instead of in a new
	// batch (--batch-fallback live). It emits from one goroutine.
	Live func(ctx context.Context, jobs []Job, emit func(Outcome)) error
	// Limits, when set, replace the provider's batch limits (tests).
	Limits model.BatchLimits
	// Progress receives a line per poll: batches submitted, in progress
	// and done, requests answered; nil is quiet.
	Progress io.Writer
	// Warn receives what does not stop the run; nil discards it.
	Warn func(string)
	// Sleep and Now replace the clock in tests.
	Sleep func(ctx context.Context, d time.Duration) error
	Now   func() time.Time
}

// Stats sum a run.
type Stats struct {
	Jobs        int
	FromJournal int // answered in an earlier run
	Answered    int // answered, from any source
	Failed      int // ended with an error
	Live        int // answered live by the fallback
	Batches     int // batches created by this run
	Submitted   int // requests in the batches this run created
	Reclaimed   int // batches found again by their tag after a kill
	Retried     int // requests sent again in a new batch
	// InputTokens and OutputTokens sum the answers, journaled ones too.
	InputTokens, OutputTokens int
}

// File is one batch's request file: lines in the provider's format.
type File struct {
	Lines []byte   // one request a line, each ending in a newline
	IDs   []string // the custom_ids, in order
}

// customID is the custom_id of a job key: short, and of the characters
// every provider accepts.
func customID(key string) string {
	sum := sha256.Sum256([]byte(key))
	return "r" + hex.EncodeToString(sum[:12])
}

// item is one job as Run tracks it.
type item struct {
	job  Job
	cid  string
	line []byte
	fp   string // the request's key (runner.RequestKey), as the cache keys it
	// lineFP is how journals before evalmd's v3 request keys named the
	// request: the hash of its batch line. It is still accepted, so the
	// batches in flight across an upgrade are collected, not bought again.
	lineFP   string
	attempts int // batches of this run that held it
	done     bool
}

// is reports whether a journaled fingerprint names this item's request.
func (it *item) is(fp string) bool {
	return fp != "" && (fp == it.fp || fp == it.lineFP)
}

// tracked is a created batch not yet collected.
type tracked struct {
	n    int
	ids  map[string]string // custom_id -> key
	fps  map[string]string
	info model.BatchInfo
}

type manager struct {
	api   model.BatchAPI
	opt   Options
	lim   model.BatchLimits
	j     *journal
	tag   string
	items map[string]*item // by custom_id
	order []*item
	emit  func(Outcome)
	stats Stats
	nextN int
	run   []*tracked // batches in flight
	done  int        // batches collected in this run
}

// Plan builds the request files the jobs make, split at the provider's
// limits (or limits, when set): what Run submits, for a dry run to write.
func Plan(api model.BatchAPI, jobs []Job, limits model.BatchLimits) ([]File, error) {
	m := &manager{api: api, lim: limitsOf(api, limits), items: map[string]*item{}}
	if err := m.build(jobs); err != nil {
		return nil, err
	}
	return m.split(m.order)
}

func limitsOf(api model.BatchAPI, over model.BatchLimits) model.BatchLimits {
	lim := api.BatchLimits()
	if over.MaxRequests > 0 {
		lim.MaxRequests = over.MaxRequests
	}
	if over.MaxBytes > 0 {
		lim.MaxBytes = over.MaxBytes
	}
	return lim
}

// build encodes every job's line with the provider's live request code.
func (m *manager) build(jobs []Job) error {
	for _, j := range jobs {
		cid := customID(j.Key)
		if prev, ok := m.items[cid]; ok {
			return fmt.Errorf("batch: jobs %q and %q have one custom_id", prev.job.Key, j.Key)
		}
		line, err := m.api.BatchLine(cid, j.Task.Request)
		if err != nil {
			return fmt.Errorf("question %q: %w", j.Task.Question.Name, err) // the provider names the model
		}
		sum := sha256.Sum256(line)
		it := &item{job: j, cid: cid, line: line, fp: runner.RequestKey(m.opt.Model, model.Info{BaseURL: m.opt.BaseURL}, j.Task),
			lineFP: hex.EncodeToString(sum[:16])}
		m.items[cid] = it
		m.order = append(m.order, it)
	}
	return nil
}

// split cuts items into files at the limits.
func (m *manager) split(items []*item) ([]File, error) {
	var files []File
	var cur File
	for _, it := range items {
		size := int64(len(it.line) + 1)
		if size > m.lim.MaxBytes {
			return nil, fmt.Errorf("batch: request %q is %d bytes, over the %d a batch may hold", it.job.Key, size, m.lim.MaxBytes)
		}
		if len(cur.IDs) > 0 && (len(cur.IDs)+1 > m.lim.MaxRequests || int64(len(cur.Lines))+size > m.lim.MaxBytes) {
			files = append(files, cur)
			cur = File{}
		}
		cur.Lines = append(append(cur.Lines, it.line...), '\n')
		cur.IDs = append(cur.IDs, it.cid)
	}
	if len(cur.IDs) > 0 {
		files = append(files, cur)
	}
	return files, nil
}

// Run sends the jobs in batches and emits each outcome, from Run's own
// goroutine, until every job has one; see the package doc. On
// cancellation it returns the context's error with the batches left
// running, collectable by running again with the same journal.
func Run(ctx context.Context, api model.BatchAPI, jobs []Job, opt Options, emit func(Outcome)) (Stats, error) {
	opt = opt.withDefaults()
	m := &manager{api: api, opt: opt, lim: limitsOf(api, opt.Limits), items: map[string]*item{}, emit: emit, nextN: 1}
	m.stats.Jobs = len(jobs)
	if err := m.build(jobs); err != nil {
		return m.stats, err
	}
	if opt.Journal != "" {
		j, recs, err := openJournal(opt.Journal)
		if err != nil {
			return m.stats, err
		}
		defer j.close()
		m.j = j
		if err := m.resume(ctx, recs); err != nil {
			return m.stats, err
		}
	}
	if m.tag == "" {
		m.tag = newTag()
		if err := m.j.write(record{T: recTag, Tag: m.tag}); err != nil {
			return m.stats, err
		}
	}
	pending := m.unsent()
	failedPolls := 0
	for len(pending) > 0 || len(m.run) > 0 {
		if len(pending) > 0 {
			if err := m.submit(ctx, pending); err != nil {
				return m.stats, err
			}
			pending = nil
		}
		m.progress()
		if err := opt.Sleep(ctx, opt.Poll); err != nil {
			return m.stats, err
		}
		more, err := m.poll(ctx, &failedPolls)
		if err != nil {
			return m.stats, err
		}
		pending = more
	}
	m.progress()
	return m.stats, nil
}

// withDefaults fills in the options left zero.
func (opt Options) withDefaults() Options {
	if opt.Poll <= 0 {
		opt.Poll = 30 * time.Second
	}
	if opt.Retries == 0 {
		opt.Retries = 2
	}
	if opt.Warn == nil {
		opt.Warn = func(string) {}
	}
	if opt.Sleep == nil {
		opt.Sleep = sleep
	}
	if opt.Now == nil {
		opt.Now = time.Now
	}
	return opt
}

// unsent is the items neither answered nor in a batch in flight (a
// batch's item counts as sent once).
func (m *manager) unsent() []*item {
	var pending []*item
	inFlight := map[string]bool{}
	for _, b := range m.run {
		for cid, fp := range b.fps {
			if it := m.items[cid]; it != nil && it.is(fp) {
				inFlight[cid] = true
				it.attempts = 1
			}
		}
	}
	for _, it := range m.order {
		if !it.done && !inFlight[it.cid] {
			pending = append(pending, it)
		}
	}
	return pending
}

// poll checks every batch in flight once, collects those that ended and
// returns the items to send again. failedPolls counts the polls in a row
// that failed for a passing reason; the tenth stops the run.
func (m *manager) poll(ctx context.Context, failedPolls *int) ([]*item, error) {
	var pending []*item
	var still []*tracked
	for _, b := range m.run {
		info, err := m.api.GetBatch(ctx, b.info.ID)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			var ae *model.APIError
			if *failedPolls++; errors.As(err, &ae) && ae.Retryable && *failedPolls < 10 {
				m.opt.Warn(fmt.Sprintf("%v (the batches keep running; polling again)", err))
				still = append(still, b)
				continue
			}
			return nil, fmt.Errorf("%w; the batches keep running: rerun the same command to collect them", err)
		}
		*failedPolls = 0
		b.info = info
		var more []*item
		switch info.State {
		case model.BatchRunning:
			still = append(still, b)
		case model.BatchFailed:
			more, err = m.failed(ctx, b)
		case model.BatchEnded:
			more, err = m.collect(ctx, b)
			m.done++
		}
		if err != nil {
			return nil, err
		}
		pending = append(pending, more...)
	}
	m.run = still
	return pending, nil
}

// failed settles a batch that failed as a whole: each of its requests
// failed for a passing reason.
func (m *manager) failed(ctx context.Context, b *tracked) ([]*item, error) {
	info := b.info
	msg := info.Message
	if msg == "" {
		msg = "failed (" + info.Status + ")"
	}
	if err := m.j.write(record{T: recFailed, N: b.n, Batch: info.ID, Msg: msg}); err != nil {
		return nil, err
	}
	m.done++
	var failed []failure
	for cid := range b.ids {
		failed = append(failed, failure{cid, &model.APIError{Provider: "batch", Retryable: true, Message: "batch " + info.ID + " failed: " + msg}})
	}
	return m.settle(ctx, info.ID, failed)
}

// intent is a batch the journal says was meant, and what became of it.
type intent struct {
	rec                        record
	batch                      string
	abandoned, failed, collect bool
}

// resume replays the journal: answers are emitted, created batches
// tracked again, and intents without a batch reconciled.
func (m *manager) resume(ctx context.Context, recs []record) error {
	intents, ns := m.replay(recs)
	for _, n := range ns {
		in := intents[n]
		if in.abandoned || in.failed || in.collect {
			continue
		}
		b := &tracked{n: n, ids: in.rec.IDs, fps: in.rec.FPs}
		if in.batch != "" {
			b.info = model.BatchInfo{ID: in.batch}
			m.run = append(m.run, b)
			continue
		}
		if err := m.reconcile(ctx, in, b); err != nil {
			return err
		}
	}
	return nil
}

// replay reads the journal's records: the run's tag, the answers (each
// emitted) and the intents, by number, with the numbers in order.
func (m *manager) replay(recs []record) (map[int]*intent, []int) {
	intents := map[int]*intent{}
	var ns []int
	stale := 0
	for _, r := range recs {
		switch r.T {
		case recTag:
			m.tag = r.Tag
		case recIntent:
			intents[r.N] = &intent{rec: r}
			ns = append(ns, r.N)
			m.nextN = max(m.nextN, r.N+1)
		case recCreated, recAbandoned, recFailed, recCollected:
			in := intents[r.N]
			if in == nil {
				continue
			}
			switch r.T {
			case recCreated:
				in.batch = r.Batch
			case recAbandoned:
				in.abandoned = true
			case recFailed:
				in.failed = true
			case recCollected:
				in.collect = true
			}
		case recAnswer:
			if !m.replayAnswer(r) {
				stale++
			}
		}
	}
	if stale > 0 {
		m.opt.Warn(fmt.Sprintf("batch journal %s: %d answers are for requests that have changed since; they are asked again", m.opt.Journal, stale))
	}
	return intents, ns
}

// replayAnswer emits a journaled answer of a job not yet answered; false
// when it answers a request that has changed since.
func (m *manager) replayAnswer(r record) bool {
	it := m.items[r.ID]
	if it == nil || it.done {
		return true
	}
	if !it.is(r.FP) || it.job.Key != r.Key {
		return false
	}
	it.done = true
	o := Outcome{Key: it.job.Key, FromJournal: true, Live: r.Live, Response: r.response()}
	if !r.Live {
		o.BatchID = r.Batch
	}
	m.stats.FromJournal++
	m.answered(o)
	return true
}

// reconcile settles an intent whose batch id the journal lacks (a kill
// came between the intent and the batch's id): the batch made from its
// file, found by the run's tag, is tracked again; none found, the batch
// is created now, unless the requests changed since the file was
// uploaded, when the intent is abandoned.
func (m *manager) reconcile(ctx context.Context, in *intent, b *tracked) error {
	n := b.n
	since := time.Time{}
	if t, err := time.Parse(time.RFC3339Nano, in.rec.Time); err == nil {
		since = t.Add(-time.Hour)
	}
	found, err := m.api.FindBatches(ctx, m.tag, since)
	if errors.Is(err, model.ErrBatchNoTags) {
		m.opt.Warn(fmt.Sprintf("batch journal %s: batch %d (%d requests, sent at %s) has no id: if the provider accepted it before the run stopped, "+
			"it runs unclaimed (this provider's batches cannot be found by tag); its requests are sent again", m.opt.Journal, n, len(b.ids), in.rec.Time))
		return m.j.write(record{T: recAbandoned, N: n})
	}
	if err != nil {
		return fmt.Errorf("reconciling the batch journal %s (nothing is sent before the batches of its run are known): %w", m.opt.Journal, err)
	}
	for i := range found {
		if in.rec.File != "" && found[i].InputFile == in.rec.File {
			b.info = found[i]
			if err := m.j.write(record{T: recCreated, N: n, Batch: found[i].ID}); err != nil {
				return err
			}
			m.stats.Reclaimed++
			m.run = append(m.run, b)
			return nil
		}
	}
	// No batch was made from the file: make it now, unless the
	// requests changed since it was uploaded.
	same := in.rec.File != ""
	for cid, fp := range b.fps {
		if it := m.items[cid]; it == nil || it.done || !it.is(fp) {
			same = false
		}
	}
	if !same {
		return m.j.write(record{T: recAbandoned, N: n})
	}
	return m.create(ctx, b, in.rec.File, nil)
}

// submit puts items into new batches.
func (m *manager) submit(ctx context.Context, items []*item) error {
	files, err := m.split(items)
	if err != nil {
		return err
	}
	for _, f := range files {
		file, err := m.api.UploadBatch(ctx, f.Lines)
		if err != nil {
			return err
		}
		b := &tracked{n: m.nextN, ids: map[string]string{}, fps: map[string]string{}}
		m.nextN++
		for _, cid := range f.IDs {
			it := m.items[cid]
			b.ids[cid], b.fps[cid] = it.job.Key, it.fp
		}
		if err := m.j.write(record{T: recIntent, N: b.n, File: file, IDs: b.ids, FPs: b.fps,
			Time: m.opt.Now().UTC().Format(time.RFC3339Nano)}); err != nil {
			return err
		}
		if err := m.create(ctx, b, file, f.Lines); err != nil {
			return err
		}
	}
	return nil
}

// create makes the batch of an intent and journals its id.
func (m *manager) create(ctx context.Context, b *tracked, file string, lines []byte) error {
	if lines == nil && file == "" {
		return fmt.Errorf("batch %d: neither a file nor requests", b.n)
	}
	// Ctrl-C does not cut a create short: its reply holds the id that
	// must be journaled (the request timeout still bounds it).
	info, err := m.api.CreateBatch(context.WithoutCancel(ctx), file, lines, m.tag)
	if err != nil {
		return fmt.Errorf("%w (the batch journal %s keeps the intent; a rerun of the same command checks whether the batch was made)", err, m.opt.Journal)
	}
	if err := m.j.write(record{T: recCreated, N: b.n, Batch: info.ID}); err != nil {
		return err
	}
	b.info = info
	m.run = append(m.run, b)
	m.stats.Batches++
	m.stats.Submitted += len(b.ids)
	for cid := range b.ids {
		if it := m.items[cid]; it != nil {
			it.attempts++
		}
	}
	return nil
}

// failure is a request that a batch did not answer.
type failure struct {
	cid string
	err error
}

// collect reads an ended batch's results: answers are journaled (with
// the batch marked collected, in one write) and emitted; failures settled.
func (m *manager) collect(ctx context.Context, b *tracked) ([]*item, error) {
	var recs []record
	var outs []Outcome
	var failed []failure
	seen := map[string]bool{}
	err := m.api.BatchResults(ctx, b.info, func(r model.BatchResult) error {
		key, ok := b.ids[r.CustomID]
		it := m.items[r.CustomID]
		if !ok || it == nil || seen[r.CustomID] || it.done || !it.is(b.fps[r.CustomID]) {
			return nil // not asked by this batch, or asked since in another form
		}
		seen[r.CustomID] = true
		if r.Err != nil {
			failed = append(failed, failure{r.CustomID, r.Err})
			return nil
		}
		resp := r.Response
		rec := answerRecord(resp)
		rec.N, rec.Batch, rec.ID, rec.Key, rec.FP = b.n, b.info.ID, r.CustomID, key, it.fp
		recs = append(recs, rec)
		outs = append(outs, Outcome{Key: key, Response: resp, BatchID: b.info.ID})
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("%w; rerun the same command to collect the batch again", err)
	}
	ids := make([]string, 0, len(b.ids))
	for cid := range b.ids {
		ids = append(ids, cid)
	}
	sort.Strings(ids)
	for _, cid := range ids {
		if it := m.items[cid]; it != nil && !seen[cid] && !it.done && it.is(b.fps[cid]) {
			failed = append(failed, failure{cid, &model.APIError{Provider: "batch", Retryable: true,
				Message: "batch " + b.info.ID + " (" + b.info.Status + ") has no result for this request"}})
		}
	}
	recs = append(recs, record{T: recCollected, N: b.n, Batch: b.info.ID})
	if err := m.j.write(recs...); err != nil {
		return nil, err
	}
	for _, o := range outs {
		m.items[customID(o.Key)].done = true
		m.answered(o)
	}
	return m.settle(ctx, b.info.ID, failed)
}

// settle decides the fate of failed requests: a new batch, the live
// fallback, or a final error. It returns those for a new batch.
func (m *manager) settle(ctx context.Context, batchID string, failed []failure) ([]*item, error) {
	var again []*item
	var live []Job
	for _, f := range failed {
		it := m.items[f.cid]
		if it == nil || it.done {
			continue
		}
		var ae *model.APIError
		passing := errors.As(f.err, &ae) && ae.Retryable
		switch {
		case passing && m.opt.Live != nil:
			live = append(live, it.job)
		case passing && m.opt.Retries > 0 && it.attempts <= m.opt.Retries:
			m.stats.Retried++
			again = append(again, it)
		default:
			it.done = true
			m.stats.Failed++
			m.emit(Outcome{Key: it.job.Key, Err: fmt.Errorf("batch %s: %w", batchID, f.err), BatchID: batchID})
		}
	}
	if len(live) > 0 {
		err := m.opt.Live(ctx, live, func(o Outcome) {
			it := m.items[customID(o.Key)]
			if it == nil || it.done {
				return
			}
			it.done = true
			o.Live, o.BatchID = true, ""
			if o.Err != nil {
				m.stats.Failed++
				m.emit(o)
				return
			}
			r := o.Response
			rec := answerRecord(r)
			rec.ID, rec.Key, rec.FP, rec.Live = it.cid, o.Key, it.fp, true
			if err := m.j.write(rec); err != nil {
				m.opt.Warn(err.Error())
			}
			m.stats.Live++
			m.answered(o)
		})
		if err != nil {
			return nil, err
		}
	}
	return again, nil
}

func (m *manager) answered(o Outcome) {
	m.stats.Answered++
	m.stats.InputTokens += o.Response.InputTokens
	m.stats.OutputTokens += o.Response.OutputTokens
	m.emit(o)
}

// progress writes one line: batches submitted (not yet seen running), in
// progress and done, and requests answered.
func (m *manager) progress() {
	if m.opt.Progress == nil {
		return
	}
	submitted, running := 0, 0
	for _, b := range m.run {
		switch b.info.Status {
		case "", "validating":
			submitted++
		default:
			running++
		}
	}
	settled := m.stats.Answered + m.stats.Failed
	fmt.Fprintf(m.opt.Progress, "batch: %d submitted, %d in progress, %d done; %d/%d requests settled (%d failed)\n",
		submitted, running, m.done, settled, m.stats.Jobs, m.stats.Failed)
}

func newTag() string {
	b := make([]byte, 12)
	_, _ = rand.Read(b)
	return "evalmd-" + hex.EncodeToString(b)
}

func sleep(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// API returns the batch API of a model, or an error naming the model when
// it has none.
func API(m model.Model) (model.BatchAPI, error) {
	b, ok := m.(model.Batcher)
	if !ok {
		return nil, fmt.Errorf("--batch: model %s has no batch API (OpenAI-compatible servers with the Files and Batches APIs, and Anthropic, have one)", m.Name())
	}
	api, err := b.Batch()
	if err != nil {
		return nil, fmt.Errorf("--batch: %w", err)
	}
	return api, nil
}
