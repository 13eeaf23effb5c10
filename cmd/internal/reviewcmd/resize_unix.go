//go:build unix

package reviewcmd

import (
	"os"
	"os/signal"
	"syscall"
)

// resizes tells when the process's terminal changes size (SIGWINCH),
// until stop.
func resizes() (resized <-chan os.Signal, stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH)
	return ch, func() { signal.Stop(ch) }
}
