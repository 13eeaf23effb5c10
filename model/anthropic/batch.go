package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/internal/wire"
)

// Anthropic's limits of one Message Batch.
const (
	maxBatchRequests = 100_000
	maxBatchBytes    = 256 << 20
)

// Batch returns the model's Message Batches API.
func (m *messagesModel) Batch() (model.BatchAPI, error) { return m, nil }

// BatchLimits are Anthropic's.
func (m *messagesModel) BatchLimits() model.BatchLimits {
	return model.BatchLimits{MaxRequests: maxBatchRequests, MaxBytes: maxBatchBytes}
}

// batchRequest is one request of a Message Batch.
type batchRequest struct {
	CustomID string  `json:"custom_id"`
	Params   request `json:"params"`
}

// BatchLine encodes req as the live request's body, with its custom_id.
func (m *messagesModel) BatchLine(customID string, req model.Request) ([]byte, error) {
	params, err := m.params(req)
	if err != nil {
		return nil, m.wrap(err)
	}
	line, err := json.Marshal(batchRequest{CustomID: customID, Params: params})
	if err != nil {
		return nil, m.wrap(err)
	}
	return line, nil
}

// UploadBatch has nothing to upload: a Message Batch carries its requests.
func (m *messagesModel) UploadBatch(context.Context, []byte) (string, error) { return "", nil }

// batchErr names the model and the call in a Message Batches call's
// error, and says so when the server has no such API.
func (m *messagesModel) batchErr(what string, err error) error {
	var ae *model.APIError
	if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusMethodNotAllowed) {
		return fmt.Errorf("model %s: %s: the server at %s does not serve Anthropic's Message Batches API, which --batch needs (%w)",
			m.cfg.name, what, m.cfg.info.BaseURL, err)
	}
	return fmt.Errorf("model %s: %s: %w", m.cfg.name, what, err)
}

// batch is a Message Batch as the API shows it.
type batch struct {
	ID               string         `json:"id"`
	ProcessingStatus string         `json:"processing_status"`
	RequestCounts    map[string]int `json:"request_counts"` // processing, succeeded, errored, canceled, expired
	CreatedAt        time.Time      `json:"created_at"`
	ExpiresAt        time.Time      `json:"expires_at"`
}

// CreateBatch sends the request lines as one Message Batch. Anthropic's
// batches have no metadata: tag is not sent, and the caller must keep the
// returned id.
func (m *messagesModel) CreateBatch(ctx context.Context, _ string, lines []byte, _ string) (model.BatchInfo, error) {
	var body bytes.Buffer
	body.Grow(len(lines) + 16)
	body.WriteString(`{"requests":[`)
	first := true
	for _, line := range bytes.Split(lines, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !first {
			body.WriteByte(',')
		}
		first = false
		body.Write(line)
	}
	body.WriteString("]}")
	var b batch
	if err := m.api.Do(ctx, http.MethodPost, "/v1/messages/batches", "application/json", body.Bytes(), &b); err != nil {
		return model.BatchInfo{}, m.batchErr("creating a message batch", err)
	}
	if b.ID == "" {
		return model.BatchInfo{}, fmt.Errorf("model %s: creating a message batch: the server returned no batch id", m.cfg.name)
	}
	return batchInfo(b), nil
}

// FindBatches cannot find a batch by tag: Anthropic's carry no metadata.
func (m *messagesModel) FindBatches(context.Context, string, time.Time) ([]model.BatchInfo, error) {
	return nil, model.ErrBatchNoTags
}

// GetBatch reports a message batch's state.
func (m *messagesModel) GetBatch(ctx context.Context, id string) (model.BatchInfo, error) {
	var b batch
	if err := m.api.Get(ctx, "/v1/messages/batches/"+id, &b); err != nil {
		return model.BatchInfo{}, m.batchErr("message batch "+id, err)
	}
	if b.ID == "" {
		return model.BatchInfo{}, fmt.Errorf("model %s: message batch %s: empty reply", m.cfg.name, id)
	}
	return batchInfo(b), nil
}

func batchInfo(b batch) model.BatchInfo {
	c := b.RequestCounts
	info := model.BatchInfo{ID: b.ID, Status: b.ProcessingStatus, Succeeded: c["succeeded"],
		Failed: c["errored"] + c["canceled"] + c["expired"], Created: b.CreatedAt, ExpiresAt: b.ExpiresAt}
	for _, n := range c {
		info.Total += n
	}
	if b.ProcessingStatus == "ended" {
		info.State = model.BatchEnded
	}
	return info
}

// errorStatus is the HTTP status a live request would have had for an
// error type of a batch result, so it is classified as live errors are.
func errorStatus(kind string) int {
	switch kind {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "billing_error":
		return http.StatusPaymentRequired
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "overloaded_error":
		return 529
	case "timeout_error":
		return http.StatusGatewayTimeout
	}
	return http.StatusInternalServerError
}

// BatchResults reads an ended batch's results file.
func (m *messagesModel) BatchResults(ctx context.Context, b model.BatchInfo, fn func(model.BatchResult) error) error {
	what := "message batch " + b.ID + ": results"
	body, err := m.api.Open(ctx, "/v1/messages/batches/"+b.ID+"/results")
	if err != nil {
		return m.batchErr(what, err)
	}
	defer body.Close()
	if err := wire.Results(body, "anthropic", m.api.MaxReply, m.result, fn); err != nil {
		return fmt.Errorf("model %s: %s: %w", m.cfg.name, what, err)
	}
	return nil
}

// result reads one line of a batch's results: an answer is read by the
// same code as a live reply, an error classified as a live error of its
// type would be.
func (m *messagesModel) result(line []byte) (model.BatchResult, error) {
	var l struct {
		CustomID string `json:"custom_id"`
		Result   struct {
			Type    string          `json:"type"`
			Message reply           `json:"message"`
			Error   json.RawMessage `json:"error"` // the body a live request would have had
		} `json:"result"`
	}
	if err := json.Unmarshal(line, &l); err != nil {
		return model.BatchResult{}, err
	}
	if l.CustomID == "" {
		return model.BatchResult{}, errors.New("no custom_id")
	}
	r := model.BatchResult{CustomID: l.CustomID}
	switch l.Result.Type {
	case "succeeded":
		r.Response = response(l.Result.Message)
	case "errored":
		var e struct {
			Error struct {
				Type string `json:"type"`
			} `json:"error"`
		}
		json.Unmarshal(l.Result.Error, &e) // an unknown shape is a 500, its text the status's
		r.Err = wire.StatusError("anthropic", m.cfg.key, errorStatus(e.Error.Type), l.Result.Error)
	case "expired", "canceled":
		r.Err = &model.APIError{Provider: "anthropic", Retryable: true, Message: "batch: request " + l.Result.Type + " before it was processed"}
	default:
		r.Err = &model.APIError{Provider: "anthropic", Retryable: true, Message: fmt.Sprintf("batch: unknown result type %q", l.Result.Type)}
	}
	return r, nil
}
