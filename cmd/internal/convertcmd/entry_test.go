package convertcmd

import (
	"context"
	"io"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/cmd/internal/cli"
)

// convert is the whole command, callable from tests.
func convert(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return cli.Execute(ctx, stdout, stderr, Command(), args)
}

// convertWith is convert with the conversions of set: a test adds its own.
func convertWith(ctx context.Context, set *benchmark.ConvertSet, stdout, stderr io.Writer, args []string) error {
	return cli.Execute(ctx, stdout, stderr, commandWith(set), args)
}
