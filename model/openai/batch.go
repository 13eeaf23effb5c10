package openai

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/wire"
)

// OpenAI's limits of one batch (its Batch API guide).
const (
	maxBatchRequests = 50_000
	maxBatchBytes    = 200 << 20
)

// tagKey is the metadata key a batch's run tag is stored under.
const tagKey = "evalmd_run"

// The endpoints a batch's request lines name: one per batch.
const (
	chatEndpoint      = "/v1/chat/completions"
	responsesEndpoint = "/v1/responses"
)

// Batch says a text-completions model cannot be batched.
func (m *textModel) Batch() (model.BatchAPI, error) {
	return nil, fmt.Errorf("model %s: --batch sends chat requests; it does not work with --completion-api", m.cfg.name)
}

// Batch returns the model's batch API: OpenAI's Files and Batches, which
// any server serving them (Azure, hosted OpenAI-compatible services)
// answers too.
func (m *chatModel) Batch() (model.BatchAPI, error) {
	return &batchAPI{cfg: m.cfg, endpoint: chatEndpoint,
		body: func(req model.Request) (any, error) { return m.body(req) },
		reply: func(data []byte) (model.Response, error) {
			var out completion
			if err := json.Unmarshal(data, &out); err != nil {
				return model.Response{}, err
			}
			return m.response(&out)
		}}, nil
}

// batchAPI is OpenAI's Files and Batches APIs for one model and endpoint:
// each request line carries the body a live request of the endpoint
// would, made by body, and each answer is read by reply, as a live one is.
type batchAPI struct {
	cfg      config
	endpoint string // chatEndpoint or responsesEndpoint
	body     func(model.Request) (any, error)
	// reply reads an answer's body; a body that is not the endpoint's
	// JSON is an error, any other failure the Response's.
	reply func(body []byte) (model.Response, error)
}

// BatchLimits are OpenAI's.
func (m *batchAPI) BatchLimits() model.BatchLimits {
	return model.BatchLimits{MaxRequests: maxBatchRequests, MaxBytes: maxBatchBytes}
}

// batchLine is one line of a batch input file.
type batchLine struct {
	CustomID string `json:"custom_id"`
	Method   string `json:"method"`
	URL      string `json:"url"`
	Body     any    `json:"body"`
}

// BatchLine encodes req as the live request's body, wrapped in a batch
// line.
func (m *batchAPI) BatchLine(customID string, req model.Request) ([]byte, error) {
	params, err := m.body(req)
	if err != nil {
		return nil, m.cfg.wrap(err)
	}
	line, err := json.Marshal(batchLine{CustomID: customID, Method: http.MethodPost, URL: m.endpoint, Body: params})
	if err != nil {
		return nil, m.cfg.wrap(err)
	}
	return line, nil
}

// failed names the call of the Files or Batches API that failed; a 404
// or 405 says the server does not serve that API.
func (m *batchAPI) failed(what string, err error) error {
	var ae *model.APIError
	if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusMethodNotAllowed) {
		return fmt.Errorf("model %s: %s: the server at %s does not serve OpenAI's Files and Batches APIs, which --batch needs (%w)",
			m.cfg.name, what, m.cfg.info.BaseURL, err)
	}
	return fmt.Errorf("model %s: %s: %w", m.cfg.name, what, err)
}

// UploadBatch uploads the request lines as a file for a batch.
func (m *batchAPI) UploadBatch(ctx context.Context, lines []byte) (string, error) {
	const what = "uploading the batch's request file"
	var f struct{ ID string }
	if err := m.cfg.api.Upload(ctx, "/files", map[string]string{"purpose": "batch"},
		"file", "evalmd-batch.jsonl", "application/jsonl", lines, &f); err != nil {
		return "", m.failed(what, err)
	}
	if f.ID == "" {
		return "", fmt.Errorf("model %s: %s: the server returned no file id", m.cfg.name, what)
	}
	return f.ID, nil
}

// batchRequest is the body of POST /batches.
type batchRequest struct {
	InputFileID      string            `json:"input_file_id"`
	Endpoint         string            `json:"endpoint"`
	CompletionWindow string            `json:"completion_window"`
	Metadata         map[string]string `json:"metadata"`
}

// batch is the part of a batch object read.
type batch struct {
	ID            string                                 `json:"id"`
	Status        string                                 `json:"status"`
	InputFileID   string                                 `json:"input_file_id"`
	OutputFileID  string                                 `json:"output_file_id"`
	ErrorFileID   string                                 `json:"error_file_id"`
	Metadata      map[string]string                      `json:"metadata"`
	CreatedAt     int64                                  `json:"created_at"`
	ExpiresAt     int64                                  `json:"expires_at"`
	RequestCounts struct{ Total, Completed, Failed int } `json:"request_counts"`
	Errors        struct {
		Data []struct {
			Code, Message string
			Line          int
		}
	} `json:"errors"`
}

// CreateBatch starts a 24-hour batch of an uploaded file, tagged.
func (m *batchAPI) CreateBatch(ctx context.Context, fileID string, _ []byte, tag string) (model.BatchInfo, error) {
	var b batch
	if err := m.cfg.api.Post(ctx, "/batches", batchRequest{InputFileID: fileID, Endpoint: m.endpoint,
		CompletionWindow: "24h", Metadata: map[string]string{tagKey: tag}}, &b); err != nil {
		return model.BatchInfo{}, m.failed("creating a batch", err)
	}
	if b.ID == "" {
		return model.BatchInfo{}, fmt.Errorf("model %s: creating a batch: the server returned no batch id", m.cfg.name)
	}
	return batchInfo(&b), nil
}

// FindBatches pages through the account's batches, newest first, down to
// since, and returns those tagged tag.
func (m *batchAPI) FindBatches(ctx context.Context, tag string, since time.Time) ([]model.BatchInfo, error) {
	var found []model.BatchInfo
	after := ""
	for page := 0; page < 1000; page++ {
		path := "/batches?limit=100"
		if after != "" {
			path += "&after=" + url.QueryEscape(after)
		}
		var p struct {
			Data    []batch `json:"data"`
			HasMore bool    `json:"has_more"`
		}
		if err := m.cfg.api.Get(ctx, path, &p); err != nil {
			return nil, m.failed("listing batches", err)
		}
		older := false
		for i := range p.Data {
			if p.Data[i].Metadata[tagKey] == tag && tag != "" {
				found = append(found, batchInfo(&p.Data[i]))
			}
			if time.Unix(p.Data[i].CreatedAt, 0).Before(since) {
				older = true
			}
		}
		if !p.HasMore || older || len(p.Data) == 0 {
			return found, nil
		}
		after = p.Data[len(p.Data)-1].ID
	}
	return found, nil
}

// GetBatch reports a batch's state.
func (m *batchAPI) GetBatch(ctx context.Context, id string) (model.BatchInfo, error) {
	var b batch
	if err := m.cfg.api.Get(ctx, "/batches/"+id, &b); err != nil {
		return model.BatchInfo{}, m.failed("batch "+id, err)
	}
	return batchInfo(&b), nil
}

// batchInfo folds OpenAI's batch statuses into model.BatchState.
func batchInfo(b *batch) model.BatchInfo {
	info := model.BatchInfo{
		ID: b.ID, Status: b.Status, InputFile: b.InputFileID, Tag: b.Metadata[tagKey],
		OutputFile: b.OutputFileID, ErrorFile: b.ErrorFileID,
		Total: b.RequestCounts.Total, Succeeded: b.RequestCounts.Completed, Failed: b.RequestCounts.Failed,
		Created: time.Unix(b.CreatedAt, 0),
	}
	if b.ExpiresAt != 0 {
		info.ExpiresAt = time.Unix(b.ExpiresAt, 0)
	}
	switch b.Status {
	case "completed", "expired", "cancelled":
		info.State = model.BatchEnded
	case "failed":
		info.State = model.BatchFailed
		for _, e := range b.Errors.Data {
			if info.Message != "" {
				info.Message += "; "
			}
			if e.Line != 0 {
				info.Message += fmt.Sprintf("line %d: ", e.Line)
			}
			info.Message += e.Code + ": " + e.Message
		}
	}
	return info
}

// resultLine is one line of a batch's output or error file.
type resultLine struct {
	CustomID string `json:"custom_id"`
	Response *struct {
		StatusCode int             `json:"status_code"`
		Body       json.RawMessage `json:"body"`
	} `json:"response"`
	Error *struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// BatchResults reads an ended batch's output file (answers) and error file
// (requests that failed or expired).
func (m *batchAPI) BatchResults(ctx context.Context, b model.BatchInfo, fn func(model.BatchResult) error) error {
	for _, file := range []string{b.OutputFile, b.ErrorFile} {
		if file == "" {
			continue
		}
		if err := m.readResults(ctx, b.ID, file, fn); err != nil {
			return err
		}
	}
	return nil
}

func (m *batchAPI) readResults(ctx context.Context, batchID, file string, fn func(model.BatchResult) error) error {
	// The file may be large: the request timeout bounds getting its
	// headers, the caller's context its reading.
	body, err := m.cfg.api.Open(ctx, "/files/"+file+"/content")
	if err != nil {
		return m.failed("batch "+batchID+": results file "+file, err)
	}
	defer body.Close()
	err = wire.Results(body, m.cfg.label, m.cfg.api.MaxReply, m.resultOf, fn)
	if err != nil {
		return fmt.Errorf("model %s: batch %s: results file %s: %w", m.cfg.name, batchID, file, err)
	}
	return nil
}

// resultOf reads one result line: an answer is read by the same code as a
// live reply, an error classified as a live error of its status would be.
func (m *batchAPI) resultOf(line []byte) (model.BatchResult, error) {
	var l resultLine
	if err := json.Unmarshal(line, &l); err != nil {
		return model.BatchResult{}, fmt.Errorf("not a batch result: %w", err)
	}
	if l.CustomID == "" {
		return model.BatchResult{}, errors.New("batch result without a custom_id")
	}
	r := model.BatchResult{CustomID: l.CustomID}
	switch {
	case l.Response != nil && l.Response.StatusCode == http.StatusOK:
		res, err := m.reply(l.Response.Body)
		var ae *model.APIError
		if err != nil && !errors.As(err, &ae) {
			err = &model.APIError{Provider: m.cfg.label, Retryable: true, Message: "malformed reply in batch output: " + err.Error()}
		}
		r.Response, r.Err = res, err
	case l.Response != nil && l.Response.StatusCode != 0:
		r.Err = wire.StatusError(m.cfg.label, m.cfg.key, l.Response.StatusCode, l.Response.Body)
	case l.Error != nil:
		// batch_expired, batch_cancelled, or a failure the server did not
		// give a status for: sending the request again may succeed.
		r.Err = &model.APIError{Provider: m.cfg.label, Retryable: true,
			Message: wire.Truncate("batch: "+l.Error.Code+": "+l.Error.Message, m.cfg.key, 500)}
	default:
		r.Err = &model.APIError{Provider: m.cfg.label, Retryable: true, Message: "batch result with neither a response nor an error"}
	}
	return r, nil
}
