package benchmark

import (
	"errors"
	"strings"
	"testing"
)

// CheckName lets a dataset's names be names and nothing that leads
// elsewhere; its error quotes the value, escaped and short.
func TestCheckName(t *testing.T) {
	for _, ok := range []string{"001_Forbes", "ES_10_CIS_Salud_Mental_Pandemia_2021", "00000001", "question6", "test_ave.csv", "a b", "naïve", "..x"} {
		if err := CheckName(ok); err != nil {
			t.Errorf("CheckName(%q): %v", ok, err)
		}
	}
	for _, bad := range []string{"", ".", "..", "../../../x/in/data/X", "/etc", `..\x`, "a/b", "a\x00b", "a\nb", "\x1b]0;x\a", "\xff"} {
		err := CheckName(bad)
		if !errors.Is(err, errNotName) || !strings.Contains(err.Error(), Quote(bad)) || strings.ContainsAny(err.Error(), "\n\x00\x1b") {
			t.Errorf("CheckName(%q): %v; want one line quoting it", bad, err)
		}
	}
}
