package runcmd

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/internal/check"
	"github.com/evalmd/evalmd/internal/config"
	"github.com/evalmd/evalmd/sandbox"
)

// useConfig reads the config files look finds and lays their values under
// the flags not given on the command line (flags first; the sheets' meta,
// read later, comes before the values set here only where a meta key
// exists, and none of these has one). It returns the config and the
// environment reader that answers NAME_BASE_URL from it. The judge's
// settings are judgeflag's (shared with grade).
func useConfig(fs *flag.FlagSet, look config.Lookup, getenv func(string) string, stderr io.Writer, verbose bool) (*config.Config, func(string) string, error) {
	c, err := config.Load(look)
	if err != nil {
		return nil, nil, err
	}
	if verbose {
		fmt.Fprintln(stderr, c.Used())
	}
	given := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { given[f.Name] = true })
	set := func(name, value string) error {
		if given[name] || value == "" {
			return nil
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("config %s: %s %q: %w", c.Files[0], name, value, err)
		}
		return nil
	}
	conc := ""
	if c.Concurrency > 0 {
		conc = strconv.Itoa(c.Concurrency)
	}
	for _, kv := range [][2]string{{"m", strings.Join(c.Models, ",")}, {"c", conc}, {"sandbox", c.Sandbox}} {
		if err := set(kv[0], kv[1]); err != nil {
			return nil, nil, err
		}
	}
	return c, c.Getenv(getenv), nil
}

// checkReport is run --check: providers, sandbox and config.
func checkReport(ctx context.Context, stdout io.Writer, c *config.Config, getenv func(string) string, environ func() []string, sb sandbox.Config) error {
	return check.Write(ctx, stdout, check.Options{Getenv: getenv, Environ: environ, Config: c,
		Sandbox: func(ctx context.Context) (string, error) {
			v, err := sandbox.Check(ctx, sb)
			if err != nil {
				return "", err
			}
			return fmt.Sprintf("%s, python %s, pandas %s, numpy %s", v.Sandbox, v.Python, v.Pandas, v.Numpy), nil
		}})
}
