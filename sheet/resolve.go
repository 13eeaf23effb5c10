package sheet

import (
	"strings"

	"github.com/evalmd/evalmd/internal/py"
)

// Info is the sheet-level record of a sheet, as LIME reports it: from the
// first sheet header only.
type Info struct {
	Name string
	Line int
	Meta map[string]string // the first meta section's data; nil without one
	// MetaLines gives the line each key of Meta is set on.
	MetaLines map[string]int
	Question  *string // the first question section's raw text; nil without one
	Present   bool    // the file has a sheet header
}

// Item is a question ready to ask: the sheet's cascade applied.
type Item struct {
	Name string
	Line int
	// Meta is the question's meta with the sheet's meta under it. As in
	// LIME, a question without its own meta section (even an empty one)
	// gets nil: the cascade happens only through a meta section.
	Meta map[string]string
	// MetaLines gives the line each key of Meta is set on (the sheet's
	// line for a key the question takes from the sheet).
	MetaLines map[string]int
	// GroundTruth is the answer text cut at its end token; nil without an
	// answer section.
	GroundTruth *string
	// Accepted are the answers a grader takes as right besides
	// GroundTruth: the accept lines after the answer's end token, which
	// LIME drops (see AcceptLine); nil without any.
	Accepted []string
	// Prompt is LIME's question text: the sheet question and the question's
	// own text, each cut at the end token, joined with nothing between.
	Prompt    string
	SheetText string // the sheet question part of Prompt (LIME's question_sys)
	Text      string // the question's own part of Prompt (LIME's question_usr)

	// Sections are the sections this tool adds, never nil in an Item
	// Resolve returns. The questions that take them all from the sheet
	// share one: an Item stays small in a sheet of a million questions.
	*Sections
}

// Sections are the sections beyond LIME's a question gets: a question's
// own section wins over the sheet's. Texts are cut at the end token.
type Sections struct {
	System   *string
	Context  *string
	Template *Located
	Files    []Located // one path per line, relative to the sheet
	// Turns are the conversation sent before the question, in order: the
	// sheet's few-shot turns, then the question's own; nil without any.
	Turns []Turn
	// Schema is the JSON Schema the answer must follow (the question's
	// schema section, else the sheet's), checked by CheckSchema; nil
	// without one.
	Schema *Located
}

// Located is a text with the line its section starts at, for errors.
type Located struct {
	Text string
	Line int
}

// Resolve walks the blocks in order as LIME's parser does: a sheet block's
// meta and question replace the cascade for the questions after it.
func (d *Doc) Resolve() (Info, []Item) { return d.resolve(false) }

// TakeItems is Resolve of a doc read only to be resolved (a run's
// sheets): each block is let go once resolved, so a sheet of a million
// questions is never held twice, as blocks and as items. d holds no
// blocks after.
func (d *Doc) TakeItems() (Info, []Item) {
	info, items := d.resolve(true)
	d.Blocks = nil
	return info, items
}

func (d *Doc) resolve(release bool) (Info, []Item) {
	var info Info
	var c cascade
	// Room for every question at once: growing a slice of a million
	// items would hold twice as many for a while.
	items := make([]Item, 0, len(d.Blocks))
	for bi := range d.Blocks {
		b := &d.Blocks[bi]
		if b.Kind == SheetKind {
			c.sheet(b, &info)
		} else if it, ok := c.item(b); ok {
			items = append(items, it)
		}
		if release {
			*b = Block{}
		}
	}
	return info, items
}

// cascade is what the last sheet block gives the questions after it.
type cascade struct {
	meta     map[string]string
	lines    map[string]int
	question string
	// sections are the sheet's, shared by the questions that have none of
	// their own (its copy made once, when the first such question asks).
	sections Sections
	shared   *Sections
}

// ownSections says whether a block has a section of Sections.
func ownSections(b *Block) bool {
	for _, s := range b.Sections {
		switch s.Kind {
		case "schema", "system", "context", "templates", "files", "user", "assistant":
			return true
		}
	}
	return false
}

// over is e with the block's own sections over it: its system, context,
// template and schema replace e's; its files and turns replace e's, or,
// with add (a question's under its sheet's), come after them.
func (e Sections) over(b *Block, add bool) Sections {
	if s := b.First("schema"); s != nil {
		e.Schema = &Located{CutEnd(s.Text), s.Line}
	}
	if t := turns(b); t != nil {
		if add {
			t = append(append([]Turn(nil), e.Turns...), t...)
		}
		e.Turns = t
	}
	if s := b.First("system"); s != nil {
		e.System = cutPtr(s.Text)
	}
	if s := b.First("context"); s != nil {
		e.Context = cutPtr(s.Text)
	}
	if s := b.First("templates"); s != nil {
		e.Template = &Located{CutEnd(s.Text), s.Line}
	}
	if s := b.First("files"); s != nil {
		if add {
			e.Files = append(append([]Located(nil), e.Files...), fileLines(s)...)
		} else {
			e.Files = fileLines(s)
		}
	}
	return e
}

// sheet takes a sheet block's sections into the cascade; the first sheet
// block is the sheet's info.
func (c *cascade) sheet(b *Block, info *Info) {
	first := !info.Present
	if first {
		*info = Info{Name: b.Name, Line: b.Line, Present: true}
	}
	for _, s := range b.Sections {
		switch s.Kind {
		case "meta":
			c.meta = ParseMeta(s.Text)
			c.lines = metaLines(s, nil)
			if first && info.Meta == nil {
				info.Meta = c.meta
				info.MetaLines = c.lines
			}
		case "question":
			c.question = CutEnd(s.Text)
			if first && info.Question == nil {
				t := s.Text
				info.Question = &t
			}
		}
	}
	c.sections = c.sections.over(b, false)
	c.shared = nil
}

// item is the question of a question block, with what the cascade gives
// it; false for a block without a question section, which LIME skips
// (the parser warned).
func (c *cascade) item(b *Block) (Item, bool) {
	q := b.First("question")
	if q == nil {
		return Item{}, false
	}
	it := Item{Name: b.Name, Line: b.Line, SheetText: c.question, Text: CutEnd(q.Text)}
	it.Prompt = it.SheetText + it.Text
	if m := b.First("meta"); m != nil {
		own := ParseMeta(m.Text)
		if c.meta != nil {
			merged := make(map[string]string, len(c.meta)+len(own))
			for k, v := range c.meta {
				merged[k] = v
			}
			for k, v := range own {
				merged[k] = v
			}
			own = merged
		}
		it.Meta = own
		it.MetaLines = map[string]int{}
		for k, v := range c.lines {
			it.MetaLines[k] = v
		}
		metaLines(*m, it.MetaLines)
	}
	if a := b.First("answer"); a != nil {
		it.GroundTruth = cutPtr(a.Text)
		it.Accepted, _ = readAccepted(a.Text)
	}
	if ownSections(b) {
		x := c.sections.over(b, true)
		it.Sections = &x
	} else {
		if c.shared == nil {
			x := c.sections
			c.shared = &x
		}
		it.Sections = c.shared
	}
	return it, true
}

func cutPtr(s string) *string {
	c := CutEnd(s)
	return &c
}

// fileLines reads a files section: one path a line, a leading "- " bullet
// allowed, blank lines skipped.
func fileLines(s *Section) []Located {
	var out []Located
	for i, line := range strings.Split(CutEnd(s.Text), "\n") {
		line = strings.TrimSpace(line)
		line = strings.TrimSpace(strings.TrimPrefix(line, "- "))
		if line == "" || line == "-" {
			continue
		}
		out = append(out, Located{line, s.Line + 1 + i})
	}
	return out
}

// ParseMeta reads "key: value" lines as LIME's extract_meta_kv does: the
// key is what stands before the first ':', a leading "-" bullet removed,
// lowercased, double spaces folded once, spaces and '-' made '_'; the value
// is the rest, stripped, and stays a string. Lines without ':' are skipped;
// a later key wins.
func ParseMeta(text string) map[string]string {
	m := map[string]string{}
	for _, line := range strings.Split(text, "\n") {
		if k, v, ok := metaLine(line); ok {
			m[k] = v
		}
	}
	return m
}

// metaLine reads one meta line (see ParseMeta).
func metaLine(line string) (key, value string, ok bool) {
	i := strings.IndexByte(line, ':')
	if i < 0 {
		return "", "", false
	}
	k, v := line[:i], line[i+1:]
	if strings.HasPrefix(k, "-") || strings.HasPrefix(k, " -") {
		k = py.Strip(k[strings.IndexByte(k, '-')+1:])
	}
	k = strings.ReplaceAll(py.Lower(py.Strip(k)), "  ", " ")
	k = strings.ReplaceAll(py.Lower(py.Strip(k)), " ", "_")
	k = strings.ReplaceAll(py.Lower(py.Strip(k)), "-", "_")
	return k, py.Strip(v), true
}

// metaLines gives the line each key of a meta section is set on (the
// last, as a later key wins), for messages about a value.
func metaLines(s Section, into map[string]int) map[string]int {
	if into == nil {
		into = map[string]int{}
	}
	for i, line := range strings.Split(s.Text, "\n") {
		if k, _, ok := metaLine(line); ok {
			into[k] = s.Line + 1 + i
		}
	}
	return into
}

// Steering is the meta that steers a question (its grader, generation
// settings, limits): the question's meta over the sheet's. LIME copies the
// sheet's meta only into questions that have a meta section of their own,
// and the recorded meta_data keeps that; a sheet-wide setting still applies
// to the others. The maps are not changed.
func Steering(question, sheet map[string]string) map[string]string {
	if len(sheet) == 0 {
		return question
	}
	if len(question) == 0 {
		return sheet
	}
	m := make(map[string]string, len(sheet)+len(question))
	for k, v := range sheet {
		m[k] = v
	}
	for k, v := range question {
		m[k] = v
	}
	return m
}
