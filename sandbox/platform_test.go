package sandbox

import "testing"

// TestBwrapOnlyOnLinux: where bubblewrap does not exist, the default
// backend's error is one line naming the docker backend's flag.
func TestBwrapOnlyOnLinux(t *testing.T) {
	for _, tc := range []struct{ goos, want string }{
		{"linux", ""},
		{"darwin", "sandbox: bubblewrap (the default sandbox) exists only on Linux; on darwin use --sandbox docker"},
		{"windows", "sandbox: bubblewrap (the default sandbox) exists only on Linux; on windows use --sandbox docker"},
	} {
		got := ""
		if err := bwrapRuns(tc.goos); err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s: got %q\nwant %q", tc.goos, got, tc.want)
		}
	}
}
