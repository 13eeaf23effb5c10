package harness

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/evalmd/evalmd/internal/setting"
	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
)

// dsbenchShaped writes a sheet shaped as a DSBench case: a system
// message, a long introduction as the sheet's context, DSBench's
// template (context first, then the question), and n questions.
func dsbenchShaped(t *testing.T, dir string, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# DSBench 00000099: a case\n#### meta\nbenchmark: dsbench\ntemperature: 0\n")
	b.WriteString("#### system\nYou are a data analyst.<EVAL-ENDCHAR>\n")
	b.WriteString("#### context\nINTRODUCTION\n")
	for i := range 300 {
		fmt.Fprintf(&b, "In quarter %d revenue grew by %d%% while costs fell by %d%%.\n", i, i%7, i%5)
	}
	b.WriteString("#### templates\nThe introduction is detailed as follows. {{\"\\n\"}} {{.Context}} {{\"\\n\"}}The questions are detailed as follows. {{\"\\n\"}} {{.Question}}<EVAL-ENDCHAR>\n\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "## question%d\n#### question\nQuestion %d\nWhat grew in quarter %d?<EVAL-ENDCHAR>\n\n#### answer\nA%d<EVAL-ENDCHAR>\n\n", i, i, i, i)
	}
	p := filepath.Join(dir, "input-dsbench-00000099.md")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// promptCache is a fake of Anthropic's prompt cache: a request's marked
// prefix is written when no answered request wrote it, else read. A
// prefix becomes readable once the request that wrote it is answered
// (latency after it arrived), as Anthropic's cache entry is once the
// first response begins; requests sent together all write it.
type promptCache struct {
	mu      sync.Mutex
	latency time.Duration
	ready   map[string]time.Time
	reads   int
	writes  int
}

// reply answers c: 5,000 prefix tokens, 40 of the question's own, 10 out.
func (pc *promptCache) reply(c fakeserver.Call) fakeserver.Reply {
	r := fakeserver.Reply{Text: "A1", InputTokens: 5040, OutputTokens: 10}
	if len(c.CacheMarks) == 0 {
		return r
	}
	prefix := c.CacheMarks[len(c.CacheMarks)-1].Prefix
	pc.mu.Lock()
	defer pc.mu.Unlock()
	if at, ok := pc.ready[prefix]; ok && !time.Now().Before(at) {
		pc.reads++
		r.CacheReadTokens = 5000
		return r
	}
	if _, ok := pc.ready[prefix]; !ok {
		pc.ready[prefix] = time.Now().Add(pc.latency)
	}
	pc.writes++
	r.CacheWriteTokens = 5000
	return r
}

// A DSBench-shaped case of ten questions on Anthropic: every request
// marks one breakpoint, at the end of what the questions share (the
// system message, the introduction, the template's text before the
// question); the first question is asked before the rest, so it writes
// the prefix once and the nine others read it; the recorded cost is the
// fake's usage at the cache rates. With --prompt-cache off, nothing is
// marked and every question pays the full input price.
func TestDSBenchCasePromptCache(t *testing.T) {
	// claude-sonnet-4-5 at $3 in and $15 out: a cache write $3.75, a read
	// $0.30 per million.
	//   the first question: 40 x 3 + 5000 x 3.75 + 10 x 15 = 19,020
	//   each other one:     40 x 3 + 5000 x 0.30 + 10 x 15 =  1,770
	//   cached: 19,020 + 9 x 1,770 = 34,950 millionths = $0.03495
	//   uncached: 10 x (5040 x 3 + 10 x 15) = 152,700   = $0.15270
	for _, tc := range []struct {
		name          string
		cache         string
		reads, writes int
		marked        bool
		cost          float64
	}{
		{"auto", "", 9, 1, true, 0.03495},
		{"off", "off", 0, 0, false, 0.15270},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pc := &promptCache{latency: 30 * time.Millisecond, ready: map[string]time.Time{}}
			srv := fakeserver.NewAnthropic(t, fakeserver.Options{MaxRequests: 20, Latency: pc.latency, Reply: pc.reply})
			dir := t.TempDir()
			cfg := serverConfig(t, []string{dsbenchShaped(t, dir, 10)}, filepath.Join(dir, "out"), srv.URL, 10)
			cfg.Models, cfg.Price = []string{"anthropic/claude-sonnet-4-5"}, &model.Price{In: 3, Out: 15}
			if tc.cache != "" {
				cfg.Settings = []setting.Layer{{Source: setting.Flag, Values: map[string]string{"prompt_cache": tc.cache}}}
			}
			var stderr bytes.Buffer
			cfg.Stderr = &stderr
			if _, err := Run(context.Background(), cfg); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			calls := srv.Calls()
			if len(calls) != 10 {
				t.Fatalf("%d calls, want 10", len(calls))
			}
			for _, c := range calls {
				switch {
				case !tc.marked && len(c.CacheMarks) > 0:
					t.Errorf("call %d marked %+v", c.N, c.CacheMarks)
				case tc.marked && len(c.CacheMarks) != 1:
					t.Errorf("call %d: %d marks, want 1", c.N, len(c.CacheMarks))
				case tc.marked:
					m := c.CacheMarks[0]
					if m.Where != "messages[0].content[0]" || !strings.HasPrefix(m.Prefix, "You are a data analyst.The introduction") ||
						!strings.HasSuffix(m.Prefix, "The questions are detailed as follows. \n") {
						t.Errorf("call %d: mark at %s keeps %.60q...%q", c.N, m.Where, m.Prefix, m.Prefix[max(0, len(m.Prefix)-40):])
					}
				}
			}
			if pc.reads != tc.reads || pc.writes != tc.writes {
				t.Errorf("prefix written %d times and read %d, want %d and %d", pc.writes, pc.reads, tc.writes, tc.reads)
			}
			var total float64
			for _, f := range outputs(t, cfg.OutDir) {
				// What caching saved: the cost at the full input price
				// less the cost paid, $0.15270 - $0.03495.
				saved := f.Sheet.Totals.CacheSaved
				if tc.marked && (saved == nil || math.Abs(*saved-(0.15270-0.03495)) > 1e-9) {
					t.Errorf("totals' cache_saved %v, want $0.11775", saved)
				} else if !tc.marked && saved != nil {
					t.Errorf("totals' cache_saved %v with nothing cached", *saved)
				}
				for _, q := range f.Questions {
					if q.Cost == nil {
						t.Fatalf("%s: no cost", q.Name)
					}
					total += *q.Cost
				}
			}
			if math.Abs(total-tc.cost) > 1e-9 {
				t.Errorf("recorded cost $%.6f, want $%.6f", total, tc.cost)
			}
		})
	}
}

// The dry run's estimate expects the prompt cache: the case's prefix
// written once and read by its nine other questions, priced at the cache
// rates (Anthropic's reads at 0.1x and writes at 1.25x, OpenAI's reads at
// gpt-4o's $1.25 and writes at the input price); with caching off, none.
func TestDryRunEstimatesPromptCache(t *testing.T) {
	line := regexp.MustCompile(`(?m)^(\S+): about (\d+) input tokens \((\d+) expected read from the prompt cache, (\d+) written to it\): estimated cost \$([0-9.]+) \(\$([0-9.]+) without the prompt cache\)`)
	for _, tc := range []struct {
		model          string
		in, read, cwrt float64 // $ per million: input, cache read, cache write
		cache          string
	}{
		{"anthropic/claude-sonnet-4-5", 3, 0.30, 3.75, ""},
		{"openai/gpt-4o", 2.50, 1.25, 2.50, ""},
		{"openai/gpt-4o", 2.50, 1.25, 2.50, "off"},
	} {
		t.Run(tc.model+tc.cache, func(t *testing.T) {
			dir := t.TempDir()
			cfg := Config{Sheets: []string{dsbenchShaped(t, dir, 10)}, Models: []string{tc.model}, OutDir: filepath.Join(dir, "out"),
				DryRun: true, Key: testKey(t), Describe: providers.Registry().Describe}
			if tc.cache != "" {
				cfg.Settings = []setting.Layer{{Source: setting.Flag, Values: map[string]string{"prompt_cache": tc.cache}}}
			}
			var stderr bytes.Buffer
			cfg.Stderr = &stderr
			if _, err := Run(context.Background(), cfg); err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			m := line.FindStringSubmatch(stderr.String())
			if tc.cache == "off" {
				if m != nil || strings.Contains(stderr.String(), "prompt cache") {
					t.Errorf("caching off, the estimate expects it:\n%s", stderr.String())
				}
				return
			}
			if m == nil || m[1] != tc.model {
				t.Fatalf("no estimate with the prompt cache:\n%s", stderr.String())
			}
			in, read, written := atof(t, m[2]), atof(t, m[3]), atof(t, m[4])
			if written < 1024 || read != 9*written {
				t.Errorf("prefix written %v tokens and read %v: want one write of over 1,024 and nine reads", written, read)
			}
			want := ((in-read-written)*tc.in + read*tc.read + written*tc.cwrt) / 1e6
			if got := atof(t, m[5]); math.Abs(got-want) > 0.00005 {
				t.Errorf("estimate $%v, want $%.4f: %s", got, want, m[0])
			}
			if got := atof(t, m[6]); math.Abs(got-in*tc.in/1e6) > 0.00005 {
				t.Errorf("estimate without the cache $%v, want $%.4f", got, in*tc.in/1e6)
			}
		})
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
