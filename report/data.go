package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/evalmd/evalmd/regrade"
	"github.com/evalmd/evalmd/result"
	"github.com/evalmd/evalmd/verdict"
)

// Data is the page's data, the JSON its script reads. Texts are ids into
// Texts, each text a list of ids into Chunks; -1 is no text (null).
type Data struct {
	// root is the folder the files are named relative to (not in the
	// JSON: the page's header names the files left out by it).
	root      string
	Files     int        `json:"files"`
	Runs      []Run      `json:"runs"`
	Models    []string   `json:"models"`
	Sheets    []string   `json:"sheets"`
	Questions []Question `json:"questions"`
	Texts     [][]int    `json:"texts"`
	Chunks    []string   `json:"chunks"`
}

// Text returns text id's content; ok is false for -1 (no text).
func (d *Data) Text(id int) (s string, ok bool) {
	if id < 0 || id >= len(d.Texts) {
		return "", false
	}
	var b strings.Builder
	for _, c := range d.Texts[id] {
		b.WriteString(d.Chunks[c])
	}
	return b.String(), true
}

// Run is one model's run: the output files with the same model and run id,
// one per sheet.
type Run struct {
	Key   string `json:"key"` // model@run_id, the name the URL uses
	Model string `json:"model"`
	RunID string `json:"run"`
	Label string `json:"label"` // the model, with the run id when the model has several runs
}

// Question is one question of one sheet with every run's answer.
type Question struct {
	Key     string   `json:"k"` // sheet/name, unique in the page
	Sheet   int      `json:"s"` // index in Sheets
	Name    string   `json:"n"`
	Answers []Answer `json:"a"`
}

// Answer is one run's record of a question.
type Answer struct {
	Run        int    `json:"r"`   // index in Runs
	File       string `json:"f"`   // the output file, relative to the folder read
	System     int    `json:"sys"` // the system message sent
	User       int    `json:"u"`   // the user message sent
	Truth      int    `json:"t"`   // the ground truth
	Completion int    `json:"c"`
	Reasoning  *int   `json:"rs,omitempty"` // what the model thought before its answer, nil for none: shown folded under it
	Error      int    `json:"e"`
	Grade      int    `json:"g"` // 1 right, 0 wrong, -1 not graded
	// Epoch is the answer's epoch in a run of several (1..N), 0 in a run
	// of one: the epochs of a run are answers of the same Run.
	Epoch int `json:"ep,omitempty"`
	// Reused is the output file the answer was reused from (run reuses
	// an earlier run's answer to the same request instead of asking
	// again), "" for an answer asked in its own run.
	Reused string `json:"ru,omitempty"`
	Info   string `json:"i,omitempty"`
	// Sections are shown after the completion, in order (see sections).
	Sections []Section `json:"x,omitempty"`
	// Review, when a person's verdict covers the answer, says whose it
	// is; Grade is then the person's.
	Review *Review `json:"rv,omitempty"`
	// Ref names the answer to the server that serves the page, for a
	// verdict on it (Options.Verdicts); nil on a page of no server.
	Ref *Ref `json:"ref,omitempty"`
}

// Review is a person's verdict on an answer, as the output records it.
type Review struct {
	By     string `json:"by"`
	At     string `json:"at"`
	Reason string `json:"why,omitempty"`
	Grader int    `json:"gg"` // what the grader gave: 1 right, 0 wrong, -1 none
}

// Ref is how the page names an answer to its server: the question's
// index in its output file (Answer.File) and the digest of the text
// graded (verdict.Digest), so that a verdict made on a page older than
// the file is refused rather than put on another answer.
type Ref struct {
	Index  int    `json:"i"`
	Answer string `json:"d"`
}

// Section is a titled text shown with an answer. Kind is a hint for the
// page: "code" for code and program output, "" for prose.
type Section struct {
	Title string `json:"t"`
	Text  int    `json:"x"`
	Kind  string `json:"k,omitempty"`
}

// Titles of the sections that say what an answer's code ran and what was
// graded (other sections: an agent's turns, the grader's detail).
const (
	SectionCode      = "Code"
	SectionAnswer    = "Code's answer (graded)"
	SectionCodeError = "Code error"
	SectionDetail    = "Grade detail"
	SectionSubs      = "Sub-answers"
	SectionJudge     = "Judge"
	SectionSchema    = "Response schema"
)

// sections lists what an answer shows beside its completion, in order: what
// code mode ran (the code, its answer, its error), an agent's transcript
// (a section per turn: the model's text, each python call's code, each
// tool output), then the grader's detail, DABench's sub-answers and a
// judge's reply. Another record a mode adds becomes a section here; the
// page shows any list of sections without change.
func sections(q *result.Question, st *store) []Section {
	var out []Section
	add := func(title, text, kind string) {
		out = append(out, Section{Title: title, Text: st.text(text), Kind: kind})
	}
	if q.Code != nil {
		add(SectionCode, *q.Code, "code")
	}
	if q.Answer != nil {
		add(SectionAnswer, *q.Answer, "code")
	}
	if q.CodeError != "" {
		add(SectionCodeError, q.CodeError, "code")
	}
	// A turn is a model call, as q.Turns counts them: an assistant message
	// starts one, the tool results after it belong to it.
	n := 0
	for _, m := range q.Transcript {
		if m.Role == "assistant" || n == 0 {
			n++
		}
		turn := fmt.Sprintf("Turn %d: %s", n, m.Role)
		if m.Content != "" || len(m.ToolCalls) == 0 {
			kind := ""
			if m.Role == "tool" {
				kind = "code"
				if m.ToolLimit != "" {
					turn += " (limit: " + m.ToolLimit + ")"
				}
			}
			add(turn, m.Content, kind)
		}
		for _, c := range m.ToolCalls {
			add(turn+" calls "+c.Name, toolCode(c.Arguments), "code")
		}
	}
	if q.ResponseSchema != "" {
		add(SectionSchema, q.ResponseSchema, "code")
	}
	if q.GradeDetail != "" {
		add(SectionDetail, q.GradeDetail, "")
	}
	if len(q.SubAnswers) > 0 {
		var b strings.Builder
		for _, s := range q.SubAnswers {
			mark := "wrong"
			switch {
			case s.Correct:
				mark = "right"
			case !s.Found:
				mark = "missing"
			}
			fmt.Fprintf(&b, "%s: want %q, got %q (%s)\n", s.Name, s.Want, s.Got, mark)
		}
		add(SectionSubs, b.String(), "code")
	}
	if len(q.Judge) > 0 && string(q.Judge) != "null" {
		var b bytes.Buffer
		if json.Indent(&b, q.Judge, "", "  ") != nil {
			b.Reset()
			b.Write(q.Judge)
		}
		add(SectionJudge, b.String(), "code")
	}
	return out
}

// toolCode shows a tool call's arguments: the code itself when they are
// {"code": "..."} (the python tool), else the JSON as sent.
func toolCode(args string) string {
	var a struct {
		Code *string `json:"code"`
	}
	if json.Unmarshal([]byte(args), &a) == nil && a.Code != nil {
		return *a.Code
	}
	return args
}

// info is an answer's one-line summary: grader, usage, time.
func info(q *result.Question) string {
	var parts []string
	if q.Mode != "" {
		parts = append(parts, q.Mode+" mode")
	}
	if q.Turns > 0 {
		parts = append(parts, count(q.Turns, "turn"))
	}
	if q.Limit != "" {
		parts = append(parts, "stopped by "+q.Limit)
	}
	if q.Grader != "" {
		parts = append(parts, "grader "+q.Grader)
	}
	if q.Liberal() {
		parts = append(parts, "graded liberally")
	}
	if q.Unanswered {
		parts = append(parts, "unanswered")
	}
	if q.InputTokens != 0 || q.OutputTokens != 0 {
		reasoning := ""
		if q.ReasoningTokens > 0 {
			reasoning = fmt.Sprintf(" (%d reasoning)", q.ReasoningTokens)
		}
		parts = append(parts, fmt.Sprintf("%d in / %d out tokens%s", q.InputTokens, q.OutputTokens, reasoning))
	}
	if q.Cost != nil {
		parts = append(parts, "$"+strconv.FormatFloat(*q.Cost, 'g', 4, 64))
	}
	if q.EvalTime != nil {
		parts = append(parts, strconv.FormatFloat(*q.EvalTime, 'f', 2, 64)+" s")
	}
	return strings.Join(parts, " · ")
}

// reasoningText is the id of q's reasoning text, nil when it has none.
// promptText is the user side of q's prompt as the question view shows
// it: the user message, after the conversation's turns when there are
// any, each turn under its role in brackets.
func promptText(q *result.Question) string {
	if len(q.Conversation) == 0 {
		return q.Question
	}
	var b strings.Builder
	for _, m := range q.Conversation {
		fmt.Fprintf(&b, "[%s]\n%s\n\n", m.Role, m.Content)
	}
	b.WriteString("[user]\n" + q.Question)
	return b.String()
}

func reasoningText(q *result.Question, st *store) *int {
	if q.Reasoning == "" {
		return nil
	}
	id := st.text(q.Reasoning)
	return &id
}

// Builder collects the output files a page shows into its Data, a file at
// a time, as agg reads them (agg.LoadOptions.Each): NewBuilder, Add, then
// Data.
type Builder struct {
	root      string // files are named relative to it
	st        *store
	files     int
	runs      map[string]int // run key -> index in runList
	runList   []Run
	sheets    map[string]int
	sheetList []string
	qs        map[string]int // question key -> index in questions
	questions []Question
	refs      bool // give each answer its Ref (a page that takes verdicts)
}

// NewBuilder returns a Builder for the output files below dir (a folder
// or agg's glob pattern), which names them in the page.
func NewBuilder(dir string) *Builder {
	return &Builder{root: result.DisplayRoot(dir), st: newStore(), runs: map[string]int{}, sheets: map[string]int{}, qs: map[string]int{}}
}

// Add adds the output file f read from path.
func (b *Builder) Add(path string, f *result.File) {
	file, err := filepath.Rel(b.root, path)
	if err != nil {
		file = path
	}
	file = filepath.ToSlash(file)
	b.files++
	// The model as agg names it: one model at two reasoning efforts is
	// two models.
	mdl := f.Sheet.ModelLabel()
	rk := mdl + "@" + f.Sheet.RunID
	run, ok := b.runs[rk]
	if !ok {
		run = len(b.runList)
		b.runs[rk] = run
		b.runList = append(b.runList, Run{Key: rk, Model: mdl, RunID: f.Sheet.RunID})
	}
	sheet, ok := b.sheets[f.Sheet.Name]
	if !ok {
		sheet = len(b.sheetList)
		b.sheets[f.Sheet.Name] = sheet
		b.sheetList = append(b.sheetList, f.Sheet.Name)
	}
	seen := map[string]int{} // a name repeated in one file is another question
	for i := range f.Questions {
		q := &f.Questions[i]
		seen[q.Name]++
		key := f.Sheet.Name + "/" + q.Name
		if n := seen[q.Name]; n > 1 {
			key += "#" + strconv.Itoa(n)
		}
		qi, ok := b.qs[key]
		if !ok {
			qi = len(b.questions)
			b.qs[key] = qi
			b.questions = append(b.questions, Question{Key: key, Sheet: sheet, Name: q.Name})
		}
		at := f.Origin(i)
		a := Answer{
			Run: run, File: b.partFile(file, at), System: b.st.textp(q.System), User: b.st.text(promptText(q)),
			Truth: b.st.textp(q.GroundTruth), Completion: b.st.textp(q.Completion), Reasoning: reasoningText(q, b.st), Error: b.st.textp(q.Error),
			Grade: gradeNumber(q.Grade), Epoch: f.Sheet.Epoch, Reused: q.ReusedFrom, Info: info(q), Sections: sections(q, b.st),
			Review: review(q),
		}
		if b.refs {
			a.Ref = &Ref{Index: at.Index, Answer: verdict.Digest(regrade.GradedText(f, q))}
		}
		b.questions[qi].Answers = append(b.questions[qi].Answers, a)
	}
}

// partFile is the output file, relative to the folder read, that holds
// a question of the file named file as it was read (at): a run split in
// shards is the one file its parts make, on no disk, and each answer
// names the part it is in.
func (b *Builder) partFile(file string, at result.Origin) string {
	if at.Part == "" {
		return file
	}
	if r, err := filepath.Rel(b.root, at.Part); err == nil {
		return filepath.ToSlash(r)
	}
	return at.Part
}

// gradeNumber is a grade as the page holds it: 1 right, 0 wrong, -1 none.
func gradeNumber(g *bool) int {
	switch {
	case g == nil:
		return -1
	case *g:
		return 1
	}
	return 0
}

// review is the person's verdict q records, or nil.
func review(q *result.Question) *Review {
	if q.Review == nil {
		return nil
	}
	return &Review{By: q.Review.By, At: q.Review.At, Reason: q.Review.Reason, Grader: gradeNumber(q.Review.GraderGrade)}
}

// Data returns what was added: runs ordered by model and run id, sheets
// by name, questions by sheet (keeping each sheet's question order) and
// answers by run, then epoch.
func (b *Builder) Data() *Data {
	runOrder := make([]int, len(b.runList))
	for i := range runOrder {
		runOrder[i] = i
	}
	sort.SliceStable(runOrder, func(i, j int) bool {
		a, c := b.runList[runOrder[i]], b.runList[runOrder[j]]
		if a.Model != c.Model {
			return a.Model < c.Model
		}
		return a.RunID < c.RunID
	})
	newRun := make([]int, len(b.runList))
	runs := make([]Run, len(b.runList))
	perModel := map[string]int{}
	for _, r := range b.runList {
		perModel[r.Model]++
	}
	var models []string
	for n, old := range runOrder {
		r := b.runList[old]
		newRun[old] = n
		r.Label = r.Model
		if perModel[r.Model] > 1 {
			r.Label += " · " + r.RunID
		}
		if n == 0 || runs[n-1].Model != r.Model {
			models = append(models, r.Model)
		}
		runs[n] = r
	}
	sheets := append([]string(nil), b.sheetList...)
	sort.Strings(sheets)
	newSheet := make([]int, len(b.sheetList))
	for old, name := range b.sheetList {
		newSheet[old] = sort.SearchStrings(sheets, name)
	}
	qs := b.questions
	for i := range qs {
		qs[i].Sheet = newSheet[qs[i].Sheet]
		for j := range qs[i].Answers {
			qs[i].Answers[j].Run = newRun[qs[i].Answers[j].Run]
		}
		as := qs[i].Answers
		sort.SliceStable(as, func(x, y int) bool {
			if as[x].Run != as[y].Run {
				return as[x].Run < as[y].Run
			}
			return as[x].Epoch < as[y].Epoch
		})
	}
	sort.SliceStable(qs, func(i, j int) bool { return qs[i].Sheet < qs[j].Sheet })
	return &Data{root: b.root, Files: b.files, Runs: runs, Models: models, Sheets: sheets, Questions: qs,
		Texts: b.st.texts, Chunks: b.st.chunks}
}

// store interns texts and their chunks.
type store struct {
	textIDs  map[string]int
	texts    [][]int
	chunkIDs map[string]int
	chunks   []string
}

func newStore() *store { return &store{textIDs: map[string]int{}, chunkIDs: map[string]int{}} }

// textp interns *s; nil is -1.
func (s *store) textp(p *string) int {
	if p == nil {
		return -1
	}
	return s.text(*p)
}

// text interns t and returns its id.
func (s *store) text(t string) int {
	if id, ok := s.textIDs[t]; ok {
		return id
	}
	parts := chunk(t)
	ids := make([]int, len(parts))
	for i, c := range parts {
		id, ok := s.chunkIDs[c]
		if !ok {
			id = len(s.chunks)
			s.chunkIDs[c] = id
			s.chunks = append(s.chunks, c)
		}
		ids[i] = id
	}
	id := len(s.texts)
	s.textIDs[t] = id
	s.texts = append(s.texts, ids)
	return id
}

// Chunking: a chunk ends after a line whose hash is 0 mod chunkLines, once
// the chunk holds minChunk bytes, or at maxChunk bytes. Because where a
// chunk ends depends on the lines' content, not on their offsets, two
// texts sharing a run of lines (an introduction, a workbook) cut it into
// the same chunks even when one text starts somewhere else (a prompt cut
// to a model's context from the front).
const (
	chunkLines = 8
	minChunk   = 256
	maxChunk   = 64 << 10
)

// chunk cuts t into chunks; joined, they are t. Short texts are one chunk.
func chunk(t string) []string {
	if len(t) <= 2*minChunk {
		return []string{t}
	}
	var out []string
	start := 0
	for i := 0; i < len(t); {
		j := strings.IndexByte(t[i:], '\n')
		if j < 0 {
			break
		}
		end := i + j + 1
		n := end - start
		if n >= maxChunk || (n >= minChunk && lineHash(t[i:end])%chunkLines == 0) {
			out = append(out, t[start:end])
			start = end
		}
		i = end
	}
	if start < len(t) {
		out = append(out, t[start:])
	}
	return out
}

func lineHash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}
