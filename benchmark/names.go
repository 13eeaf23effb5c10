package benchmark

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
	"unicode/utf8"
)

// errNotName is wrapped by CheckName's error.
var errNotName = errors.New("not a plain name")

// CheckName refuses a value a dataset gives where a converter means one
// file or folder name (a dataset, a case id, a file name), which it joins
// to the folders it reads and the one it writes (-o): empty, "." or
// "..", a path separator, an absolute or volume name, a NUL or another
// control character (which no sheet line holds) or bytes that are not
// UTF-8. So no such value leads out of -o ("../../x"), nor out of the
// input folder. The error quotes the value in short (Quote).
func CheckName(s string) error {
	var why string
	switch {
	case s == "":
		why = "empty"
	case s == "." || s == "..":
		why = "a folder's own or parent name"
	case strings.ContainsAny(s, `/\`):
		why = "it holds a path separator"
	case !utf8.ValidString(s):
		why = "it is not UTF-8"
	case strings.IndexFunc(s, unicode.IsControl) >= 0:
		why = "it holds a control character"
	case !filepath.IsLocal(s):
		why = "it names a place of its own (a volume or device)"
	default:
		return nil
	}
	return fmt.Errorf("%s: %w: %s", Quote(s), errNotName, why)
}
