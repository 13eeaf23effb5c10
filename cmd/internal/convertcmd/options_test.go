package convertcmd

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/benchmark"
	"github.com/evalmd/evalmd/internal/outfile"
)

// A converter's options struct becomes its subcommand's flags: tagged
// string and bool fields, required ones checked, other types refused.
func TestConverterFlags(t *testing.T) {
	type opts struct {
		In      string `flag:"i,required" usage:"input"`
		Strict  bool   `flag:"strict"`
		Ignored string
	}
	type bad struct {
		N int `flag:"n"`
	}
	var got *opts
	set, err := benchmark.NewConvertSet(benchmark.Conversions{Benchmark: "t", Converters: []benchmark.Converter{
		benchmark.NewConverter("t", "test", func(_ context.Context, o *opts, _ outfile.Options) ([]string, []error) {
			got = o
			return []string{"x.md"}, nil
		}),
		benchmark.NewConverter("bad", "test", func(context.Context, *bad, outfile.Options) ([]string, []error) { return nil, nil }),
	}})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := convertWith(context.Background(), set, &out, &out, []string{"t", "-i", "data", "-strict"}); err != nil {
		t.Fatal(err)
	}
	if got == nil || got.In != "data" || !got.Strict || got.Ignored != "" {
		t.Errorf("options: %+v", got)
	}
	if !strings.Contains(out.String(), "wrote 1 t sheet to") {
		t.Errorf("output: %q", out.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"t"}, "-i is required"},
		{[]string{"t", "-i", "a", "-Ignored", "x"}, "flag provided but not defined"},
		{[]string{"bad"}, "want string or bool"},
		{[]string{"nope"}, "unknown command"},
	} {
		out.Reset()
		if err := convertWith(context.Background(), set, &out, &out, tc.args); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
