// Package mdcell escapes text for one cell of a markdown (GitHub pipe)
// table. Escape is the one rule of every table evalmd writes in markdown:
// agg's leaderboards and other tables (and the HTML report, which renders
// them), the names in an output file's readable .md, the tables rendered
// into prompts and the settings table of docs/settings.md. A '|' would end the cell
// and a line break the row, so a name from a stranger's file
// ("m | 1 | 100.0 |\n| Hostile | gpt-4o") could add a row of its own.
//
// Literal goes further, for text from files that a reader must see as it
// is: the names and texts in agg's reports, the HTML report, a pull
// request comment and a CI step summary, where a name's markdown would
// otherwise render (an image, a link, a mention).
package mdcell

import "strings"

// escaper writes '|' as "\|" (read back as '|' in the cell) and a line
// break (\r\n, \n, \r: CommonMark's line endings) as "<br>", LIME's
// markdown line break in a cell (agg.py's fmt_field).
var escaper = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

// Escape makes s safe as one cell of a table row. Text without '|' or a
// line break comes back as it is, byte for byte.
func Escape(s string) string {
	if !strings.ContainsAny(s, "|\r\n") {
		return s
	}
	return escaper.Replace(s)
}
