//go:build !unix

package reviewcmd

import "os"

// resizes is never told of a new size here: the screen is drawn again at
// the next key.
func resizes() (resized <-chan os.Signal, stop func()) { return nil, func() {} }
