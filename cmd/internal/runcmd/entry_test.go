package runcmd

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"testing"

	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/inspect"
)

// testConfigHome is the user config folder of the commands the tests run
// (XDG_CONFIG_HOME), made empty by TestMain and shared by every test, as
// one machine's: it holds the key evalmd makes there, and no config file
// unless a test writes one into a folder of its own.
var testConfigHome string

func TestMain(m *testing.M) {
	if os.Getenv("EVALMD_MAIN_HELPER") == "1" {
		// A child run by a test: its parent names the folder.
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "evalmd-runcmd-config-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	testConfigHome = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// testLookup looks for no config file but the user's in testConfigHome
// (none, unless a test wrote one) and reads its key from there.
func testLookup() config.Lookup {
	return config.Lookup{Getenv: func(k string) string {
		if k == "XDG_CONFIG_HOME" {
			return testConfigHome
		}
		return ""
	}}
}

// run is the whole command, callable from tests: it reads no config file,
// and its key from testConfigHome.
func run(ctx context.Context, stdout, stderr io.Writer, args []string) error {
	return cli.Execute(ctx, stdout, stderr, Command(testLookup(), os.Getenv, os.Environ), args)
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
