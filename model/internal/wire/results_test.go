package wire

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model"
)

// readLine keeps at most its cap of a line and reads on to the next.
func TestReadLine(t *testing.T) {
	br := bufio.NewReaderSize(strings.NewReader("ab\n"+strings.Repeat("x", 100)+"\n\ncd"), 16)
	var got []string
	for {
		line, long, err := readLine(br, nil, 10)
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, fmt.Sprintf("%s/%v", line, long))
	}
	if want := []string{"ab/false", "xxxxxxxxxx/true", "/false", "cd/false"}; strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("lines %q, want %q", got, want)
	}
}

// Results skips blank lines, turns a line past the cap into its
// question's error, and names the line of one it cannot read.
func TestResults(t *testing.T) {
	long := `{"custom_id":"big \"one\"","text":"` + strings.Repeat("x", 2<<20) + `"}`
	result := func(line []byte) (model.BatchResult, error) {
		var l struct {
			CustomID string `json:"custom_id"`
		}
		err := json.Unmarshal(line, &l)
		return model.BatchResult{CustomID: l.CustomID}, err
	}
	var got []string
	collect := func(r model.BatchResult) error {
		got = append(got, fmt.Sprintf("%s/%v", r.CustomID, r.Err))
		return nil
	}
	in := `{"custom_id":"a"}` + "\n\n" + long + "\n" + `{"custom_id":"b"}`
	if err := Results(strings.NewReader(in), "p", 64<<10, result, collect); err != nil {
		t.Fatal(err)
	}
	want := []string{"a/<nil>", `big "one"/p: reply larger than 64 KiB, not read further (--max-reply raises the cap)`, "b/<nil>"}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for in, want := range map[string]string{
		`{"custom_id":"a"}` + "\n" + `{"text":"` + strings.Repeat("x", 2<<20) + `"}`: "line 2: longer than 1.0625 MiB, with no custom_id at its start",
		`{"custom_id":"a"}` + "\n" + `{"custom_id":`:                                 "line 2: unexpected end of JSON input",
	} {
		if err := Results(strings.NewReader(in), "p", 64<<10, result, collect); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("error %v, want one saying %q", err, want)
		}
	}
	stop := errors.New("stop")
	if err := Results(strings.NewReader(in), "p", 64<<10, result, func(model.BatchResult) error { return stop }); err != stop {
		t.Errorf("fn's error came back as %v", err)
	}
}

// FuzzReadLine checks readLine against the plain reading of the same
// bytes: lines split at "\n" (no empty last one after a final newline),
// each cut to its cap and marked long when it was longer, whatever the
// reader's buffer size.
func FuzzReadLine(f *testing.F) {
	f.Add([]byte("ab\n"+strings.Repeat("x", 100)+"\n\ncd"), uint8(10), uint8(16))
	f.Add([]byte("\n\n"), uint8(0), uint8(16))
	f.Add([]byte("abc"), uint8(3), uint8(17))
	f.Add([]byte("abc\nd"), uint8(3), uint8(16)) // a line of exactly keep bytes is whole
	f.Fuzz(func(t *testing.T, in []byte, keep, size uint8) {
		var want []string
		if len(in) > 0 {
			for _, l := range strings.Split(strings.TrimSuffix(string(in), "\n"), "\n") {
				want = append(want, fmt.Sprintf("%q/%v", l[:min(len(l), int(keep))], len(l) > int(keep)))
			}
		}
		br := bufio.NewReaderSize(strings.NewReader(string(in)), int(size))
		var got []string
		for range len(in) + 2 {
			line, long, err := readLine(br, nil, int(keep))
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, fmt.Sprintf("%q/%v", line, long))
		}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("readLine(%q, keep %d) = %v, want %v", in, keep, got, want)
		}
	})
}
