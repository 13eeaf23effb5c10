// Package runner sends a run's requests to a model: many in flight at once,
// retrying what failed for a passing reason, within the provider's rate
// limits, answering repeats from a content-addressed cache, and journaling
// every answer as it arrives so that a run killed halfway resumes without
// asking (or paying for) an answered question again. It knows nothing of
// sheets or output files: callers turn questions into Jobs and Outcomes
// into output records.
//
// # Concurrency
//
// A Run may hold the jobs of several models (Job.Model). Each server gets
// one pool of Options.Concurrency workers, shared by the models behind it
// (one per model with Options.SeparateLimits; offline models each have
// their own), all pools at once. A pool takes its jobs in the order given,
// so a caller listing jobs sheet by sheet sees sheets finish in turn while
// every slot stays busy across sheet boundaries. Jobs of one Job.Group
// (a sheet's questions sharing a prompt prefix) wait for the first of
// them taken to settle before any is sent, so a provider's prompt cache
// is written once and read by the rest; meanwhile the workers take the
// jobs after them. Run hands each outcome to
// the caller's emit function as it arrives, from Run's own goroutine, one
// at a time. A server that refuses Options.MaxRefusals connections in a
// row (default 20), or 3 when it has refused every one since the run
// began, stops the run: it is down, or the base URL is wrong.
//
// RunJobs takes the jobs as Jobs, built by a worker as it takes each one,
// so a run of a million questions holds those in flight, not a million
// requests; each Outcome says its job's place (Outcome.Index).
//
// With Options.Adaptive (run -c auto) a pool's limit is not fixed: an
// aimd.Limiter per server raises it while every slot answers and lowers
// it when the server shows congestion (a 429, a 503 or 529, a timeout,
// time to first byte, measured with net/http/httptrace, past twice its
// running median). Options.OnLimit is told each change.
//
// # Retries
//
// A failed attempt is retried when the provider classified it as retryable
// (*model.APIError.Retryable: 429, 5xx, resets, timeouts, malformed
// replies), when the per-attempt timeout (Options.Timeout) expired, or when
// an unclassified transport error (timeout, reset, cut reply) reached the
// runner. The wait is exponential backoff with full jitter; a Retry-After
// is a floor for the wait, and it also holds back every other worker's next
// attempt to the same server, since the limit is the account's; it is
// capped at Options.MaxWait (default 5m). An error that no later request
// can escape (model.APIError.Fatal: an account out of credit, a key
// refused) stops the run. The last error, once
// Options.MaxAttempts calls are spent, is the job's Outcome.Err, a
// *JobError naming the model, the question and the attempts. Cancelling
// the run's context stops at once and emits nothing for the cancelled jobs,
// unless the context has a graceful end (internal/grace: a command's first
// Ctrl-C): then nothing new is sent, and the requests in flight are
// answered, journaled and emitted, until the second end (Options.Stopping
// is told how many they are).
//
// # Journal and resume
//
// With Options.Journal, each settled job is appended to a JSON Lines file:
// one record per answer, or per model.ErrNoAnswer, holding the job's key,
// a fingerprint of the task (its RequestKey, which covers the question
// for a model that answers from it), the response text and usage. Final errors
// are not journaled: a rerun asks those questions again, which is what a
// person resuming after an outage wants. Running the same jobs with the
// same journal emits the journaled answers first (Outcome.FromJournal) and
// asks only the rest; a record whose fingerprint no longer matches its job
// (an edited prompt, another model) is not reused, and a warning says so.
// A file lock keeps two runs from sharing a journal.
//
// Durability: each worker appends its answer to the journal, one write(2)
// per record, the moment it arrives, before it is handed on and before the
// caller grades or encodes anything. A process crash (SIGKILL, an OOM kill)
// loses nothing written, since the kernel has it; only the requests in
// flight are lost, and a resume asks (and pays for) those again: at most
// Options.Concurrency per server, however slow the caller. fsync, which
// matters only when the machine itself goes down, runs at most every
// 100 ms and once at the end rather than per line: in the throughput
// benchmark's profile, fsync per batch was most of the runner's own CPU,
// and it guards at most 100 ms of answers against a much rarer event.
//
// Reading rules, chosen so a crash never stops a resume but real damage is
// never ignored: a final line without a newline is a torn write and is
// ignored (and truncated away before appending); blank lines are ignored;
// any other line that is not a valid record is an error naming file:line,
// and the run does not start (delete the line, or the journal, to go on);
// of a key journaled twice, the later record wins.
//
// # Cache
//
// A Cache is a directory of responses addressed by RequestKey: sha256 over
// the model name, base URL and the canonical encoding of every field of
// the request but those keyLeftOut names (the question reference), never
// credentials. The batch journals key requests by it too. A hit answers without a call
// (Outcome.Cached); only answers are stored; entries are written atomically.
// Within a run, jobs with the same key wait for each other, so a repeated
// prompt is paid for once.
//
// # Budget
//
// Options.Budget caps what a run spends (run --max-cost): before each
// attempt, what this run's answers cost plus the worst case of every
// request in flight plus this request's worst case (Budget.Worst: its
// input and max_tokens at list price) must stay within Budget.Max. A
// request that does not fit waits for those in flight, whose worst case
// is given back as each settles and its real cost counted; one that does
// not fit with nothing in flight ends the sending: the requests in flight
// are answered, journaled and emitted, the rest are not sent, and Run
// returns a *BudgetError (the cap, what was spent, the jobs unasked;
// its BudgetReached method lets a command give it an exit status).
// Answers from the journal and the cache cost the run nothing. Measured
// in TestBudgetNeverPassed (400 jobs, -c 16, a $0.50 cap, a worst case
// of $0.018 a request): 50 answered for $0.4869, at most $0.4997 owed
// and held at once.
//
// # Progress
//
// Options.Progress gets a line per run, a part per model (done/total,
// rate, ETA, tokens, cost or "cost unknown", failures): redrawn in place on
// a terminal, written as a plain line every few seconds on any other
// *os.File (a log, a pipe).
// Run returns the run's Stats for the caller to print or record.
package runner
