//go:build !windows

package outfile

import "github.com/google/renameio/v2"

// pendingFile is a temporary file beside its target that replaces the
// target in one rename.
type pendingFile interface {
	Write(p []byte) (int, error)
	Cleanup() error
	CloseAtomicallyReplace() error
}

// newPending starts a file to replace target, with target's permissions
// when it exists and 0644 (under the umask) otherwise.
func newPending(target string) (pendingFile, error) {
	return renameio.NewPendingFile(target, renameio.WithPermissions(0o644), renameio.WithExistingPermissions())
}

// ReplaceFile writes data to a temporary file beside path and renames it
// over path, so a reader sees the old content or the new, never a part.
func ReplaceFile(path string, data []byte) error {
	return renameio.WriteFile(path, data, 0o644)
}
