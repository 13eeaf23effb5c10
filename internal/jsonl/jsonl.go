// Package jsonl is the journal file the runner and the batches keep what
// a crash must not lose in: JSON lines appended to a file locked against a
// second process, read back on the next run. A last line without its
// newline is a write a crash cut short: reading leaves it out and opening
// cuts it away, so appending starts on a line boundary.
package jsonl

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"

	"github.com/evalmd/evalmd/internal/filelock"
	"github.com/evalmd/evalmd/internal/outfile"
)

// Read hands each line of r that is not blank, with its number (from 1),
// to each, which may stop the read with an error, returned as it is. It
// returns the length of the lines read whole (where appending may start)
// and whether what follows the last newline was left out. An error reading
// r is named "NAME:LINE: ...".
func Read(r io.Reader, name string, each func(line int, b []byte) error) (good int64, torn bool, err error) {
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
		if err == io.EOF {
			// Whatever follows the last newline is a write the crash cut
			// short (or nothing at all).
			return good, len(b) > 0, nil
		}
		if err != nil {
			return 0, false, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if len(bytes.TrimSpace(b)) > 0 {
			if err := each(line, b); err != nil {
				return 0, false, err
			}
		}
		good += int64(len(b))
	}
}

// File is a journal open for appending. Writers may append at once; the
// first write that fails is every later append's error, and nothing is
// written after it (a line after a torn one would be lost with it).
type File struct {
	f      *os.File
	name   string // what errors call the file: "journal PATH"
	unlock func()

	mu    sync.Mutex
	err   error // the first failed write
	dirty bool  // written since the last sync
	// dirSynced says the file's directory entry is durable. It is made
	// so at the first sync, not at open: nothing is durable before then
	// anyway, and an fsync at open would delay a run's first request.
	dirSynced bool
}

// Open opens (creating if needed, never through a link) the journal at
// path, locks it so that two runs cannot append to one journal, reads it
// through each (see Read), cuts a torn last line away and places the file
// for appending. what names the journal in errors ("journal", "batch
// journal").
func Open(path, what string, each func(line int, b []byte) error) (*File, error) {
	f, err := outfile.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	name := what + " " + path
	unlock, err := filelock.Lock(f)
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w (is another run using it?)", name, err)
	}
	fail := func(err error) (*File, error) {
		unlock()
		f.Close()
		return nil, err
	}
	good, torn, err := Read(f, name, each)
	if err != nil {
		return fail(err)
	}
	if torn {
		if err := f.Truncate(good); err != nil {
			return fail(fmt.Errorf("%s: dropping torn last line: %w", name, err))
		}
	}
	if _, err := f.Seek(good, io.SeekStart); err != nil {
		return fail(fmt.Errorf("%s: %w", name, err))
	}
	return &File{f: f, name: name, unlock: unlock}, nil
}

// Append writes b, one or more whole lines, with one write(2). Once a
// write has failed nothing more is written, and its error is returned
// again.
func (j *File) Append(b []byte) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.err != nil {
		return j.err
	}
	if _, err := j.f.Write(b); err != nil {
		j.err = fmt.Errorf("%s: %w", j.name, err)
		return j.err
	}
	j.dirty = true
	return nil
}

// Sync makes what was appended durable, the file's directory entry too
// the first time, if anything was appended since the last sync and no
// write failed.
func (j *File) Sync() error {
	j.mu.Lock()
	dirty, failed := j.dirty, j.err != nil
	j.dirty = false
	j.mu.Unlock()
	if !dirty || failed {
		return nil
	}
	if err := j.f.Sync(); err != nil {
		return fmt.Errorf("%s: %w", j.name, err)
	}
	if !j.dirSynced {
		// The file's own directory entry too, so synced records are not
		// lost with a file that the directory forgot.
		if d, err := os.Open(filepath.Dir(j.f.Name())); err == nil {
			_ = d.Sync() // best effort: some filesystems refuse to sync directories
			d.Close()
		}
		j.dirSynced = true
	}
	return nil
}

// Close releases the lock and closes the file.
func (j *File) Close() error {
	j.unlock()
	if err := j.f.Close(); err != nil {
		return fmt.Errorf("%s: %w", j.name, err)
	}
	return nil
}
