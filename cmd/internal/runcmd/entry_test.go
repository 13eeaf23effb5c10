package runcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/inspect"
)

// run is the whole command, callable from tests: it reads no config file.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return cli.Execute(ctx, stdout, stderr, Command(config.Lookup{}, os.Getenv, os.Environ), args)
}

// readLog reads an Inspect log the run wrote with --log-format json.
func readLog(path string) (*inspect.Log, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var lg inspect.Log
	if err := json.Unmarshal(data, &lg); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &lg, nil
}
