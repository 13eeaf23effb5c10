// Package grace gives a context a graceful end: work that had begun when
// the context ended may finish under a second context that ends later,
// while nothing new starts. A command's first Ctrl-C ends its context (no
// new request is sent), and its second ends the second one (the requests
// in flight are abandoned). Code that does not ask for the second context
// stops at the first end, as with any context.
package grace

import "context"

type finishKey struct{}

// WithFinish returns a context whose Finish, and that of every context
// derived from it, is finish. Cancel a child of it first, finish later.
func WithFinish(finish context.Context) context.Context {
	return context.WithValue(finish, finishKey{}, finish)
}

// Finish returns the context under which work begun before ctx ended may
// finish: the one WithFinish gave ctx or a parent of it, else ctx itself.
func Finish(ctx context.Context) context.Context {
	if f, ok := ctx.Value(finishKey{}).(context.Context); ok {
		return f
	}
	return ctx
}
