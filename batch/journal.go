package batch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"

	"github.com/evalmd/evalmd/internal/jsonl"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/model"
)

// Record kinds of the journal, one JSON object a line.
const (
	recTag       = "tag"       // the run tag, first line
	recIntent    = "intent"    // a batch about to be created: its file and requests
	recCreated   = "created"   // the batch the intent became
	recAbandoned = "abandoned" // an intent given up (its requests are asked again)
	recFailed    = "failed"    // a batch that failed as a whole
	recAnswer    = "answer"    // one request's answer
	recCollected = "collected" // every result of a batch is read
)

// record is one line of the journal.
type record struct {
	T    string `json:"t"`
	Tag  string `json:"tag,omitempty"`
	N    int    `json:"n,omitempty"` // the batch's number in this journal
	Time string `json:"time,omitempty"`

	// intent
	File string            `json:"file,omitempty"` // uploaded request file (OpenAI)
	IDs  map[string]string `json:"ids,omitempty"`  // custom_id -> job key
	FPs  map[string]string `json:"fps,omitempty"`  // custom_id -> request fingerprint

	// created, failed
	Batch string `json:"batch,omitempty"`
	Msg   string `json:"msg,omitempty"`

	// answer
	ID           string `json:"id,omitempty"` // custom_id
	Key          string `json:"key,omitempty"`
	FP           string `json:"fp,omitempty"`
	Text         string `json:"text"`
	InputTokens  int    `json:"input_tokens,omitempty"`
	OutputTokens int    `json:"output_tokens,omitempty"`
	Model        string `json:"model,omitempty"`
	FinishReason string `json:"finish_reason,omitempty"`
	Live         bool   `json:"live,omitempty"` // answered live (--batch-fallback live)
	// Reasoning, ReasoningTokens and the cache counts are model.Response's.
	Reasoning        string `json:"reasoning,omitempty"`
	ReasoningTokens  int    `json:"reasoning_tokens,omitempty"`
	CacheReadTokens  int    `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int    `json:"cache_write_tokens,omitempty"`
}

// answerRecord is the answer record of a response, the rest left to the
// caller.
func answerRecord(resp model.Response) record {
	return record{T: recAnswer, Text: resp.Text, InputTokens: resp.InputTokens, OutputTokens: resp.OutputTokens,
		Model: resp.Model, FinishReason: resp.FinishReason, Reasoning: resp.Reasoning, ReasoningTokens: resp.ReasoningTokens,
		CacheReadTokens: resp.CacheReadTokens, CacheWriteTokens: resp.CacheWriteTokens}
}

// response is the response an answer record holds.
func (r record) response() model.Response {
	return model.Response{Text: r.Text, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		Model: r.Model, FinishReason: r.FinishReason, Reasoning: r.Reasoning, ReasoningTokens: r.ReasoningTokens,
		CacheReadTokens: r.CacheReadTokens, CacheWriteTokens: r.CacheWriteTokens}
}

// journal appends records to a locked file.
type journal struct {
	f *jsonl.File
}

// openJournal opens the journal at path for appending (creating it, never
// through a link), locked, reads it and cuts a torn last line away. Reading
// rules are the runner journal's: a final line without a newline is a
// write a crash cut short and is dropped; any other bad line is an error
// naming file:line.
func openJournal(path string) (*journal, []record, error) {
	if err := outfile.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, nil, fmt.Errorf("batch journal: %w", err)
	}
	var recs []record
	f, err := jsonl.Open(path, "batch journal", takeRecord(&recs, path))
	if err != nil {
		return nil, nil, err
	}
	return &journal{f: f}, recs, nil
}

// takeRecord appends each line of the journal name to recs.
func takeRecord(recs *[]record, name string) func(line int, b []byte) error {
	return func(line int, b []byte) error {
		var rec record
		if err := json.Unmarshal(b, &rec); err != nil || rec.T == "" {
			return fmt.Errorf("batch journal %s:%d: not a journal record (delete the line or the journal to go on)", name, line)
		}
		*recs = append(*recs, rec)
		return nil
	}
}

// write appends records in one write and syncs them: a batch's intent
// and id must outlive a crash of the machine, not only of the process,
// since losing them re-buys the batch.
func (j *journal) write(recs ...record) error {
	if j == nil || len(recs) == 0 {
		return nil
	}
	var buf bytes.Buffer
	for _, r := range recs {
		data, err := json.Marshal(r)
		if err != nil {
			return fmt.Errorf("batch journal: %w", err)
		}
		buf.Write(data)
		buf.WriteByte('\n')
	}
	if err := j.f.Append(buf.Bytes()); err != nil {
		return err
	}
	return j.f.Sync()
}

func (j *journal) close() {
	if j == nil {
		return
	}
	j.f.Close()
}
