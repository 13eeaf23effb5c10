package outfile

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	mrand "math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// SealRecord is the name of the per-folder record of seals: one line per
// file evalmd wrote on this machine (or was told to vouch for, Seal),
// "<mac>  <name>" as the Record's lines are written, where mac is an
// HMAC-SHA256, under the machine's Key, of the file's name and the sum of
// its content. A stranger can copy a folder's records with its files, edit
// a file and its Record line, but cannot make a seal that verifies here:
// the key never leaves the machine. What reads a file as evalmd's own
// work (a rerun reusing its answers) asks Seals, where overwriting asks
// only the Record.
const SealRecord = ".evalmd-sealed"

// Key is the machine's secret that seals what evalmd writes (Options.Seal)
// and names what only this machine may find again (Tag). It is never
// written anywhere but its own file, nor printed.
type Key struct{ secret []byte }

// keySize is the secret's size in bytes.
const keySize = 32

// NewKey is the Key of secret, which holds at least 32 bytes.
func NewKey(secret []byte) (*Key, error) {
	if len(secret) < keySize {
		return nil, fmt.Errorf("a key needs %d bytes, not %d", keySize, len(secret))
	}
	return &Key{secret: append([]byte(nil), secret...)}, nil
}

// RandomKey is a Key of 32 random bytes held in memory only: what it
// seals or names is found again by nothing but this process.
func RandomKey() *Key {
	secret := make([]byte, keySize)
	rand.Read(secret) // never fails (crypto/rand)
	return &Key{secret: secret}
}

// LoadKey reads the key in the file at path: 64 hex digits and a newline,
// in a regular file (a link to one is followed: a Kubernetes Secret is
// mounted so) that no one but its owner and group may read or write.
// A missing file is made, on first need, with 32 random bytes: 0600 in a
// 0700 folder (made when missing), written in full beside it and linked
// into place where nothing is, so two processes making it at once agree
// on one key and none ever reads half of one.
func LoadKey(path string) (*Key, error) {
	k, err := readKey(path)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	if err := MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("making the key: %w", err)
	}
	secret := make([]byte, keySize)
	rand.Read(secret)
	tmp := filepath.Join(filepath.Dir(path), "."+filepath.Base(path)+strconv.FormatUint(mrand.Uint64(), 10))
	f, err := Create(tmp, 0o600)
	if err != nil {
		return nil, fmt.Errorf("making the key %s: %w", path, err)
	}
	defer os.Remove(tmp)
	_, werr := io.WriteString(f, hex.EncodeToString(secret)+"\n")
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return nil, fmt.Errorf("making the key %s: %w", path, err)
	}
	if err := os.Link(tmp, path); err != nil && !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("making the key %s: %w", path, err)
	}
	// Made here or by another process meanwhile: the file's key is the
	// one.
	return readKey(path)
}

// readKey reads the key file at path (see LoadKey).
func readKey(path string) (*Key, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|nonBlock, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("the key: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("the key %s: %w", path, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("the key %s %w", path, ErrNotFile)
	}
	if fi.Mode().Perm()&0o007 != 0 {
		return nil, fmt.Errorf("the key %s may be read or written by others (mode %v): chmod 600 it, or remove it to make another (what evalmd sealed with it must then be vouched for again: evalmd trust DIR)", path, fi.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, 4*keySize))
	if err != nil {
		return nil, fmt.Errorf("the key %s: %w", path, err)
	}
	secret, err := hex.DecodeString(strings.TrimSuffix(string(b), "\n"))
	if err != nil || len(secret) != keySize {
		return nil, fmt.Errorf("the key %s is not a key evalmd made (64 hex digits): remove it to make another", path)
	}
	return &Key{secret: secret}, nil
}

// Tag is the HMAC-SHA256, in hex, of purpose and parts, each part
// counted by its length so that no two lists of parts share a tag.
func (k *Key) Tag(purpose string, parts ...string) string {
	m := hmac.New(sha256.New, k.secret)
	io.WriteString(m, purpose)
	for _, p := range parts {
		fmt.Fprintf(m, "\x00%d:%s", len(p), p)
	}
	return hex.EncodeToString(m.Sum(nil))
}

// seal is the seal of the file name holding content of this sum.
func (k *Key) seal(name, sum string) string { return k.Tag("evalmd seal", name, sum) }

// Seals are the seals of a folder's files (SealRecord), read once, to be
// checked under a Key.
type Seals struct {
	key  *Key
	macs map[string][]string
}

// ReadSeals reads dir's seals, to be checked with k; a folder without a
// record of seals, or a nil k, has none. A record that is not a regular
// file of its own is an error (ErrUnsafeRecord).
func ReadSeals(dir string, k *Key) (*Seals, error) {
	s := &Seals{key: k, macs: map[string][]string{}}
	if k == nil {
		return s, nil
	}
	es, err := readSide(dir, SealRecord)
	if err != nil {
		return nil, err
	}
	for _, e := range es {
		s.macs[e.name] = append(s.macs[e.name], e.sum)
	}
	return s, nil
}

// Sealed says whether the file name of the folder, holding content of
// this sum (hex sha256), was sealed on this machine as it is.
func (s *Seals) Sealed(name, sum string) bool {
	if s == nil || s.key == nil {
		return false
	}
	want := []byte(s.key.seal(name, sum))
	for _, m := range s.macs[name] {
		if hmac.Equal([]byte(m), want) {
			return true
		}
	}
	return false
}

// Len is how many files the folder's record of seals names.
func (s *Seals) Len() int { return len(s.macs) }

// Seal vouches for the regular file at path as evalmd's, as it is now:
// its sum is recorded in its folder's Record and sealed with k, as if
// evalmd had just written it here (a folder restored from a CI cache, a
// teammate's results pulled from git). It says whether the file was
// sealed as it is already. A link is refused (ErrLink), as is anything
// but a regular file.
func Seal(path string, k *Key) (already bool, err error) {
	dir, name := filepath.Split(path)
	dir = filepath.Clean(dir)
	unlock, err := lockDir(dir)
	if err != nil {
		return false, fmt.Errorf("%s: locking %s: %w", path, dir, err)
	}
	defer unlock()
	fi, err := os.Lstat(path)
	switch {
	case err != nil:
		return false, err
	case fi.Mode()&fs.ModeSymlink != 0:
		return false, linkError(path)
	case !fi.Mode().IsRegular():
		return false, fmt.Errorf("%s %w", path, ErrNotFile)
	}
	sum, err := hashFile(path)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	recs, err := readRecord(dir)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	seals, err := ReadSeals(dir, k)
	if err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if len(recs.sums(name)) == 1 && recs.sums(name)[0] == sum && seals.Sealed(name, sum) {
		return true, nil
	}
	if err := record(dir, name, sum); err != nil {
		return false, fmt.Errorf("%s: recording it as evalmd's: %w", path, err)
	}
	if err := appendSeal(dir, name, k.seal(name, sum)); err != nil {
		return false, fmt.Errorf("%s: sealing it: %w", path, err)
	}
	return false, tidy(dir, map[string]wrote{name: {sum: sum, seal: sealLast}})
}

// appendSeal adds a seal line for name to dir's record of seals. The
// caller holds the folder's lock.
func appendSeal(dir, name, mac string) error {
	return appendSide(dir, SealRecord, formatLine(mac, name))
}

// sealing says what tidy keeps of the seal lines of a file written now.
type sealing int

const (
	sealDrop sealing = iota // written unsealed: its seals are of content gone
	sealLast                // sealed by this write: the line it added, the last
	sealAll                 // moved in with its lines: all of them
)

// wrote is what a write did to a file of a folder: the sum of its content
// now ("" when it was removed) and what of its seals is true.
type wrote struct {
	sum  string
	seal sealing
}

// tidySeals rewrites dir's record of seals so that it names only the
// files its Record names (kept), each written now with the lines written
// says. The caller holds the folder's lock.
func tidySeals(dir string, kept entries, written map[string]wrote) error {
	es, err := readSide(dir, SealRecord)
	if err != nil || es == nil {
		return err
	}
	keep := map[string]bool{}
	for _, e := range kept {
		keep[e.name] = true
	}
	last := map[string]int{}
	for i, e := range es {
		last[e.name] = i
	}
	var want entries
	for i, e := range es {
		w, now := written[e.name]
		switch {
		case !keep[e.name]:
		case now && w.seal == sealDrop:
		case now && w.seal == sealLast && last[e.name] != i:
		default:
			want = append(want, e)
		}
	}
	if len(want) == len(es) {
		return nil
	}
	var b strings.Builder
	for _, e := range want {
		b.WriteString(formatLine(e.sum, e.name))
	}
	return ReplaceFile(filepath.Join(dir, SealRecord), []byte(b.String()))
}
