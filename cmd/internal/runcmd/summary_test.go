package runcmd

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/harness"
	"github.com/evalmd/evalmd/internal/testkit/benchkit"
	"github.com/evalmd/evalmd/result"
)

// run ends with a table, a row per model, on stdout (on stderr with -v,
// whose stdout lists the output files); run -y says what it wrote and
// what asking each model would cost.
func TestRunSummaryAndDryRunReport(t *testing.T) {
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-d", "../../../sheets", "-m", "oracle,mock", "-o", out}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`### Run summary\n\n\| model +\| questions \| +correct \| answered \| errors \| tokens in \| tokens out \| +cost \| +time \|\n`),
		regexp.MustCompile(`\| oracle +\| +(\d+) \| +\d+ \(100%\) \| +\d+ \| +0 \| +0 \| +0 \| \$0\.0000 \| +[0-9.]+m?s \|\n`),
		regexp.MustCompile(`\| mock +\| +\d+ \| +0 \(0%\) \| +\d+ \| +0 \|`),
	} {
		if !want.MatchString(stdout.String()) {
			t.Errorf("the run's stdout lacks %s:\n%s", want, stdout.String())
		}
	}
	stdout.Reset()
	stderr.Reset()
	if err := run(context.Background(), &stdout, &stderr, []string{"-d", "../../../sheets", "-m", "oracle", "-o", t.TempDir(), "-v"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, line := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		if !strings.HasSuffix(line, ".json") {
			t.Errorf("run -v: stdout holds %q, not only the output files", line)
		}
	}
	if !strings.Contains(stderr.String(), "### Run summary") {
		t.Errorf("run -v: no summary on stderr:\n%s", stderr.String())
	}

	stdout.Reset()
	stderr.Reset()
	dry := t.TempDir()
	if err := run(context.Background(), &stdout, &stderr, []string{"-y", "-d", "../../../sheets", "-m", "openai/gpt-4o-mini", "--price", "1,2", "--max-tokens", "100", "-o", dry}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	paths, _ := filepath.Glob(filepath.Join(dry, "output-*.json"))
	want := regexp.MustCompile(`dry run: wrote ` + strconv.Itoa(len(paths)) + ` output files \(\d+ questions\) in ` + regexp.QuoteMeta(dry) + `: the prompts and ground truths; no model was asked\n` +
		`openai/gpt-4o-mini: about (\d+) input tokens: estimated cost \$\d+\.\d+, plus at most \$\d+\.\d+ for output \(\d+00 tokens at most\)\n`)
	if len(paths) < 2 || !want.MatchString(stderr.String()) {
		t.Errorf("run -y over %d sheets said:\n%s", len(paths), stderr.String())
	}
	if strings.Contains(stdout.String(), "Run summary") {
		t.Errorf("run -y printed a summary of answers it did not get:\n%s", stdout.String())
	}
}

// A dry run's estimate shows a cost under a cent with the digits that
// show it ($0.000011), not as $0.0000.
func TestDryRunSmallCost(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), &stdout, &stderr, []string{"-y", "-f", "../../../sheets/input-solar-choice.md", "-m", "openai/gpt-4o-mini", "--price", "0.15,0.6", "-o", t.TempDir()}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if !regexp.MustCompile(`estimated cost \$0\.0000[1-9]\d`).MatchString(stderr.String()) {
		t.Errorf("run -y: %s", stderr.String())
	}
}

// The summary is made from what the run counted: the output files it
// wrote are not read back (the kernel's count of bytes read, rchar, grows
// by the sheet and the run's scratch files, read once to write the
// outputs, not by the outputs again). At -c 1 the answers come in sheet
// order and the scratch files are read back in one pass: the run reads
// 1.2 times its outputs however loaded the machine (at the default -c they
// come as the machine schedules them, and on a loaded one the stretches
// read back came to 1.55 times); reading the output back makes it 2.
func TestSummaryReadsNoOutput(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts reads with /proc/self/io")
	}
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-big.md")
	if err := benchkit.WriteSheet(sheet, 3000); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "out")
	var stdout, stderr bytes.Buffer
	before := benchkit.ReadBytes(t)
	if err := run(context.Background(), &stdout, &stderr, []string{"-f", sheet, "-m", "mock", "-o", out, "-c", "1"}); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	read := benchkit.ReadBytes(t) - before
	paths, _ := filepath.Glob(filepath.Join(out, "output-*"))
	var size int64
	for _, p := range paths {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		size += st.Size()
	}
	t.Logf("the outputs are %d bytes; the run read %d", size, read)
	if len(paths) != 2 || read > size*3/2 {
		t.Errorf("the run read %d bytes and wrote %v (%d bytes): it read its outputs back", read, paths, size)
	}
	if !regexp.MustCompile(`\| mock +\| +3000 \| +0 \(0%\) \| +3000 \| +0 \|`).MatchString(stdout.String()) {
		t.Errorf("summary:\n%s", stdout.String())
	}
}

// A model's name (a stranger's evalmd.yaml names the models) reaches the
// run's summary as text: its escapes shown, not sent to the terminal, and
// its markdown not rendered where the summary is pasted.
func TestSummaryHostileName(t *testing.T) {
	name := "x\x1b]0;pwned\x07 **bold** gpt-4o\u202e1-"
	files := []harness.OutputFile{{Sheet: &result.Sheet{Name: "s", ModelName: name}, Tally: result.Tally{Questions: 1, Correct: 1}}}
	var out bytes.Buffer
	if err := writeSummary(&out, files); err != nil {
		t.Fatal(err)
	}
	if s := out.String(); strings.ContainsAny(s, "\x1b\x07\u202e") || !strings.Contains(s, `| x\x1b]0;pwned\x07 \*\*bold\*\* gpt-4o\u202e1- |`) {
		t.Errorf("summary:\n%q", s)
	}
}
