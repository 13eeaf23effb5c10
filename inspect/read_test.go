package inspect

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/result"
)

// ReadLog loads an Inspect log, .eval (a zip, told by its first bytes) or
// JSON: one this package wrote, or one of Inspect's own written with
// deflate (members this package does not model are skipped). It fails on a
// log of a later format version, as Inspect does.
func ReadLog(path string) (*Log, error) {
	data, err := readfile.Read(path, readfile.Output)
	if err != nil {
		return nil, err
	}
	lg, err := parseLog(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return lg, nil
}

// parseLog is ReadLog of a log's bytes.
func parseLog(data []byte) (*Log, error) {
	var lg *Log
	if bytes.HasPrefix(data, []byte("PK\x03\x04")) {
		var err error
		if lg, err = readEval(data); err != nil {
			return nil, fmt.Errorf("not an Inspect .eval log: %w", err)
		}
	} else if err := json.Unmarshal(data, &lg); err != nil || lg == nil {
		return nil, fmt.Errorf("not an Inspect log: %w", err)
	}
	if lg.Version > logVersion {
		return nil, fmt.Errorf("log format version %d is newer than %d", lg.Version, logVersion)
	}
	if lg.Eval.Task == "" && lg.Eval.Created == "" {
		return nil, errors.New("not an Inspect log: no eval.task or eval.created")
	}
	return lg, nil
}

// readEval reads an .eval zip: the header (or, for a log still being
// written, the start record), the reductions if any and the samples in
// the order they were written. (Inspect sorts them by epoch and id; the
// order written is the output file's.)
func readEval(data []byte) (*Log, error) {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	members := map[string]*zip.File{}
	var samples []*zip.File
	for _, f := range zr.File {
		if _, seen := members[f.Name]; !seen && strings.HasPrefix(f.Name, evalSamples) && strings.HasSuffix(f.Name, ".json") {
			samples = append(samples, f)
		}
		members[f.Name] = f // a name written again supersedes, as in Inspect
	}
	read := func(f *zip.File, v any) error {
		rc, err := f.Open()
		if err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		defer rc.Close()
		if err := json.NewDecoder(rc).Decode(v); err != nil {
			return fmt.Errorf("%s: %w", f.Name, err)
		}
		return nil
	}
	var lg Log
	switch {
	case members[evalHeader] != nil:
		if err := read(members[evalHeader], &lg); err != nil {
			return nil, err
		}
	case members[evalStart] != nil:
		if err := read(members[evalStart], &lg); err != nil {
			return nil, err
		}
		lg.Status = "started"
	default:
		return nil, fmt.Errorf("no %s or %s", evalHeader, evalStart)
	}
	lg.Samples, lg.Reductions = nil, nil
	if f := members[evalReduced]; f != nil {
		if err := read(f, &lg.Reductions); err != nil {
			return nil, err
		}
	}
	for _, f := range samples {
		var s evalSample
		if err := read(members[f.Name], &s); err != nil {
			return nil, err
		}
		lg.Samples = append(lg.Samples, s)
	}
	return &lg, nil
}

// WriteLogsFor writes an Inspect log into logDir for every run of the
// output files (output*.json) below dir, so runs made earlier, LIME's
// among them, open in Inspect's viewer: one log per file, and one per run
// of several epochs (RunLogs). A file that cannot be read is reported on
// warn and skipped. The count of logs written is returned. opt applies to
// every log.
func WriteLogsFor(logDir, dir string, warn io.Writer, opt LogOptions) (int, error) {
	paths, err := result.Find(dir, func(err error) { fmt.Fprintf(warn, "inspect log: skipping %v\n", err) })
	if err != nil {
		return 0, err
	}
	logs := &RunLogs{Dir: logDir, Warn: warn, Options: opt}
	for _, p := range paths {
		f, err := result.Read(p)
		if err != nil {
			fmt.Fprintf(warn, "inspect log: skipping %v\n", err)
			continue
		}
		logs.Add(p, f)
	}
	return logs.Close(), nil
}

// buildLog makes the log of an output file without writing it.
// buildLog is the log of one output file.
func buildLog(f *result.File, opt LogOptions) (*Log, error) {
	return buildRunLog([]*result.File{f}, opt)
}
