package runcmd

import (
	"bytes"
	"context"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
)

// --seed is the sampling seed every model is sent, as --temperature is a
// temperature: over the sheet's meta, recorded in the output; before, it
// seeded only the random model and no server ever saw it.
func TestSeedFlagSent(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want int64
	}{
		{[]string{"--seed", "42"}, 42},
		{nil, 7}, // the sheet's meta
	} {
		srv := fakeserver.NewOpenAI(t, fakeserver.Options{MaxRequests: 5})
		sheet := epochSheet(t, t.TempDir(), 1, "seed: 7")
		out := t.TempDir()
		var stdout, stderr bytes.Buffer
		args := append([]string{"-f", sheet, "-m", "vllm/x", "--base-url", srv.URL, "-o", out}, tc.args...)
		if err := run(context.Background(), &stdout, &stderr, args); err != nil {
			t.Fatalf("%v: %v\n%s", tc.args, err, stderr.String())
		}
		calls := srv.Calls()
		if len(calls) != 1 || calls[0].Settings.Seed == nil || *calls[0].Settings.Seed != tc.want {
			t.Fatalf("%v: calls %d, seed sent %v; want %d", tc.args, len(calls), calls[0].Settings.Seed, tc.want)
		}
		f := readOnly(t, out)
		if s := f.Questions[0].Settings; s == nil || s.Seed == nil || *s.Seed != tc.want {
			t.Errorf("%v: recorded settings %+v, want seed %d", tc.args, s, tc.want)
		}
	}
}
