package model

import (
	"fmt"
	"time"
)

// APIError is a failed provider request, classified so the runner can decide
// whether to retry. Providers return it (wrapped or not) for HTTP and
// transport failures; Message never contains an API key.
type APIError struct {
	Provider   string        // "openai", "anthropic", ...
	Status     int           // HTTP status; 0 for transport failures (reset, timeout)
	RetryAfter time.Duration // from a Retry-After header; 0 when absent
	Retryable  bool          // 429, 5xx, resets, timeouts, malformed replies
	Message    string
	// Timeout says the request ran out of time: the server may be
	// queueing requests rather than refusing them.
	Timeout bool
	// Fatal says no later request can succeed either until a person acts
	// (the account out of credit, the key refused or without permission:
	// OpenAI's 429 insufficient_quota, Anthropic's 400 about the credit
	// balance, a 401), so a run stops rather than ask, and fail, every
	// other question.
	Fatal bool
	// Cause is the transport failure behind a Status 0 error, if any, so
	// errors.Is finds syscall.ECONNREFUSED (the runner stops a run whose
	// server refuses every connection). Its text is not shown: Message is.
	Cause error
}

// Unwrap returns the transport failure behind the error, if any.
func (e *APIError) Unwrap() error { return e.Cause }

func (e *APIError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Provider, e.Message)
}
