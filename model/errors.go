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
}

func (e *APIError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.Status, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Provider, e.Message)
}
