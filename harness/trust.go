package harness

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
)

// Vouched is what Trust sealed in one folder: files sealed now, and files
// that were sealed as they are already.
type Vouched struct {
	Dir             string
	Sealed, Already int
}

// Trust vouches for the output files below root, at any depth and in the
// result.Superseded folders too, as they are now: each, with the .md and
// the grade file beside it, is sealed under key (outfile.Seal), so that a
// run on this machine reuses its answers as its own. It is for a folder
// the user trusts that evalmd wrote elsewhere: a CI cache restored on a
// fresh runner, a teammate's results pulled from git. A link or anything
// but a regular file is never sealed: warn is told of each, and of each
// folder that cannot be read. It returns each folder's counts, in walk
// order, folders with no output left out.
func Trust(root string, key *outfile.Key, warn func(error)) ([]Vouched, error) {
	if key == nil {
		return nil, errors.New("trust: no key to seal with")
	}
	var out []Vouched
	err := filepath.WalkDir(root, func(p string, e fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			warn(err)
			return nil
		}
		if !e.IsDir() {
			return nil
		}
		v, err := trustDir(p, key, warn)
		if err != nil {
			return err
		}
		if v.Sealed+v.Already > 0 {
			out = append(out, v)
		}
		return nil
	})
	if err != nil {
		return out, fmt.Errorf("trust %s: %w", root, err)
	}
	return out, nil
}

// trustDir seals the output files directly in dir and those beside each.
func trustDir(dir string, key *outfile.Key, warn func(error)) (Vouched, error) {
	v := Vouched{Dir: dir}
	ents, err := os.ReadDir(dir)
	if err != nil {
		warn(err)
		return v, nil
	}
	for _, e := range ents {
		name := e.Name()
		if !result.IsOutputName(name) {
			continue
		}
		out := filepath.Join(dir, name)
		for i, p := range []string{out, result.MarkdownPath(out), regrade.GradePath(out)} {
			fi, err := os.Lstat(p)
			switch {
			case i > 0 && errors.Is(err, fs.ErrNotExist):
				continue // no .md, no grade file beside it
			case err != nil:
				return v, err
			case !fi.Mode().IsRegular():
				warn(fmt.Errorf("not sealing %s: not a regular file (a link, a folder, a device)", p))
				continue
			}
			already, err := outfile.Seal(p, key)
			if err != nil {
				return v, err
			}
			if already {
				v.Already++
			} else {
				v.Sealed++
			}
		}
	}
	return v, nil
}
