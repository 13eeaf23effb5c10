package evalmdcmd

import (
	"context"
	"io"

	"github.com/evalmd/evalmd/benchmark/benchmarks"
	"github.com/evalmd/evalmd/cmd/internal/cli"
	"github.com/evalmd/evalmd/cmd/internal/config"
	"github.com/evalmd/evalmd/internal/setting"
)

// schemaCommand prints the JSON Schema of a config file (config) or of a
// sheet's meta section (meta), made from the settings' declarations and
// the config's members: what docs/schema holds (TestShippedSchemas).
func schemaCommand() *cli.Command {
	return &cli.Command{
		Name:  "schema",
		Usage: "config|meta",
		Short: "Print the JSON Schema of evalmd.yaml (config) or of a sheet's meta section (meta), for editors (docs/settings.md: Editors).",
		Run: func(ctx context.Context, stdout, stderr io.Writer, args []string) error {
			if len(args) != 1 {
				return cli.Usagef("name one schema: config or meta")
			}
			var data []byte
			var err error
			switch args[0] {
			case "config":
				data, err = config.Schema()
			case "meta":
				data, err = metaSchema()
			default:
				return cli.Usagef("no schema %q: give config or meta", args[0])
			}
			if err != nil {
				return err
			}
			_, err = stdout.Write(data)
			return err
		},
	}
}

// metaSchema is the meta section's schema, with the keys the benchmarks
// declare as their data.
func metaSchema() ([]byte, error) {
	set, err := benchmarks.Set()
	if err != nil {
		return nil, err
	}
	return setting.MetaSchema(set.MetaKeys)
}
