package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/evalmd/evalmd/internal/jsonl"
	"github.com/evalmd/evalmd/model"
)

// The journal's format, durability and reading rules are described in
// the package doc (doc.go).

// journalRecord is one line of the journal.
type journalRecord struct {
	Version      int    `json:"v,omitempty"` // journalVersion; 0 in records of evalmd before it
	Key          string `json:"key"`
	Fingerprint  string `json:"req"` // fingerprint of the request that was answered
	Text         string `json:"text"`
	NoAnswer     bool   `json:"no_answer,omitempty"`
	InputTokens  int    `json:"input_tokens,omitempty"`
	OutputTokens int    `json:"output_tokens,omitempty"`
	Model        string `json:"model,omitempty"` // model name the provider reported
	FinishReason string `json:"finish_reason,omitempty"`
	// Reasoning, ReasoningTokens and the cache counts are model.Response's.
	Reasoning        string  `json:"reasoning,omitempty"`
	ReasoningTokens  int     `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int     `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int     `json:"cache_write_tokens,omitempty"`
	ElapsedSec       float64 `json:"elapsed"`
	Attempts         int     `json:"attempts,omitempty"`
	Cached           bool    `json:"cached,omitempty"`
	Time             string  `json:"time,omitempty"` // RFC 3339, when it was journaled
	// Work is what a code- or agent-mode answer ran (transcript, code,
	// answer), so a resumed run keeps it without running it again.
	Work *model.ToolRun `json:"work,omitempty"`
}

// outcome rebuilds the Outcome a record stands for.
func (r journalRecord) outcome() Outcome {
	o := Outcome{
		Key: r.Key,
		Response: model.Response{
			Text:             r.Text,
			InputTokens:      r.InputTokens,
			OutputTokens:     r.OutputTokens,
			Model:            r.Model,
			FinishReason:     r.FinishReason,
			Work:             r.Work,
			Reasoning:        r.Reasoning,
			ReasoningTokens:  r.ReasoningTokens,
			CacheReadTokens:  r.CacheReadTokens,
			CacheWriteTokens: r.CacheWriteTokens,
		},
		Elapsed:     time.Duration(r.ElapsedSec * float64(time.Second)),
		Attempts:    r.Attempts,
		Cached:      r.Cached,
		FromJournal: true,
	}
	if r.NoAnswer {
		o.Err = model.ErrNoAnswer
	}
	return o
}

// recordOf is the journal record of a settled outcome.
func recordOf(o Outcome, fp string, now time.Time) journalRecord {
	return journalRecord{
		Version:          journalVersion,
		Key:              o.Key,
		Fingerprint:      fp,
		Text:             o.Response.Text,
		NoAnswer:         errors.Is(o.Err, model.ErrNoAnswer),
		InputTokens:      o.Response.InputTokens,
		OutputTokens:     o.Response.OutputTokens,
		Model:            o.Response.Model,
		FinishReason:     o.Response.FinishReason,
		Reasoning:        o.Response.Reasoning,
		ReasoningTokens:  o.Response.ReasoningTokens,
		CacheReadTokens:  o.Response.CacheReadTokens,
		CacheWriteTokens: o.Response.CacheWriteTokens,
		ElapsedSec:       o.Elapsed.Seconds(),
		Attempts:         o.Attempts,
		Cached:           o.Cached,
		Time:             now.UTC().Format(time.RFC3339Nano),
		Work:             o.Response.Work,
	}
}

// takeRecord reads each line of the journal name into recs, by key.
func takeRecord(recs map[string]journalRecord, name string) func(line int, b []byte) error {
	return func(line int, b []byte) error {
		rec, err := parseRecord(b)
		if err != nil {
			return fmt.Errorf("journal %s:%d: %w (delete this line or the journal to go on)", name, line, err)
		}
		recs[rec.Key] = rec
		return nil
	}
}

func parseRecord(b []byte) (journalRecord, error) {
	var rec journalRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, fmt.Errorf("not a journal record: %w", err)
	}
	if rec.Key == "" {
		return rec, errors.New("record has no key")
	}
	if rec.Fingerprint == "" {
		return rec, fmt.Errorf("record %q has no request fingerprint", rec.Key)
	}
	return rec, nil
}

// journal appends records to a journal file. The workers append to it at
// once, each answer as it arrives; the collector syncs it.
type journal struct {
	f    *jsonl.File
	name string
}

// openJournal opens (creating if needed, never through a link) the
// journal at path, reads what it holds, drops a torn last line and locks
// the file so that two runs cannot append to one journal (each would ask,
// and pay for, the other's questions).
func openJournal(path string) (*journal, map[string]journalRecord, error) {
	recs := make(map[string]journalRecord)
	f, err := jsonl.Open(path, "journal", takeRecord(recs, path))
	if err != nil {
		return nil, nil, err
	}
	return &journal{f: f, name: path}, recs, nil
}

// syncEvery bounds how long a written record may stay without fsync.
const syncEvery = 100 * time.Millisecond

// append writes one record with one write(2). Once a write has failed,
// nothing more is written (a record after a torn one would be lost with
// it) and the first failure is returned again.
func (j *journal) append(rec journalRecord) error {
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("journal %s: record %q: %w", j.name, rec.Key, err)
	}
	return j.f.Append(append(b, '\n'))
}

// sync makes what was written durable, if anything was written since the
// last sync and no write failed.
func (j *journal) sync() error { return j.f.Sync() }

// close releases the lock and closes the file.
func (j *journal) close() error { return j.f.Close() }
