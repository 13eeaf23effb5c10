package model

import (
	"context"
	"errors"
	"time"
)

// BatchDiscount is what a provider's batch API charges, as a share of the
// live price: OpenAI's Batches and Anthropic's Message Batches both bill
// half the standard rate.
const BatchDiscount = 0.5

// BatchPrice is p at batch rates.
func BatchPrice(p Price) Price {
	return Price{In: p.In * BatchDiscount, Out: p.Out * BatchDiscount,
		CachedIn: p.CachedIn * BatchDiscount, CacheWrite: p.CacheWrite * BatchDiscount}
}

// Batcher is a model whose provider offers a batch API: requests sent in
// bulk and answered within a window (24 h), at BatchDiscount of the price.
type Batcher interface {
	// Batch returns the model's batch API, or an error saying why this
	// model cannot be batched (the text-completions API, ...).
	Batch() (BatchAPI, error)
}

// BatchLimits bound one batch.
type BatchLimits struct {
	MaxRequests int   // requests in one batch
	MaxBytes    int64 // bytes of its request lines, newlines included
}

// BatchState is where a batch is in its life, in the provider's words
// folded into three.
type BatchState int

const (
	// BatchRunning: validating, in progress, finalizing or cancelling.
	BatchRunning BatchState = iota
	// BatchEnded: completed, expired or cancelled; its results (answers
	// and per-request errors) can be fetched.
	BatchEnded
	// BatchFailed: the batch as a whole was refused (its input failed
	// validation); it has no results and nothing was charged.
	BatchFailed
)

// BatchInfo is a batch as the provider reports it.
type BatchInfo struct {
	ID        string
	State     BatchState
	Status    string // the provider's own status word
	InputFile string // the uploaded request file (OpenAI); "" for Anthropic
	// OutputFile and ErrorFile hold an ended OpenAI batch's answers and
	// per-request errors; "" for Anthropic or when there are none.
	OutputFile, ErrorFile string
	Tag                   string // the run tag in the batch's metadata; "" when none
	// Total requests, and of them those that succeeded and failed so far
	// (Anthropic counts them only once the batch ends).
	Total, Succeeded, Failed int
	Created, ExpiresAt       time.Time
	// Message says why a failed batch failed.
	Message string
}

// BatchResult is one request's result in an ended batch, matched to its
// request by CustomID. Err is nil for an answer; otherwise an *APIError
// whose Retryable says whether sending the request again may succeed (an
// expired, cancelled or server-failed request) or not (a request the API
// refused).
type BatchResult struct {
	CustomID string
	Response Response
	Err      error
}

// ErrBatchNoTags is returned by FindBatches of a provider whose batches
// carry no metadata (Anthropic's): a batch whose id was not kept cannot be
// found again.
var ErrBatchNoTags = errors.New("this provider's batches carry no metadata to find them by")

// BatchAPI is a provider's batch interface. The request lines are built by
// the same code as live requests, so a batch asks exactly what a live run
// would.
type BatchAPI interface {
	// BatchLimits says how much one batch may hold.
	BatchLimits() BatchLimits
	// BatchLine encodes one request as a line of the batch input (no
	// trailing newline).
	BatchLine(customID string, req Request) ([]byte, error)
	// UploadBatch stores request lines where a batch reads them and
	// returns the file's id; "" when the provider takes the requests with
	// CreateBatch instead (Anthropic).
	UploadBatch(ctx context.Context, lines []byte) (fileID string, err error)
	// CreateBatch starts a batch of the uploaded file (fileID) or of the
	// lines themselves, carrying tag in its metadata where the provider
	// has metadata.
	CreateBatch(ctx context.Context, fileID string, lines []byte, tag string) (BatchInfo, error)
	// FindBatches lists the batches carrying tag created since the given
	// time, or returns ErrBatchNoTags.
	FindBatches(ctx context.Context, tag string, since time.Time) ([]BatchInfo, error)
	// GetBatch reports a batch's state.
	GetBatch(ctx context.Context, id string) (BatchInfo, error)
	// BatchResults calls fn with each result of an ended batch.
	BatchResults(ctx context.Context, b BatchInfo, fn func(BatchResult) error) error
}
