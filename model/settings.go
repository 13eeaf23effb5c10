package model

import (
	"bytes"
	"encoding/json"
)

// IsZero reports whether s sets nothing.
func (s Settings) IsZero() bool { return s.Equal(Settings{}) }

// Equal reports whether two settings set the same values: whether they
// are recorded the same (an empty Stop is none), so that a field added to
// Settings is compared without a line here.
func (s Settings) Equal(o Settings) bool {
	a, err1 := json.Marshal(s)
	b, err2 := json.Marshal(o)
	return err1 == nil && err2 == nil && bytes.Equal(a, b)
}
