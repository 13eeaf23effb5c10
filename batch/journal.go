package batch

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/evalmd/evalmd/internal/filelock"
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
	// Reasoning and ReasoningTokens are model.Response's.
	Reasoning       string `json:"reasoning,omitempty"`
	ReasoningTokens int    `json:"reasoning_tokens,omitempty"`
}

// answerRecord is the answer record of a response, the rest left to the
// caller.
func answerRecord(resp model.Response) record {
	return record{T: recAnswer, Text: resp.Text, InputTokens: resp.InputTokens, OutputTokens: resp.OutputTokens,
		Model: resp.Model, FinishReason: resp.FinishReason, Reasoning: resp.Reasoning, ReasoningTokens: resp.ReasoningTokens}
}

// response is the response an answer record holds.
func (r record) response() model.Response {
	return model.Response{Text: r.Text, InputTokens: r.InputTokens, OutputTokens: r.OutputTokens,
		Model: r.Model, FinishReason: r.FinishReason, Reasoning: r.Reasoning, ReasoningTokens: r.ReasoningTokens}
}

// journal appends records to a locked file.
type journal struct {
	path   string
	f      *os.File
	unlock func()
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
	f, err := outfile.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("batch journal: %w", err)
	}
	unlock, err := filelock.Lock(f)
	if err != nil {
		f.Close()
		return nil, nil, fmt.Errorf("batch journal %s is in use by another run (%v)", path, err)
	}
	fail := func(err error) (*journal, []record, error) {
		unlock()
		f.Close()
		return nil, nil, err
	}
	recs, good, err := readJournal(f, path)
	if err != nil {
		return fail(err)
	}
	if err := f.Truncate(good); err != nil {
		return fail(fmt.Errorf("batch journal: %w", err))
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		return fail(fmt.Errorf("batch journal: %w", err))
	}
	return &journal{path: path, f: f, unlock: unlock}, recs, nil
}

func readJournal(r io.Reader, name string) (recs []record, good int64, err error) {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF {
			return recs, good, nil // a torn last line, or nothing
		}
		if err != nil {
			return nil, 0, fmt.Errorf("batch journal %s:%d: %w", name, line, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			var rec record
			if err := json.Unmarshal(b, &rec); err != nil || rec.T == "" {
				return nil, 0, fmt.Errorf("batch journal %s:%d: not a journal record (delete the line or the journal to go on)", name, line)
			}
			recs = append(recs, rec)
		}
		good += int64(len(b))
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
	if _, err := j.f.Write(buf.Bytes()); err != nil {
		return fmt.Errorf("batch journal %s: %w", j.path, err)
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("batch journal %s: %w", j.path, err)
	}
	return nil
}

func (j *journal) close() {
	if j == nil {
		return
	}
	j.unlock()
	j.f.Close()
}
