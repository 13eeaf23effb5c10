package outfile

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// ErrExists is why Move refuses a destination that is there already.
var ErrExists = errors.New("exists; not moving over it")

// Move moves path, a file evalmd wrote and that was not changed since
// (unless opt.Force), into the folder dir beside it or below it (made when
// missing) under its own name, by a rename: a run puts aside the outputs
// its new one supersedes. Neither the file nor the folder is followed
// through a symbolic link; a file already at the destination is never
// replaced. The file's line moves with it from its folder's record to
// dir's, so it stays evalmd's there, and so do its seals.
func Move(path, dir string, opt Options) (string, error) {
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return "", err
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", linkError(path)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("%s %w", path, ErrNotFile)
	}
	if err := MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if di, err := os.Lstat(dir); err != nil || !di.IsDir() {
		return "", fmt.Errorf("%s: not a folder of its own (a symbolic link?); not moving %s into it", dir, path)
	}
	from, name := filepath.Dir(path), filepath.Base(path)
	dst := filepath.Join(dir, name)
	unlock, err := lockDir(from)
	if err != nil {
		return "", fmt.Errorf("%s: locking %s: %w", path, from, err)
	}
	defer unlock()
	if !sameDir(from, dir) {
		unlockDst, err := lockDir(dir)
		if err != nil {
			return "", fmt.Errorf("%s: locking %s: %w", dst, dir, err)
		}
		defer unlockDst()
	}
	if _, err := check(path, opt); err != nil {
		return "", err
	}
	if _, err := os.Lstat(dst); !errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s %w", dst, ErrExists)
	}
	sum, err := hashFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	if err := record(dir, name, sum); err != nil {
		return "", fmt.Errorf("%s: not moved: recording it as evalmd's in %s: %w", path, dir, err)
	}
	// Its seals go with it: a seal names the file and its content, not
	// its folder.
	seals, err := readSide(from, SealRecord)
	if err != nil {
		return "", fmt.Errorf("%s: not moved: %w", path, err)
	}
	for _, e := range seals {
		if e.name != name {
			continue
		}
		if err := appendSeal(dir, name, e.sum); err != nil {
			return "", fmt.Errorf("%s: not moved: carrying its seal to %s: %w", path, dir, err)
		}
	}
	if err := os.Rename(path, dst); err != nil {
		return "", errors.Join(err, tidy(dir, nil))
	}
	return dst, errors.Join(tidy(from, map[string]wrote{name: {}}), tidy(dir, map[string]wrote{name: {sum: sum, seal: sealAll}}))
}

// sameDir says whether a and b name one folder.
func sameDir(a, b string) bool {
	ai, err1 := os.Stat(a)
	bi, err2 := os.Stat(b)
	return err1 == nil && err2 == nil && os.SameFile(ai, bi)
}
