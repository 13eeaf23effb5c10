package evalmd_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestDocLinks reads the project's markdown pages (README, CONTRIBUTING,
// BENCHMARKS and docs/): every local link names a file that exists, and
// an anchor (#...) a heading of its page, as GitHub makes heading anchors;
// no page holds a section twice (a page assembled from pieces did) or
// links to itself by name where an anchor is meant.
func TestDocLinks(t *testing.T) {
	pages, err := filepath.Glob("docs/*.md")
	if err != nil {
		t.Fatal(err)
	}
	pages = append(pages, "README.md", "CONTRIBUTING.md", "BENCHMARKS.md")
	anchors := map[string]map[string]bool{}
	for _, p := range pages {
		text, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		anchors[p] = map[string]bool{}
		for _, h := range headings(string(text)) {
			if anchors[p][slug(h)] {
				t.Errorf("%s: section %q twice", p, h)
			}
			anchors[p][slug(h)] = true
		}
	}
	link := regexp.MustCompile(`\]\(([^)\s]+)\)`)
	for _, p := range pages {
		text, _ := os.ReadFile(p)
		for _, m := range link.FindAllStringSubmatch(prose(string(text)), -1) {
			target := m[1]
			if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
				continue
			}
			file, anchor, _ := strings.Cut(target, "#")
			page := p
			if file != "" {
				page = filepath.Clean(filepath.Join(filepath.Dir(p), file))
				if page == p {
					t.Errorf("%s: links to itself as %q; link its section (#...)", p, target)
				}
				if _, err := os.Stat(page); err != nil {
					t.Errorf("%s: link %q: %v", p, target, err)
					continue
				}
			}
			if anchor == "" {
				continue
			}
			known, ok := anchors[page]
			if !ok {
				continue // a page outside those read: its anchors are not checked
			}
			if !known[anchor] {
				t.Errorf("%s: link %q: %s has no such section", p, target, page)
			}
		}
	}
}

// prose is a page without its fenced code blocks.
func prose(text string) string {
	var b strings.Builder
	fenced := false
	for line := range strings.Lines(text) {
		if strings.HasPrefix(strings.TrimSpace(line), "```") {
			fenced = !fenced
			continue
		}
		if !fenced {
			b.WriteString(line)
		}
	}
	return b.String()
}

// headings are a page's headings, outside code blocks.
func headings(text string) []string {
	var hs []string
	for line := range strings.Lines(prose(text)) {
		line = strings.TrimRight(line, "\n")
		if h := strings.TrimLeft(line, "#"); len(h) < len(line) && strings.HasPrefix(h, " ") {
			hs = append(hs, strings.TrimSpace(h))
		}
	}
	return hs
}

// slug is GitHub's anchor of a heading: lower case, spaces as hyphens,
// every other character but letters, digits, hyphens and underscores
// dropped.
func slug(h string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(h) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r > 127:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// TestReadmeSheetIsInit holds the README to its word: the sheet it shows
// as the one `evalmd init` writes is that file, whole.
func TestReadmeSheetIsInit(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	init, err := os.ReadFile("cmd/internal/starter/files/input-first-steps.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(readme), "## A sheet\n")
	if !ok {
		t.Fatal("README.md: no section \"A sheet\"")
	}
	_, block, ok := strings.Cut(rest, "```markdown\n")
	block, _, closed := strings.Cut(block, "```\n")
	if !ok || !closed {
		t.Fatal("README.md: the section \"A sheet\" shows no markdown block")
	}
	if block != string(init) {
		t.Errorf("README.md's sheet is not the one evalmd init writes (cmd/internal/starter/files/input-first-steps.md):\n%s", block)
	}
}

// TestReadmeOpensWithTheLoop keeps the loop's commands on the README's
// first screen, where a newcomer looks.
func TestReadmeOpensWithTheLoop(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	first := strings.Join(strings.SplitN(string(readme), "\n", 41)[:40], "\n")
	for _, cmd := range []string{"evalmd init", "evalmd run", "evalmd grade", "evalmd review", "evalmd agg"} {
		if !strings.Contains(first, cmd) {
			t.Errorf("README.md's first 40 lines lack %q", cmd)
		}
	}
}
