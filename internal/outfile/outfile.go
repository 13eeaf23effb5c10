// Package outfile writes every file evalmd writes, one way: atomically (a
// temporary file in the same folder, then a rename, so a reader or a full
// disk never leaves half a file where the old one was), never through a
// symbolic link, and never over a file the user did not hand over:
//
//   - never through a link, dangling or not, with or without
//     Options.Force: a path that is a link is refused (ErrLink), a
//     temporary file is created only where nothing was (O_EXCL, which
//     follows no link), and a rename replaces the name itself, so a link
//     swapped in meanwhile is replaced, not followed;
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
// Files that belong together (an output and its readable .md) are written
// as one with WriteFiles: all made and synced before any is renamed into
// place, all checked under their folders' locks, so a refusal, a failed
// write or a full disk leaves every one as it was, and of two commands
// writing the pair at once one wins both.
//
// A file evalmd keeps appending to (a run's journal) is opened with Open,
// which refuses a link, a FIFO or a file with other hard links; folders
// are made with MkdirAll. No other code of evalmd creates files.
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
//
// The record says what may be overwritten; it proves nothing, since
// anyone can write a sha256sum line. What evalmd wrote on this machine is
// told by a second record, SealRecord: a write with Options.Seal adds an
// HMAC of the file's name and sum under the machine's Key (LoadKey), which
// a stranger handing over a folder cannot make. Seals move with a file
// (Move), go with it (Remove), and are dropped when it is rewritten
// unsealed; Seal vouches for a file as it is.
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
	"sync"
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
	// Seal, when set, seals the file with the machine's key as it is
	// written (SealRecord): a rerun reuses its answers as evalmd's own
	// work on this machine.
	Seal *Key
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
// its sum, or Absent. A link is not followed: it is an error (ErrLink), as
// a write to it would be.
func State(path string) (string, error) {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return Absent, nil
	}
	if err != nil {
		return "", err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return "", linkError(path)
	}
	sum, err := hashFile(path)
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
	ErrLink     = errors.New("is a symbolic link; evalmd never writes through a link, dangling or not (--force neither)")
	ErrHardLink = errors.New("has other hard links; evalmd never writes into a file shared with another name: remove it")
)

// linkError is ErrLink for path, saying where the link leads.
func linkError(path string) error {
	if dest, err := os.Readlink(path); err == nil {
		return fmt.Errorf("%s %w: it leads to %s (remove the link, or name that file)", path, ErrLink, dest)
	}
	return fmt.Errorf("%s %w: remove it", path, ErrLink)
}

// Write writes data to path (see the package comment).
func Write(path string, data []byte, opt Options) error {
	return WriteFiles(Bytes(path, data, opt))
}

// WriteFunc writes what write produces to path, streaming: nothing is
// replaced until write has returned without error.
func WriteFunc(path string, opt Options, write func(io.Writer) error) error {
	return WriteFiles(File{Path: path, Opt: opt, Write: write})
}

// File is one file of a set WriteFiles writes as one: its path, the rules
// for what it may replace, and what it holds.
type File struct {
	Path  string
	Opt   Options
	Write func(io.Writer) error
	// Made, when set, is told the sum of what Write wrote once it is made
	// and synced, before any file of the set is replaced: a run records
	// the sum of an output it streams, which it knows only then, where a
	// rerun finds it.
	Made func(sum string) error
}

// Bytes is the File at path holding data.
func Bytes(path string, data []byte, opt Options) File {
	return File{Path: path, Opt: opt, Write: func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	}}
}

// WriteFiles writes files as one: every one is checked, made in full
// beside its place and synced before any is renamed into place, and all
// are checked again under their folders' locks, so a refusal, a failed
// write or a full disk leaves each as it was (a rename needs no room).
// Writers of the same files at once are serialised by the locks: one set
// goes in whole, and the other is checked against it.
func WriteFiles(files ...File) error {
	seen := map[string]bool{}
	for _, f := range files {
		// Checked before the work, so a refusal costs nothing.
		if _, err := check(f.Path, f.Opt); err != nil {
			return err
		}
		if seen[filepath.Clean(f.Path)] {
			return fmt.Errorf("%s: named twice in one write", f.Path)
		}
		seen[filepath.Clean(f.Path)] = true
	}
	made := make([]*pending, 0, len(files))
	defer func() {
		for _, pf := range made {
			pf.cleanup()
		}
	}()
	sums := make([]string, len(files))
	for i, f := range files {
		pf, sum, err := makePending(f)
		if pf != nil {
			made = append(made, pf)
		}
		if err != nil {
			return err
		}
		sums[i] = sum
	}
	if err := syncAll(files, made); err != nil {
		return err
	}
	for i, f := range files {
		if f.Made != nil {
			if err := f.Made(sums[i]); err != nil {
				return fmt.Errorf("%s: %w", f.Path, err)
			}
		}
	}
	unlock, err := lockDirs(files)
	if err != nil {
		return err
	}
	defer unlock()
	return replaceAll(files, made, sums)
}

// makePending writes f's content to a temporary file beside it and
// returns it with the content's sum.
func makePending(f File) (*pending, string, error) {
	pf, err := newPending(f.Path)
	if err != nil {
		return nil, "", fmt.Errorf("%s: %w", f.Path, err)
	}
	h := sha256.New()
	bw := bufio.NewWriterSize(io.MultiWriter(pf.f, h), 64<<10)
	if err := f.Write(bw); err != nil {
		return pf, "", fmt.Errorf("%s: %w", f.Path, err)
	}
	if err := bw.Flush(); err != nil {
		return pf, "", fmt.Errorf("%s: %w", f.Path, err)
	}
	return pf, hex.EncodeToString(h.Sum(nil)), nil
}

// syncAll makes the temporary files durable, side by side: each waits
// mostly for its fsync, and a run writes a pair after a sheet's last
// answer, when that wait adds to the run's time.
func syncAll(files []File, made []*pending) error {
	errs := make([]error, len(made))
	var wg sync.WaitGroup
	for i, pf := range made {
		wg.Go(func() {
			if err := pf.f.Sync(); err != nil {
				errs[i] = fmt.Errorf("%s: %w", files[i].Path, err)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// lockDirs locks the folders of files, in one order so that two writers
// of sets never wait on each other.
func lockDirs(files []File) (unlock func(), err error) {
	var dirs []string
	for _, f := range files {
		dirs = append(dirs, filepath.Dir(f.Path))
	}
	slices.Sort(dirs)
	var unlocks []func()
	unlock = func() {
		for _, u := range slices.Backward(unlocks) {
			u()
		}
	}
	for _, dir := range slices.Compact(dirs) {
		u, err := lockDir(dir)
		if err != nil {
			unlock()
			return nil, fmt.Errorf("locking %s: %w", dir, err)
		}
		unlocks = append(unlocks, u)
	}
	return unlock, nil
}

// replaceAll checks every file again, records each, then renames each
// into place and tidies their folders' records. The caller holds the
// folders' locks.
func replaceAll(files []File, made []*pending, sums []string) error {
	recs := make([]entries, len(files))
	for i, f := range files {
		var err error
		if recs[i], err = check(f.Path, f.Opt); err != nil {
			return err
		}
	}
	// Recorded before the renames: a process killed between the two
	// leaves the old content in place, whose sum is still recorded, and a
	// rerun may replace it. The other order would leave a new file that
	// looks as if evalmd had not written it.
	written := map[string]map[string]wrote{} // folder -> name -> what
	for i, f := range files {
		dir, name := filepath.Split(f.Path)
		dir = filepath.Clean(dir)
		if !slices.Equal(recs[i].sums(name), []string{sums[i]}) {
			if err := record(dir, name, sums[i]); err != nil {
				return fmt.Errorf("%s: not written: recording it as evalmd's: %w", f.Path, err)
			}
		}
		w := wrote{sum: sums[i]}
		if k := f.Opt.Seal; k != nil {
			if err := appendSeal(dir, name, k.seal(name, sums[i])); err != nil {
				return fmt.Errorf("%s: not written: sealing it: %w", f.Path, err)
			}
			w.seal = sealLast
		}
		if written[dir] == nil {
			written[dir] = map[string]wrote{}
		}
		written[dir][name] = w
	}
	for i, pf := range made {
		if err := pf.replace(); err != nil {
			return fmt.Errorf("%s: %w", files[i].Path, err)
		}
	}
	for _, dir := range slices.Sorted(maps.Keys(written)) {
		if err := tidy(dir, written[dir]); err != nil {
			return fmt.Errorf("%s: written, but tidying %s: %w", dir, Record, err)
		}
	}
	return nil
}

// Check says whether path may be written under opt, without writing it, so
// a command that writes many files can refuse before it writes any.
func Check(path string, opt Options) error {
	_, err := check(path, opt)
	return err
}

// check decides whether path may be replaced. The folder's record is read
// first, new file or not, so an unsafe one (see openSide) refuses the
// write before any work.
func check(path string, opt Options) (entries, error) {
	recs, err := readRecord(filepath.Dir(path))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if opt.Seal != nil {
		if _, err := readSide(filepath.Dir(path), SealRecord); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
	}
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		if opt.Expect != "" && opt.Expect != Absent {
			return nil, fmt.Errorf("%s %w", path, ErrChanged) // removed meanwhile
		}
		return recs, nil
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return nil, linkError(path)
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
	got, err := hashFile(path)
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
	sums := recs.sums(filepath.Base(path))
	if len(sums) == 0 {
		return nil, fmt.Errorf("%s %w", path, ErrNotOurs)
	}
	if !slices.Contains(sums, got) {
		return nil, fmt.Errorf("%s %w", path, ErrEdited)
	}
	return recs, nil
}

// hashFile is the sum of the regular file at path, never read through a
// link nor waited on as a FIFO.
func hashFile(path string) (string, error) {
	f, err := openOwn(path, os.O_RDONLY, true)
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

// openSide opens dir's record named name (Record, SealRecord) with flag,
// refusing anything but a regular file with one link (ErrUnsafeRecord). A
// missing record gives fs.ErrNotExist.
func openSide(dir, name string, flag int) (*os.File, error) {
	path := filepath.Join(dir, name)
	f, err := openOwn(path, flag, false)
	if errors.Is(err, ErrLink) || errors.Is(err, ErrNotFile) || errors.Is(err, ErrHardLink) {
		return nil, fmt.Errorf("%s %w", path, ErrUnsafeRecord)
	}
	return f, err
}

// openOwn opens the file at path with flag (creating it 0644 with
// O_CREATE), never through a symbolic link (O_NOFOLLOW where there is one,
// an Lstat before where not: ErrLink) and never waiting on a FIFO, and
// refuses anything but a regular file (ErrNotFile) and, unless shared, a
// file with other hard links (ErrHardLink): what is written in place
// must be evalmd's alone. A missing file without O_CREATE gives
// fs.ErrNotExist.
func openOwn(path string, flag int, shared bool) (*os.File, error) {
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, linkError(path)
	}
	f, err := os.OpenFile(path, flag|noFollow|nonBlock, 0o644)
	if err != nil {
		if fi, lerr := os.Lstat(path); lerr == nil && fi.Mode()&fs.ModeSymlink != 0 {
			return nil, linkError(path) // a link made meanwhile
		}
		return nil, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	switch {
	case !fi.Mode().IsRegular():
		f.Close()
		return nil, fmt.Errorf("%s %w", path, ErrNotFile)
	case !shared && links(fi) > 1:
		f.Close()
		return nil, fmt.Errorf("%s %w", path, ErrHardLink)
	}
	return f, nil
}

// Open opens the file at path for reading and writing in place, creating
// it when missing: a run's journal, appended to as answers come in and
// removed once the run is done, so neither replaced whole nor recorded.
// Like every write, it never goes through a link, dangling or not, and
// refuses anything but a regular file of its own (a hard link to a file
// elsewhere would be appended to and cut).
func Open(path string) (*os.File, error) {
	return openOwn(path, os.O_RDWR|os.O_CREATE, false)
}

// Create makes a new file at path, where nothing is (O_EXCL, which follows
// no link, dangling or not), with perm, for a folder evalmd made for
// itself (a sandbox's staging folder): neither checked nor recorded.
func Create(path string, perm fs.FileMode) (*os.File, error) {
	return os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|noFollow, perm)
}

// HardLink makes path a hard link to src, where nothing is: link(2) never
// makes its new name through a link, dangling or not.
func HardLink(src, path string) error {
	return os.Link(src, path)
}

// MkdirAll makes the folder dir and the missing folders above it with perm
// (under the umask), as os.MkdirAll does, which never makes one through a
// link: a link where a folder is to be made (dangling, or to a file) is
// refused naming it. A folder that exists, or a link to one, is used as it
// is: a folder named to a command is the user's to place.
func MkdirAll(dir string, perm fs.FileMode) error {
	err := os.MkdirAll(dir, perm)
	if err == nil {
		return nil
	}
	for p := dir; ; p = filepath.Dir(p) {
		if fi, lerr := os.Lstat(p); lerr == nil {
			if fi.Mode()&fs.ModeSymlink != 0 {
				return linkError(p)
			}
			return err
		}
		if filepath.Dir(p) == p {
			return err
		}
	}
}

// readRecord reads a folder's record. A missing record is empty; a line
// that does not parse (a torn last line) is ignored, which only makes a
// file look not written by evalmd. A record that is not a regular file is
// an error (ErrUnsafeRecord).
func readRecord(dir string) (entries, error) { return readSide(dir, Record) }

// readSide reads dir's record named name as readRecord reads the Record.
func readSide(dir, name string) (entries, error) {
	f, err := openSide(dir, name, os.O_RDONLY)
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
	return appendSide(dir, Record, formatLine(sum, name))
}

// appendSide appends line to dir's record named name. The caller holds
// the folder's lock.
func appendSide(dir, name, line string) error {
	f, err := openSide(dir, name, os.O_WRONLY|os.O_APPEND|os.O_CREATE)
	if err != nil {
		return err
	}
	_, werr := f.WriteString(line)
	return errors.Join(werr, f.Close())
}

// tidy rewrites dir's record so that it is true, `sha256sum -c` passing:
// one line per file, each name of written with its sum (its content now)
// when the sum is not "" (removed), and no line of a file that is gone. A
// name left with several sums by a process killed before its rename keeps
// the one of its content now, else the last. A line naming anything but a
// regular file of this folder is dropped. The record is left alone when it
// is true already. The record of seals is tidied alike (tidySeals). The
// caller holds the folder's lock.
func tidy(dir string, written map[string]wrote) error {
	kept, err := tidyRecord(dir, written)
	if err != nil {
		return err
	}
	return tidySeals(dir, kept, written)
}

// tidyRecord is tidy's work on the Record; it returns the lines kept.
func tidyRecord(dir string, written map[string]wrote) (entries, error) {
	es, err := readRecord(dir)
	if err != nil {
		return nil, err
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
		return nil, err
	}
	var want entries
	for _, n := range order {
		sums := byName[n]
		if w, ok := written[n]; ok {
			if w.sum != "" {
				want = append(want, entry{w.sum, n})
			}
			continue
		}
		if !files[n] {
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
		return want, nil
	}
	var b strings.Builder
	for _, e := range want {
		b.WriteString(formatLine(e.sum, e.name))
	}
	return want, ReplaceFile(filepath.Join(dir, Record), []byte(b.String()))
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
// drops it from its folder's record. A link is removed, not followed.
func Remove(path string) error {
	dir := filepath.Dir(path)
	unlock, err := lockDir(dir)
	if err != nil {
		return fmt.Errorf("%s: locking %s: %w", path, dir, err)
	}
	defer unlock()
	if err := os.Remove(path); err != nil {
		return err
	}
	if err := tidy(dir, map[string]wrote{filepath.Base(path): {}}); err != nil {
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
