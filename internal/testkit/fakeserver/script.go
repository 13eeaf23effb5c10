package fakeserver

import "sync"

// Ready-made Reply scripts for common tests. Each returns a func for
// Options.Reply that is safe for concurrent calls.

// Fixed answers text to every call.
func Fixed(text string) func(Call) Reply {
	return func(Call) Reply { return Reply{Text: text} }
}

// FailFirst fails the first n calls the server receives with f, then answers
// with next (nil means Reply{}).
func FailFirst(n int, f Fault, next func(Call) Reply) func(Call) Reply {
	return func(c Call) Reply {
		if c.N <= n {
			return Reply{Fault: f}
		}
		return reply(next, c)
	}
}

// FailEachFirst fails the first n calls of every distinct prompt (the last
// user message's text) with f, then answers with next (nil means Reply{}).
// With one prompt per question this makes every question need n retries,
// whatever the order and concurrency of the calls.
func FailEachFirst(n int, f Fault, next func(Call) Reply) func(Call) Reply {
	var mu sync.Mutex
	seen := map[string]int{}
	return func(c Call) Reply {
		mu.Lock()
		seen[c.LastUserText()]++
		k := seen[c.LastUserText()]
		mu.Unlock()
		if k <= n {
			return Reply{Fault: f}
		}
		return reply(next, c)
	}
}

func reply(next func(Call) Reply, c Call) Reply {
	if next == nil {
		return Reply{}
	}
	return next(c)
}
