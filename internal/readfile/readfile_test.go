package readfile

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f")
	os.WriteFile(p, []byte("0123456789"), 0o644)
	for _, tc := range []struct {
		path  string
		limit int64
		want  error
	}{
		{p, 10, nil},
		{p, 100, nil},
		{p, 9, ErrTooLarge},
		{"/dev/zero", 1 << 20, ErrTooLarge}, // endless, no size
		{filepath.Join(dir, "missing"), 10, os.ErrNotExist},
	} {
		data, err := Read(tc.path, tc.limit)
		if !errors.Is(err, tc.want) {
			t.Errorf("Read(%s, %d): %v, want %v", tc.path, tc.limit, err, tc.want)
			continue
		}
		if err != nil && (!strings.Contains(err.Error(), tc.path) || strings.Contains(err.Error(), "\n")) {
			t.Errorf("error %q is not one line naming the file", err)
		}
		if err == nil && string(data) != "0123456789" {
			t.Errorf("read %q", data)
		}
	}
}
