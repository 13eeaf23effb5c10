package runcmd

import (
	"context"
	"fmt"
	"io"

	"github.com/evalmd/evalmd/cmd/internal/check"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/sandbox"
)

// checkReport is run --check: providers, sandbox and config.
func checkReport(ctx context.Context, stdout io.Writer, c *config.Config, getenv func(string) string, environ func() []string, sb sandbox.Config, baseURL string) error {
	return check.Write(ctx, stdout, check.Options{Registry: providers.Registry(), Getenv: getenv, Environ: environ, Config: c, BaseURL: baseURL,
		Sandbox: func(ctx context.Context) (string, error) {
			v, err := sandbox.Check(ctx, sb)
			if err != nil {
				return "", err
			}
			s := fmt.Sprintf("%s, python %s, pandas %s, numpy %s", v.Sandbox, v.Python, v.Pandas, v.Numpy)
			if sb.Backend == sandbox.None {
				s += " (unconfined: a run's model-written Python would run as you, with your files and keys)"
			}
			return s, nil
		}})
}
