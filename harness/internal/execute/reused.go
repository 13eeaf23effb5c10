package execute

import "fmt"

// reusedNote says, for an output's line, how many of its questions were
// asked and how many reused, and from where; "" when none was reused.
func (sr *sheetRun) reusedNote() string {
	if sr.reused == 0 {
		return ""
	}
	qs := sr.out.File.Questions
	from := map[string]bool{}
	var first string
	for i, ok := range sr.out.Reused {
		if f := qs[i].ReusedFrom; ok && !from[f] {
			if first == "" {
				first = f
			}
			from[f] = true
		}
	}
	note := fmt.Sprintf(", %d asked, %d reused (unchanged since %s", len(qs)-sr.reused, sr.reused, first)
	if len(from) > 1 {
		note += fmt.Sprintf(" and %d more", len(from)-1)
	}
	return note + ")"
}
