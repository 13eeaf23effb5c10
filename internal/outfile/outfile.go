// Package outfile writes every file evalmd writes, one way: atomically (a
// temporary file in the same folder, then a rename, so a reader or a full
// disk never leaves half a file where the old one was), through a symbolic
// link to its target (the link stays), and never over a file the user did
// not hand over:
//
//   - never over one of the command's own inputs, nor over a read-only file,
//     a folder or a device;
//   - not over a file evalmd did not write, nor over one it wrote that was
//     changed since, unless Options.Force (the commands' --force) says so.
//
// What evalmd wrote is recorded per folder in a hidden file, Record, one
// line per file in sha256sum's format ("<sha256>  <name>"), so
// `sha256sum -c .evalmd-written` also checks it by hand. A side record keeps
// every format as it is: a LIME output file stays byte-compatible with
// LIME's, a JSONL or an xlsx needs no room for a marker. Files copied
// elsewhere without the record count as not written by evalmd, which errs
// on the side of keeping them.
package outfile

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/google/renameio/v2"
)

// Record is the name of the per-folder record of the files evalmd wrote.
const Record = ".evalmd-written"

// Options say which existing files a write may replace.
type Options struct {
	// Force replaces a file evalmd did not write, or one changed since it
	// wrote it. It never allows writing over an input, a read-only file,
	// a folder or a device.
	Force bool
	// Inputs are the files the command reads; none is ever written over
	// (compared as files, so another name or a link to one counts).
	Inputs []string
}

// Reasons a write is refused; the errors returned wrap one of them.
var (
	ErrNotOurs  = errors.New("exists and was not written by evalmd (--force overwrites it)")
	ErrEdited   = errors.New("was changed since evalmd wrote it (--force overwrites it)")
	ErrInput    = errors.New("is an input of this command; not writing over it")
	ErrReadOnly = errors.New("is read-only; not writing over it")
	ErrNotFile  = errors.New("is not a regular file; not writing over it")
)

// Write writes data to path (see the package comment).
func Write(path string, data []byte, opt Options) error {
	return WriteFunc(path, opt, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// WriteFunc writes what write produces to path, streaming: nothing is
// replaced until write has returned without error.
func WriteFunc(path string, opt Options, write func(io.Writer) error) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	// Checked before the work, so a refusal costs nothing, and again
	// under the folder's lock just before the rename.
	if err := check(path, target, opt); err != nil {
		return err
	}
	pf, err := renameio.NewPendingFile(target, renameio.WithPermissions(0o644), renameio.WithExistingPermissions())
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	defer pf.Cleanup()
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(pf, h), 64<<10)
	if err := write(bw); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	dir := filepath.Dir(target)
	unlock, err := lockDir(dir)
	if err != nil {
		return fmt.Errorf("%s: locking %s: %w", path, dir, err)
	}
	defer unlock()
	if err := check(path, target, opt); err != nil {
		return err
	}
	// Recorded before the rename: a process killed between the two leaves
	// the old content in place, whose sum is still recorded, and a rerun
	// may replace it. The other order would leave a new file that looks
	// as if evalmd had not written it.
	if err := record(dir, filepath.Base(target), hex.EncodeToString(h.Sum(nil))); err != nil {
		return fmt.Errorf("%s: not written: recording it as evalmd's: %w", path, err)
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Check says whether path may be written under opt, without writing it, so
// a command that writes many files can refuse before it writes any.
func Check(path string, opt Options) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	return check(path, target, opt)
}

// resolve follows symbolic links from path to the file they name (which
// need not exist yet).
func resolve(path string) (string, error) {
	p := path
	for range 64 {
		fi, err := os.Lstat(p)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return p, nil // a missing file is created; other errors show when writing
		}
		dest, err := os.Readlink(p)
		if err != nil {
			return "", fmt.Errorf("%s: %w", path, err)
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(p), dest)
		}
		p = dest
	}
	return "", fmt.Errorf("%s: too many levels of symbolic links", path)
}

// check decides whether target (path with links followed) may be replaced.
func check(path, target string, opt Options) error {
	fi, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return fmt.Errorf("%s %w", path, ErrNotFile)
	}
	for _, in := range opt.Inputs {
		if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
			return fmt.Errorf("%s %w", path, ErrInput)
		}
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return fmt.Errorf("%s %w", path, ErrReadOnly)
	}
	if opt.Force {
		return nil
	}
	recs, err := readRecord(filepath.Dir(target))
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	sums, ok := recs[filepath.Base(target)]
	if !ok {
		return fmt.Errorf("%s %w", path, ErrNotOurs)
	}
	got, err := hashFile(target)
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if !slices.Contains(sums, got) {
		return fmt.Errorf("%s %w", path, ErrEdited)
	}
	return nil
}

func hashFile(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// readRecord reads a folder's record: the sums written for each name, the
// last one last. Any of them is evalmd's content (a file is recorded just
// before it is renamed into place, so the last sum may not have arrived).
// A missing record is empty; a line that does not parse (a torn last line)
// is ignored, which only makes a file look not written by evalmd.
func readRecord(dir string) (map[string][]string, error) {
	data, err := os.ReadFile(filepath.Join(dir, Record))
	if errors.Is(err, fs.ErrNotExist) {
		return map[string][]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	recs := map[string][]string{}
	for line := range bytes.Lines(data) {
		if sum, name, ok := parseLine(string(line)); ok {
			recs[name] = append(recs[name], sum)
		}
	}
	return recs, nil
}

// compactAbove is the record size past which it is rewritten without
// superseded lines and lines of files that are gone (a name keeps its last
// sum, and the sum of its content now when that was recorded too).
const compactAbove = 256 << 10

// record notes that evalmd wrote name in dir with this sum. The caller
// holds the folder's lock.
func record(dir, name, sum string) error {
	path := filepath.Join(dir, Record)
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(formatLine(sum, name))
	fi, serr := f.Stat()
	if err := errors.Join(werr, serr, f.Close()); err != nil {
		return err
	}
	if fi.Size() <= compactAbove {
		return nil
	}
	recs, err := readRecord(dir)
	if err != nil {
		return err
	}
	var b strings.Builder
	for _, n := range slices.Sorted(maps.Keys(recs)) {
		if _, err := os.Lstat(filepath.Join(dir, n)); err != nil && n != name {
			continue // gone; name itself is about to be renamed into place
		}
		sums := recs[n]
		last := sums[len(sums)-1]
		if now, err := hashFile(filepath.Join(dir, n)); err == nil && now != last && slices.Contains(sums, now) {
			b.WriteString(formatLine(now, n))
		}
		b.WriteString(formatLine(last, n))
	}
	return renameio.WriteFile(path, []byte(b.String()), 0o644)
}

// formatLine is one line of sha256sum's output; a name holding a newline or
// a backslash is escaped the way GNU sha256sum escapes it.
func formatLine(sum, name string) string {
	if strings.ContainsAny(name, "\\\n\r") {
		r := strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`)
		return `\` + sum + "  " + r.Replace(name) + "\n"
	}
	return sum + "  " + name + "\n"
}

// parseLine reads a line formatLine wrote.
func parseLine(line string) (sum, name string, ok bool) {
	line, complete := strings.CutSuffix(line, "\n")
	if !complete {
		return "", "", false
	}
	escaped := strings.HasPrefix(line, `\`)
	if escaped {
		line = line[1:]
	}
	sum, name, ok = strings.Cut(line, "  ")
	if !ok || len(sum) != 64 || name == "" {
		return "", "", false
	}
	if _, err := hex.DecodeString(sum); err != nil {
		return "", "", false
	}
	if escaped {
		name = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\r`, "\r").Replace(name)
	}
	return sum, name, true
}
