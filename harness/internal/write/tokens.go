package write

import "github.com/evalmd/evalmd/model"

// InputTokens is the dry run's estimate of a request's input tokens (its
// text counted with tiktoken), for what else must bound a request before
// it is sent (run --max-cost's worst case).
func InputTokens(info model.Info, r model.Request) int { return inputTokens(info, r) }
