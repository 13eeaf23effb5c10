package anthropic

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

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
	CustomID string                     `json:"custom_id"`
	Params   anthropic.MessageNewParams `json:"params"`
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

// call bounds one Message Batches call by the request timeout and
// classifies its failure.
func (m *messagesModel) call(ctx context.Context, what string, do func(ctx context.Context, res **http.Response) error) error {
	timeout := m.cfg.opt.RequestTimeout()
	callCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var httpRes *http.Response
	err := do(callCtx, &httpRes)
	if err == nil {
		return nil
	}
	return m.batchErr(what, err, httpRes, ctx, callCtx, timeout)
}

func (m *messagesModel) batchErr(what string, err error, httpRes *http.Response, ctx, callCtx context.Context, timeout time.Duration) error {
	var apiErr *anthropic.Error
	if errors.As(err, &apiErr) && httpRes == nil {
		httpRes = apiErr.Response
	}
	err = wire.Classify("anthropic", m.cfg.key, err, httpRes, ctx, callCtx, timeout)
	var ae *model.APIError
	if errors.As(err, &ae) && (ae.Status == http.StatusNotFound || ae.Status == http.StatusMethodNotAllowed) {
		return fmt.Errorf("model %s: %s: the server at %s does not serve Anthropic's Message Batches API, which --batch needs (%w)",
			m.cfg.name, what, m.cfg.info.BaseURL, err)
	}
	return fmt.Errorf("model %s: %s: %w", m.cfg.name, what, err)
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
	var b *anthropic.MessageBatch
	err := m.call(ctx, "creating a message batch", func(ctx context.Context, res **http.Response) error {
		var err error
		b, err = m.batches.New(ctx, anthropic.MessageBatchNewParams{},
			option.WithRequestBody("application/json", body.Bytes()), option.WithResponseInto(res))
		return err
	})
	if err != nil {
		return model.BatchInfo{}, err
	}
	if b == nil || b.ID == "" {
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
	var b *anthropic.MessageBatch
	err := m.call(ctx, "message batch "+id, func(ctx context.Context, res **http.Response) error {
		var err error
		b, err = m.batches.Get(ctx, id, anthropic.MessageBatchGetParams{}, option.WithResponseInto(res))
		return err
	})
	if err != nil {
		return model.BatchInfo{}, err
	}
	if b == nil {
		return model.BatchInfo{}, fmt.Errorf("model %s: message batch %s: empty reply", m.cfg.name, id)
	}
	return batchInfo(b), nil
}

func batchInfo(b *anthropic.MessageBatch) model.BatchInfo {
	c := b.RequestCounts
	info := model.BatchInfo{
		ID: b.ID, Status: string(b.ProcessingStatus),
		Total:     int(c.Processing + c.Succeeded + c.Errored + c.Canceled + c.Expired),
		Succeeded: int(c.Succeeded), Failed: int(c.Errored + c.Canceled + c.Expired),
		Created: b.CreatedAt, ExpiresAt: b.ExpiresAt,
	}
	if b.ProcessingStatus == anthropic.MessageBatchProcessingStatusEnded {
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
	var httpRes *http.Response
	stream := m.batches.ResultsStreaming(ctx, b.ID, anthropic.MessageBatchResultsParams{}, option.WithResponseInto(&httpRes))
	defer stream.Close()
	n := 0
	for stream.Next() {
		n++
		line := stream.Current()
		if line.CustomID == "" {
			return fmt.Errorf("model %s: message batch %s: results line %d: no custom_id", m.cfg.name, b.ID, n)
		}
		r := model.BatchResult{CustomID: line.CustomID}
		switch line.Result.Type {
		case "succeeded":
			msg := line.Result.Message
			r.Response, r.Err = response(&msg)
		case "errored":
			e := line.Result.Error
			r.Err = wire.StatusError("anthropic", m.cfg.key, errorStatus(string(e.Error.Type)), []byte(e.RawJSON()))
		case "expired", "canceled":
			r.Err = &model.APIError{Provider: "anthropic", Retryable: true, Message: "batch: request " + line.Result.Type + " before it was processed"}
		default:
			r.Err = &model.APIError{Provider: "anthropic", Retryable: true, Message: fmt.Sprintf("batch: unknown result type %q", line.Result.Type)}
		}
		if err := fn(r); err != nil {
			return err
		}
	}
	if err := stream.Err(); err != nil {
		return m.batchErr("message batch "+b.ID+": results", err, httpRes, ctx, ctx, m.cfg.opt.RequestTimeout())
	}
	return nil
}
