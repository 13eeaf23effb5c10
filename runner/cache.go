package runner

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/model"
)

// Cache is a content-addressed store of model responses in a directory
// (`run --cache DIR`): one JSON file per RequestKey, at DIR/ab/abcdef….json.
// A hit answers a request without calling the model. Entries are written
// atomically (temporary file, fsync, rename), so a reader sees a whole entry
// or none, and several runs may share one directory at once. Only answers
// are stored, never errors, and nothing in an entry is a credential.
type Cache struct {
	dir  string
	note string
}

// cacheMarker names the file that records the key version of a cache
// directory's entries.
const cacheMarker = "VERSION"

// cacheEntry is the stored form of one response.
type cacheEntry struct {
	Key      string         `json:"key"`
	Model    string         `json:"model"` // the model name that answered, for people browsing DIR
	Response model.Response `json:"response"`
	Created  time.Time      `json:"created"`
}

// OpenCache opens (creating if needed) the cache directory dir.
func OpenCache(dir string) (*Cache, error) {
	if dir == "" {
		return nil, errors.New("cache: empty directory name")
	}
	if err := outfile.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	c := &Cache{dir: dir}
	marker := filepath.Join(dir, cacheMarker)
	have, err := readfile.Read(marker, readfile.Small)
	if err == nil && string(have) == keyVersion+"\n" {
		return c, nil
	}
	// Entries made under another key version are never found (their keys
	// differ); say so once, since a run will pay for them again.
	if entries, _ := os.ReadDir(dir); len(entries) > 0 {
		c.note = fmt.Sprintf("cache %s: its entries were keyed by an older evalmd (keys are now the canonical encoding of the whole request); they are not used", dir)
	}
	if err := outfile.ReplaceFile(marker, []byte(keyVersion+"\n")); err != nil {
		return nil, fmt.Errorf("cache: %w", err)
	}
	return c, nil
}

// Note is a message for the user about the directory's old entries, or "".
func (c *Cache) Note() string { return c.note }

// Dir is the cache's directory.
func (c *Cache) Dir() string { return c.dir }

func (c *Cache) path(key string) (string, error) {
	if len(key) < 3 || !isHex(key) {
		return "", fmt.Errorf("cache: malformed key %q", key)
	}
	return filepath.Join(c.dir, key[:2], key+".json"), nil
}

func isHex(s string) bool {
	for _, r := range s {
		if !('0' <= r && r <= '9' || 'a' <= r && r <= 'f') {
			return false
		}
	}
	return true
}

// Get returns the response stored under key. ok is false on a miss. An
// unreadable or corrupt entry is an error (and a miss): the runner then asks
// the model and overwrites the entry.
func (c *Cache) Get(key string) (resp model.Response, ok bool, err error) {
	p, err := c.path(key)
	if err != nil {
		return model.Response{}, false, err
	}
	b, err := readfile.Read(p, readfile.Small)
	if errors.Is(err, fs.ErrNotExist) {
		return model.Response{}, false, nil
	}
	if err != nil {
		return model.Response{}, false, fmt.Errorf("cache: %w", err)
	}
	var e cacheEntry
	if err := json.Unmarshal(b, &e); err != nil {
		return model.Response{}, false, fmt.Errorf("cache: corrupt entry %s: %w", p, err)
	}
	if e.Key != key {
		return model.Response{}, false, fmt.Errorf("cache: entry %s holds key %q", p, e.Key)
	}
	return e.Response, true, nil
}

// Put stores resp under key, replacing any entry, atomically.
func (c *Cache) Put(key, modelName string, resp model.Response, now time.Time) error {
	p, err := c.path(key)
	if err != nil {
		return err
	}
	b, err := json.MarshalIndent(cacheEntry{Key: key, Model: modelName, Response: resp, Created: now.UTC()}, "", "  ")
	if err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := outfile.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	if err := outfile.ReplaceFile(p, append(b, '\n')); err != nil {
		return fmt.Errorf("cache: %w", err)
	}
	return nil
}
