// Package cli runs a command's body the way every evalmd command runs it:
// with a context cancelled by Ctrl-C, and a failure printed as one line on
// stderr with exit status 1.
package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
)

// Main runs body with the process's arguments and streams, then exits.
// name prefixes the error line unless the error already starts with it.
func Main(name string, body func(ctx context.Context, stdout, stderr io.Writer, args []string) error) {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := body(ctx, os.Stdout, os.Stderr, os.Args[1:])
	stop()
	if err == nil {
		return
	}
	if !errors.Is(err, flag.ErrHelp) {
		msg := err.Error()
		if !strings.HasPrefix(msg, name+":") {
			msg = name + ": " + msg
		}
		fmt.Fprintln(os.Stderr, msg)
	}
	os.Exit(1)
}
