package report

import (
	"strings"
)

// detailTitles start the titles of agg's own tables that are details: a
// section of the markdown whose title starts otherwise, but for the
// Models summary, is a benchmark's own figures (DABench's ABQ, PSAQ...).
var detailTitles = []string{"Leaderboard", "Runs", "All Questions", "Paired comparison", "Discrepancies",
	"Usage", "Errors", "Graders against people", "Grader ", "Compared with the baseline", "Questions not compared",
	"Accuracy floor", "Questions that flipped", "Questions/IDs", "Model/RunIDs", "Charts"}

// headlineFirst splits agg's markdown into the headline (the Models
// summary with its intervals, then a benchmark's own figures, in the
// markdown's order) and the details (LIME's tables and the rest, in the
// markdown's order): a person opening the page wants the headline first.
// agg's markdown itself keeps LIME's order.
func headlineFirst(md string) (headline, details string) {
	var models, figures, rest strings.Builder
	for _, s := range mdSections(md) {
		title := strings.TrimPrefix(strings.SplitN(s, "\n", 2)[0], "### ")
		switch {
		case !strings.HasPrefix(s, "### "):
			rest.WriteString(s)
		case strings.HasPrefix(title, "Models"):
			models.WriteString(s)
		case hasPrefixAny(title, detailTitles):
			rest.WriteString(s)
		default:
			figures.WriteString(s)
		}
	}
	return models.String() + figures.String(), rest.String()
}

// mdSections cuts md before each line that opens a "### " section; text
// before the first is a section of its own.
func mdSections(md string) []string {
	var out []string
	start := 0
	for i := 0; i < len(md); {
		j := strings.IndexByte(md[i:], '\n')
		next := len(md)
		if j >= 0 {
			next = i + j + 1
		}
		if strings.HasPrefix(md[i:], "### ") && i > start {
			out = append(out, md[start:i])
			start = i
		}
		i = next
	}
	if start < len(md) {
		out = append(out, md[start:])
	}
	return out
}

func hasPrefixAny(s string, prefixes []string) bool {
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}
