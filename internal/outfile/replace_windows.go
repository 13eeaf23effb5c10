package outfile

import (
	"os"
	"path/filepath"
)

// pendingFile is a temporary file beside its target that replaces the
// target in one rename (renameio, used elsewhere, has no Windows port).
type pendingFile interface {
	Write(p []byte) (int, error)
	Cleanup() error
	CloseAtomicallyReplace() error
}

type tempFile struct {
	*os.File
	target string
	done   bool
}

func newPending(target string) (pendingFile, error) {
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+"*")
	if err != nil {
		return nil, err
	}
	return &tempFile{File: f, target: target}, nil
}

// Cleanup removes the temporary file unless it replaced the target.
func (t *tempFile) Cleanup() error {
	if t.done {
		return nil
	}
	t.File.Close()
	return os.Remove(t.Name())
}

// CloseAtomicallyReplace syncs the file and renames it over the target
// (MoveFileEx with MOVEFILE_REPLACE_EXISTING).
func (t *tempFile) CloseAtomicallyReplace() error {
	if err := t.Sync(); err != nil {
		return err
	}
	if err := t.File.Close(); err != nil {
		return err
	}
	if err := os.Rename(t.Name(), t.target); err != nil {
		return err
	}
	t.done = true
	return nil
}

// ReplaceFile writes data to a temporary file beside path and renames it
// over path, so a reader sees the old content or the new, never a part.
func ReplaceFile(path string, data []byte) error {
	pf, err := newPending(path)
	if err != nil {
		return err
	}
	defer pf.Cleanup()
	if _, err := pf.Write(data); err != nil {
		return err
	}
	return pf.CloseAtomicallyReplace()
}
