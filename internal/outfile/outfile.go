// Package outfile writes every file evalmd writes, one way: atomically (a
// temporary file in the same folder, then a rename, so a reader or a full
// disk never leaves half a file where the old one was), through a symbolic
// link to its target (the link stays), and never over a file the user did
// not hand over:
//
//   - never over one of the command's own inputs, nor over a read-only file,
//     a folder or a device;
//   - not over a file evalmd did not write, nor over one it wrote that was
//     changed since, unless Options.Force (the commands' --force) says so;
//   - never over a file another process wrote while the command ran: a
//     command that read a file to rewrite it (grade -w), or that found it
//     absent when it began (a run's output), says so in Options.Expect,
//     and the file must still be as it was when it is replaced, which is
//     checked under the folder's lock with the rename (so of two commands
//     racing for one file, one wins and the other fails, changing nothing).
//
// What evalmd wrote is recorded per folder in a hidden file, Record, one
// line per file in sha256sum's format ("<sha256>  <name>", a name escaped
// as GNU sha256sum escapes it), so `sha256sum -c .evalmd-written` also
// checks it by hand: a line is replaced when its file is rewritten and
// dropped when the file is gone (Remove, or at the folder's next write).
// The record is never followed through a link: a folder whose record is
// not a regular file of its own is not written in. A side record keeps
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
	"os"
	"path/filepath"
	"slices"
	"strings"
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
	// Source is the sha256 (hex) of the content the new file was made
	// from (a sheet exported to a workbook and imported back): a file
	// holding exactly that content may be replaced without Force, since
	// nothing in it is lost. A file changed since is refused as ever.
	Source string
	// Expect, when set, is what the file must hold when it is replaced:
	// the sha256 (hex) of what the command read from it, or Absent for a
	// file the command found missing when it began (see State). Anything
	// else was written by another process meanwhile, and is refused
	// (ErrChanged) even with Force: its content would be lost.
	Expect string
}

// Absent is Options.Expect for a file that must not exist yet.
const Absent = "absent"

// Sum is the sha256 (hex) of data, as Options.Expect takes it.
func Sum(data []byte) string {
	s := sha256.Sum256(data)
	return hex.EncodeToString(s[:])
}

// State is what the file at path holds now, as Options.Expect takes it:
// its sum, or Absent. Links are followed, as a write follows them.
func State(path string) (string, error) {
	target, err := resolve(path)
	if err != nil {
		return "", err
	}
	sum, err := hashFile(target)
	if errors.Is(err, fs.ErrNotExist) {
		return Absent, nil
	}
	if err != nil {
		return "", fmt.Errorf("%s: %w", path, err)
	}
	return sum, nil
}

// Reasons a write is refused; the errors returned wrap one of them.
var (
	ErrNotOurs  = errors.New("exists and was not written by evalmd (--force overwrites it)")
	ErrEdited   = errors.New("was changed since evalmd wrote it (--force overwrites it)")
	ErrInput    = errors.New("is an input of this command; not writing over it")
	ErrReadOnly = errors.New("is read-only; not writing over it")
	ErrNotFile  = errors.New("is not a regular file; not writing over it")
	ErrChanged  = errors.New("was written by another process while this command ran; not writing over it")
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
	if _, err := check(path, target, opt); err != nil {
		return err
	}
	pf, err := newPending(target)
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
	recs, err := check(path, target, opt)
	if err != nil {
		return err
	}
	// Recorded before the rename: a process killed between the two leaves
	// the old content in place, whose sum is still recorded, and a rerun
	// may replace it. The other order would leave a new file that looks
	// as if evalmd had not written it.
	name, sum := filepath.Base(target), hex.EncodeToString(h.Sum(nil))
	if !slices.Equal(recs.sums(name), []string{sum}) {
		if err := record(dir, name, sum); err != nil {
			return fmt.Errorf("%s: not written: recording it as evalmd's: %w", path, err)
		}
	}
	if err := pf.CloseAtomicallyReplace(); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err := tidy(dir, name, sum); err != nil {
		return fmt.Errorf("%s: written, but tidying %s: %w", path, Record, err)
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
	_, err = check(path, target, opt)
	return err
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
// The folder's record is read first, new file or not, so an unsafe one
// (see openRecord) refuses the write before any work.
func check(path, target string, opt Options) (entries, error) {
	recs, err := readRecord(filepath.Dir(target))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	fi, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		if opt.Expect != "" && opt.Expect != Absent {
			return nil, fmt.Errorf("%s %w", path, ErrChanged) // removed meanwhile
		}
		return recs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if opt.Expect == Absent {
		return nil, fmt.Errorf("%s %w", path, ErrChanged)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s %w", path, ErrNotFile)
	}
	for _, in := range opt.Inputs {
		if ii, err := os.Stat(in); err == nil && os.SameFile(fi, ii) {
			return nil, fmt.Errorf("%s %w", path, ErrInput)
		}
	}
	if fi.Mode().Perm()&0o200 == 0 {
		return nil, fmt.Errorf("%s %w", path, ErrReadOnly)
	}
	if opt.Force && opt.Expect == "" {
		return recs, nil
	}
	got, err := hashFile(target)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if opt.Expect != "" && got != opt.Expect {
		return nil, fmt.Errorf("%s %w", path, ErrChanged)
	}
	if opt.Force {
		return recs, nil
	}
	if opt.Source != "" && got == opt.Source {
		return recs, nil
	}
	sums := recs.sums(filepath.Base(target))
	if len(sums) == 0 {
		return nil, fmt.Errorf("%s %w", path, ErrNotOurs)
	}
	if !slices.Contains(sums, got) {
		return nil, fmt.Errorf("%s %w", path, ErrEdited)
	}
	return recs, nil
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

// entry is one line of a record.
type entry struct{ sum, name string }

// entries are a record's lines, in order.
type entries []entry

// sums are the sums recorded for name, the last one last. Any of them is
// evalmd's content: a file is recorded just before it is renamed into
// place, so the last sum may not have arrived.
func (es entries) sums(name string) []string {
	var out []string
	for _, e := range es {
		if e.name == name {
			out = append(out, e.sum)
		}
	}
	return out
}

// ErrUnsafeRecord is why a folder whose record is not a plain file of its
// own is not written in: a downloaded folder may hold a record that is a
// link to ~/.bashrc.
var ErrUnsafeRecord = errors.New("is not a regular file of its own (a symbolic link, a hard link, a device); evalmd records the files it writes there and will not write through it: remove it")

// openRecord opens dir's record with flag, refusing anything but a regular
// file with one link: a symbolic link is never followed (O_NOFOLLOW where
// there is one), a FIFO is never waited on. A missing record gives
// fs.ErrNotExist.
func openRecord(dir string, flag int) (*os.File, error) {
	path := filepath.Join(dir, Record)
	unsafe := fmt.Errorf("%s %w", path, ErrUnsafeRecord)
	if fi, err := os.Lstat(path); err == nil && !fi.Mode().IsRegular() {
		return nil, unsafe
	}
	f, err := os.OpenFile(path, flag|noFollow|nonBlock, 0o644)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	if err != nil {
		if isLoop(err) {
			return nil, unsafe
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !fi.Mode().IsRegular() || links(fi) > 1 {
		f.Close()
		return nil, unsafe
	}
	return f, nil
}

// readRecord reads a folder's record. A missing record is empty; a line
// that does not parse (a torn last line) is ignored, which only makes a
// file look not written by evalmd. A record that is not a regular file is
// an error (ErrUnsafeRecord).
func readRecord(dir string) (entries, error) {
	f, err := openRecord(dir, os.O_RDONLY)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	var es entries
	for line := range bytes.Lines(data) {
		if sum, name, ok := parseLine(string(line)); ok {
			es = append(es, entry{sum, name})
		}
	}
	return es, nil
}

// record notes, before name in dir is renamed into place with this sum,
// that evalmd wrote it; the sums recorded before stay until tidy, so a
// process killed in between leaves old content that is still evalmd's.
// The caller holds the folder's lock.
func record(dir, name, sum string) error {
	f, err := openRecord(dir, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(formatLine(sum, name))
	return errors.Join(werr, f.Close())
}

// tidy rewrites dir's record so that it is true, `sha256sum -c` passing:
// one line per file, name with sum (its content now) when sum is not "",
// and no line of a file that is gone. A name left with several sums by a
// process killed before its rename keeps the one of its content now, else
// the last. A line naming anything but a regular file of this folder is
// dropped. The record is left alone when it is true already. The caller
// holds the folder's lock.
func tidy(dir, name, sum string) error {
	es, err := readRecord(dir)
	if err != nil {
		return err
	}
	byName := map[string][]string{}
	var order []string
	for _, e := range es {
		if _, ok := byName[e.name]; !ok {
			order = append(order, e.name)
		}
		byName[e.name] = append(byName[e.name], e.sum)
	}
	files, err := regularFiles(dir)
	if err != nil {
		return err
	}
	var want entries
	for _, n := range order {
		sums := byName[n]
		if n == name && sum != "" {
			want = append(want, entry{sum, n})
			continue
		}
		if n == name || !files[n] {
			continue
		}
		keep := sums[len(sums)-1]
		if len(sums) > 1 {
			if now, err := hashFile(filepath.Join(dir, n)); err == nil && slices.Contains(sums, now) {
				keep = now
			}
		}
		want = append(want, entry{keep, n})
	}
	if slices.Equal(want, es) {
		return nil
	}
	var b strings.Builder
	for _, e := range want {
		b.WriteString(formatLine(e.sum, e.name))
	}
	return ReplaceFile(filepath.Join(dir, Record), []byte(b.String()))
}

// regularFiles are the names of the regular files directly in dir, read
// in one listing (a stat per recorded name would make each write cost as
// much as the folder holds).
func regularFiles(dir string) (map[string]bool, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, err
	}
	files := make(map[string]bool, len(ents))
	for _, e := range ents {
		if e.Type().IsRegular() {
			files[e.Name()] = true
		}
	}
	return files, nil
}

// Remove deletes path, a file evalmd wrote (a run's own state, say), and
// drops it from its folder's record.
func Remove(path string) error {
	target, err := resolve(path)
	if err != nil {
		return err
	}
	dir := filepath.Dir(target)
	unlock, err := lockDir(dir)
	if err != nil {
		return fmt.Errorf("%s: locking %s: %w", path, dir, err)
	}
	defer unlock()
	if err := os.Remove(path); err != nil {
		return err
	}
	if err := tidy(dir, filepath.Base(target), ""); err != nil {
		return fmt.Errorf("%s: removed, but tidying %s: %w", path, Record, err)
	}
	return nil
}

// escaper and unescaper are GNU sha256sum's escaping of a file name.
var (
	escaper   = strings.NewReplacer(`\`, `\\`, "\n", `\n`, "\r", `\r`)
	unescaper = strings.NewReplacer(`\\`, `\`, `\n`, "\n", `\r`, "\r")
)

// formatLine is one line of sha256sum's output; a name holding a newline,
// a carriage return or a backslash is escaped the way GNU sha256sum
// escapes it (a leading backslash on the line), so every line is one name
// and `sha256sum -c` reads back the same name. Nothing else in a name
// needs escaping: the record is data, read only by evalmd and sha256sum.
func formatLine(sum, name string) string {
	if strings.ContainsAny(name, "\\\n\r") {
		return `\` + sum + "  " + escaper.Replace(name) + "\n"
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
		name = unescaper.Replace(name)
	}
	return sum, name, true
}
