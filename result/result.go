// Package result reads and writes output files: the JSON a run writes for
// one sheet and one model (LIME's format, with this tool's additions), and
// the readable markdown beside it. LIME's own files load as they are, and a
// file rewritten without changes keeps every field and value, including
// fields this package does not know.
//
// Find lists the output files of a folder or a glob pattern (ErrNoMatch
// when the pattern matches nothing).
//
// A run of several epochs (each question asked N times) writes one file
// per epoch under one run id, named by EpochName; Sheet.EpochOf says which
// epoch a file holds. A run split over machines (run --shard K/N) writes
// each file in N parts, one per shard, named by ShardName; CheckShard
// accepts a shard of 1 to MaxShards, and Parts puts the parts of a run
// back together as the one file a single machine writes.
//
// An answer is one Sample however many files carry it (a rerun's reused
// answers, a shard's part and its whole): SampleOf names it by the run
// that asked, its request key and its question, so readers count it once.
//
// Parse (and Read) is the one decoder of output files: grade, agg, the
// HTML report, the workbook and the Inspect logs all read through it. It
// is strict: a member of another type than its field, a null name, or an
// epoch CheckEpoch refuses (at most MaxEpochs) is refused at its line, and
// a JSON object without a "sheet" object and a "questions" array is
// ErrNotOutput. Sheet.ModelLabel (ModelLabel) is the model as agg and the
// report tell runs apart: its name with its reasoning settings.
//
// An answer is one sample however many files carry it (a rerun's reused
// answers): Sample, SampleOf and File.Samples name it, and every reader
// that counts answers counts each Sample once.
package result

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/evalmd/evalmd/internal/aimd"
	"github.com/evalmd/evalmd/internal/outfile"
	"github.com/evalmd/evalmd/internal/readfile"
	"github.com/evalmd/evalmd/model"
)

// File is one output file.
type File struct {
	Sheet     Sheet      `json:"sheet"`
	Questions []Question `json:"questions"`

	extra fields
}

// Sheet is the sheet-level record of an output file.
type Sheet struct {
	Name      string            `json:"name"`
	RunID     string            `json:"run_id"`
	ModelName string            `json:"model_name"`
	MetaData  map[string]string `json:"meta_data"`
	Question  *string           `json:"question"` // the raw sheet-level question text, null when absent

	// This tool's additions (absent from LIME's files).
	SheetFile string      `json:"sheet_file,omitempty"` // path of the sheet the run read
	Created   string      `json:"created,omitempty"`    // RFC 3339 time the run started (CreatedLayout)
	Totals    *Totals     `json:"totals,omitempty"`
	ModelInfo *model.Info `json:"model_info,omitempty"` // what the model was (provider, server, price); see Info
	// Settings are the run-level generation settings: the sheet's meta
	// under the flags. A question's own are in its Settings.
	Settings *model.Settings `json:"settings,omitempty"`
	// DryRun marks the output of a dry run (run -y): the prompts and
	// ground truths, no answers. agg leaves such files out by default.
	DryRun bool `json:"dry_run,omitempty"`
	// Subset records that the run asked only some of the sheet's
	// questions (run --limit, --questions); nil when it asked them all.
	Subset *Subset `json:"subset,omitempty"`
	// Epoch and Epochs place the file in a run that asked each question
	// Epochs times (run --epochs N): this file holds epoch Epoch (1..N)
	// of them, and the run's other epochs are files of their own under
	// the same run id. Both are absent (0) when N is 1, so a file
	// without them is epoch 1 of 1; see EpochOf.
	Epoch  int `json:"epoch,omitempty"`
	Epochs int `json:"epochs,omitempty"`
	// Shard and Shards place the file in a run split over Shards
	// machines (run --shard K/N): it holds the questions of shard Shard
	// (1..Shards), each with its Position in the sheet, and the run's
	// other shards are files of their own under the same run id, named
	// by ShardName. Both are absent (0) in a run of one machine.
	Shard  int `json:"shard,omitempty"`
	Shards int `json:"shards,omitempty"`
	// ConnectionLimits is the history of the adaptive limit on requests in
	// flight (run -c auto) of the model's server, until the file was
	// written: its start, then each change and why.
	ConnectionLimits []aimd.Change `json:"connection_limit_history,omitempty"`
	// Version names the version of the sheet's questions the run read
	// (SheetVersion over all of them, a subset's run too); "" in files
	// written before it was recorded (File.Version then computes it).
	Version string `json:"version,omitempty"`

	extra fields
}

// EpochOf returns the file's epoch and the run's number of epochs: 1 and 1
// for a file without them.
func (s *Sheet) EpochOf() (epoch, epochs int) {
	if s.Epochs == 0 {
		return 1, 1
	}
	return s.Epoch, s.Epochs
}

// CreatedLayout is how a run writes Sheet.Created: RFC 3339 with
// milliseconds. Whole seconds told two runs started in one second apart
// only by their files' modification times, which a regrade (grade -w)
// changes, so agg's newest version and a rerun's reused answers could
// flip. Readers parse it with time.RFC3339, which takes any fraction.
const CreatedLayout = "2006-01-02T15:04:05.000Z07:00"

// StartTime is when the file's run started (Created), false when it is
// not recorded or not an RFC 3339 time.
func (s *Sheet) StartTime() (time.Time, bool) {
	t, err := time.Parse(time.RFC3339, s.Created)
	return t, err == nil
}

// Subset is how a run chose the questions it asked of a sheet: the
// --questions globs (matched against a question's name or id meta), then
// the first Limit of those. Of counts the sheet's questions, so a reader
// can tell a subset's score from a whole sheet's.
type Subset struct {
	Limit     int      `json:"limit,omitempty"`
	Questions []string `json:"questions,omitempty"`
	Of        int      `json:"of"`
	// Epoch, in the file of an epoch after the first, says it leaves out
	// the questions whose epochs setting is below it (a question's epochs
	// under its sheet's).
	Epoch int `json:"epoch,omitempty"`
}

// Describe says what the subset is beside the n questions asked: "3 of 10
// questions (--limit 3)", "9 of 10 questions (those of epochs 2 or more)".
func (s *Subset) Describe(n int) string {
	var how []string
	if len(s.Questions) > 0 {
		how = append(how, "--questions "+strings.Join(s.Questions, ","))
	}
	if s.Limit > 0 {
		how = append(how, fmt.Sprintf("--limit %d", s.Limit))
	}
	why := strings.Join(how, " ")
	if s.Epoch > 1 {
		why = strings.TrimPrefix(why+fmt.Sprintf("; those of epochs %d or more", s.Epoch), "; ")
	}
	if why == "" {
		return fmt.Sprintf("%d of %d questions", n, s.Of)
	}
	return fmt.Sprintf("%d of %d questions (%s)", n, s.Of, why)
}

// Totals sums a run's usage.
type Totals struct {
	Questions    int `json:"questions"`
	Answered     int `json:"answered"` // questions with an answer (Question.HasAnswer)
	Errors       int `json:"errors"`
	InputTokens  int `json:"input_tokens"`
	OutputTokens int `json:"output_tokens"`
	// ReasoningTokens are the output tokens spent on reasoning, where the
	// provider counts them apart (a part of OutputTokens).
	ReasoningTokens int      `json:"reasoning_tokens,omitempty"`
	Cost            *float64 `json:"cost"` // null when the model's price is unknown
	WallSeconds     float64  `json:"wall_seconds"`
}

// minQuestionBytes is the fewest bytes a question takes in an output
// file: "{}" and the comma after it.
const minQuestionBytes = 3

// QuestionsHint is how many questions a reader of the output file of
// size bytes whose sheet record is s makes room for at once: the count
// its totals claim, bounded by what size bytes can hold. The totals are
// the file's word, not a fact: a planted count (-1, 10^12) sizes nothing
// beyond what an honest file of that size would.
func (s *Sheet) QuestionsHint(size int64) int {
	if s.Totals == nil || s.Totals.Questions <= 0 || size <= 0 {
		return 0
	}
	return int(min(int64(s.Totals.Questions), size/minQuestionBytes))
}

// Question is one question's record.
type Question struct {
	Name        string            `json:"name"`
	MetaData    map[string]string `json:"meta_data"`    // null when the question has no meta section (as LIME)
	GroundTruth *string           `json:"ground_truth"` // null when the question has no answer
	Question    string            `json:"question"`     // the exact user message sent
	Completion  *string           `json:"completion"`   // the answer alone; what the model thought is in Reasoning
	// Reasoning is what the model thought before its answer (returned
	// apart by the server, or a leading <think> block under the
	// think_tags rule), or a note that it came encrypted or redacted.
	// Graders never read it.
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningTokens are the output tokens spent on reasoning, when the
	// provider counts them apart: a part of OutputTokens, costed as output.
	ReasoningTokens int      `json:"reasoning_tokens,omitempty"`
	Error           *string  `json:"error"`
	ModelName       string   `json:"model_name"`
	EvalTime        *float64 `json:"eval_time"`
	Grade           *bool    `json:"grade"`

	// This tool's additions (absent from LIME's files).
	QuestionUsr  string          `json:"question_usr,omitempty"` // the question's own text (LIME's name), for judges
	System       *string         `json:"system,omitempty"`       // the system message sent
	InputTokens  int             `json:"input_tokens,omitempty"`
	OutputTokens int             `json:"output_tokens,omitempty"`
	Cost         *float64        `json:"cost,omitempty"`
	Grader       string          `json:"grader,omitempty"`
	GradeDetail  string          `json:"grade_detail,omitempty"`
	SubAnswers   []SubAnswer     `json:"sub_answers,omitempty"`
	Unanswered   bool            `json:"unanswered,omitempty"`    // the model had no answer (replay), not a wrong one
	Judge        json.RawMessage `json:"judge,omitempty"`         // an LLM judge's reply and verdict
	Settings     *model.Settings `json:"settings,omitempty"`      // the generation settings sent
	FinishReason string          `json:"finish_reason,omitempty"` // why the model stopped ("length": cut at max_tokens; "refusal")
	Note         string          `json:"note,omitempty"`          // what a reader must know of the answer: a reply with no text, a refusal
	BatchID      string          `json:"batch_id,omitempty"`      // the provider's batch that answered (run --batch); its cost is at batch prices
	// RequestKey is the key of the request asked (see harness/internal/reuse):
	// a rerun reuses this answer for a question whose request has the
	// same key. ReusedFrom names the output file whose run got the answer
	// when this run reused it instead of asking; its grade is this run's.
	RequestKey string `json:"request_key,omitempty"`
	ReusedFrom string `json:"reused_from,omitempty"`
	// ServedModel is the model the server said answered (the reply's
	// "model": "gpt-4o-2024-08-06" for a request of "gpt-4o"), so a reader
	// can tell which snapshot gave the answer; absent when the server
	// named none, for offline models and in LIME's files. A reused answer
	// keeps the one its first run recorded.
	ServedModel string `json:"served_model,omitempty"`
	// Position is the question's place in its sheet (1 for the first),
	// recorded in a shard's output (Sheet.Shards) so that the parts of
	// the run merge back in sheet order; 0 elsewhere.
	Position int `json:"position,omitempty"`
	// Grading is the grading mode the grade was given in (strict or
	// liberal) and GradingFrom where that mode was set (flag, config,
	// sheet meta or question meta); both are absent when no source set
	// it (strict), so LIME's files and a default run keep LIME's members.
	// See SetGrading.
	Grading     string `json:"grading,omitempty"`
	GradingFrom string `json:"grading_from,omitempty"`

	// Code and agent modes (model.Work): what ran beside the completion.
	// Graders and regrading read Answer in code mode and never run code.
	Mode          string            `json:"mode,omitempty"`           // "code" or "agent"; absent for chat
	CodeExtract   string            `json:"code_extract,omitempty"`   // the extraction rule: baseline, lenient
	Code          *string           `json:"code,omitempty"`           // the code executed
	Answer        *string           `json:"answer,omitempty"`         // the text graded when not the completion: code mode's str(result), a reformatted agent answer
	CodeError     string            `json:"code_error,omitempty"`     // why no code ran, or what it raised
	Transcript    []model.Message   `json:"transcript,omitempty"`     // agent mode: the turns after the question
	ReformatModel string            `json:"reformat_model,omitempty"` // agent mode: the model that rewrote the answer (run --reformat)
	Turns         int               `json:"turns,omitempty"`          // agent mode: model calls
	Limit         string            `json:"limit,omitempty"`          // the limit that ended the question
	LimitValue    float64           `json:"limit_value,omitempty"`    // its value: model calls, tokens, seconds, bytes or processes
	Sandbox       map[string]string `json:"sandbox,omitempty"`        // sandbox, python, pandas, numpy versions
	// SolveSettings are the answer mode's settings in force, as resolved
	// from the flags, meta and config (mode, agent_style, max_turns,
	// tool_timeout...: every setting a source set that is not sent with
	// the request, those being in Settings), by name; absent in chat mode.
	SolveSettings map[string]string `json:"solve_settings,omitempty"`

	extra fields
}

// SubAnswer is one part of a question with several answers (DABench's
// @name[value] pairs).
type SubAnswer struct {
	Name    string `json:"name"`
	Want    string `json:"want"`
	Got     string `json:"got"`
	Found   bool   `json:"found"`
	Correct bool   `json:"correct"`
}

// HasAnswer says whether q was answered: its completion is a text that is
// not empty. It is the one rule of an answered question, for run's count
// and agg's.
func (q *Question) HasAnswer() bool { return q.Completion != nil && *q.Completion != "" }

// Graded is the text graders read: in code mode the answer the code gave
// (nil when nothing ran), a reformatted agent answer (run --reformat),
// else the completion.
func (q *Question) Graded() *string {
	if q.Mode == model.ModeCode || q.ReformatModel != "" {
		return q.Answer
	}
	return q.Completion
}

// SetWork records what a code- or agent-mode answer ran.
func (q *Question) SetWork(w *model.Work) {
	if w == nil {
		return
	}
	q.Mode, q.CodeExtract, q.Answer, q.CodeError = w.Mode, w.Extract, w.Answer, w.Error
	if w.Code != "" {
		code := w.Code
		q.Code = &code
	}
	q.Transcript, q.Turns, q.Limit, q.LimitValue, q.Sandbox = w.Transcript, w.Turns, w.Limit, w.LimitValue, w.Env
	q.ReformatModel = w.ReformatModel
}

// ID returns the question's benchmark id (its "id" meta), or "".
func (q *Question) ID() string { return q.MetaData["id"] }

// Read loads an output file. Errors name the file and, for malformed JSON,
// the line.
func Read(path string) (*File, error) {
	data, err := readfile.ReadThrough(path, readfile.Output, GuardStrings)
	if err != nil {
		return nil, err
	}
	f, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("%s%w", path, err)
	}
	return f, nil
}

// ErrNotOutput says a JSON object is not an output file: it lacks the
// "sheet" object or the "questions" array every output file has.
var ErrNotOutput = errors.New(`no "sheet" object or "questions" array`)

// Parse decodes an output file's bytes. Its errors start with ":line: " so
// the caller can put the file name in front.
func Parse(data []byte) (*File, error) {
	if err := checkStrings(data); err != nil {
		return nil, err
	}
	if f, ok := parseFast(data); ok {
		return f, nil
	}
	return parseWalk(data)
}

// parseWalk is Parse by decodeObject's walk, which places each error at
// its line.
func parseWalk(data []byte) (*File, error) {
	var f File
	// UnmarshalJSON is called directly: json.Unmarshal would first scan
	// the whole file to validate it and again to find its end, which for
	// a large output costs more than the decoding.
	haveSheet, err := f.decode(data)
	if err != nil {
		// A member of the wrong type is located by the offsets each
		// object adds on the way out (memberError). A syntax error is
		// located by decoding once more as a plain value (the members are
		// decoded from slices, whose offsets are not the file's).
		line := 1
		var me *memberError
		var v any
		if errors.As(err, &me) {
			line = bytes.Count(data[:min(me.offset, len(data))], []byte("\n")) + 1
		}
		if serr := json.Unmarshal(data, &v); serr != nil {
			line = errLine(data, serr)
			if field, ok := nanField(data, serr); ok {
				err = fmt.Errorf("field %q holds NaN or Infinity, which is not a JSON number (Python's json writes it for a float it cannot represent)", field)
			}
		}
		return nil, fmt.Errorf(":%d: not an output file: %w", line, err)
	}
	// agg's scanner (decodeOutput) asks the same of a file it counts.
	if !haveSheet || f.Questions == nil {
		return nil, fmt.Errorf(":1: not an output file: %w", ErrNotOutput)
	}
	return &f, nil
}

// nanField says whether a syntax error is at Python's NaN or Infinity, and
// names the member that holds it.
func nanField(data []byte, err error) (string, bool) {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset < 1 || se.Offset > int64(len(data)) {
		return "", false
	}
	at := se.Offset - 1
	if c := data[at]; c != 'N' && c != 'I' {
		return "", false
	}
	// Back over `"name":` to the member's name.
	before := bytes.TrimRight(bytes.TrimSuffix(data[:at], []byte("-")), " \t\r\n")
	if !bytes.HasSuffix(before, []byte(":")) {
		return "", true
	}
	before = bytes.TrimRight(before[:len(before)-1], " \t\r\n")
	if !bytes.HasSuffix(before, []byte(`"`)) {
		return "", true
	}
	start := bytes.LastIndexByte(before[:len(before)-1], '"')
	if start < 0 {
		return "", true
	}
	return string(before[start+1 : len(before)-1]), true
}

// errLine finds the line of a JSON decoding error.
func errLine(data []byte, err error) int {
	var off int64
	switch e := err.(type) {
	case *json.SyntaxError:
		off = e.Offset
	case *json.UnmarshalTypeError:
		off = e.Offset
	default:
		return 1
	}
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	return bytes.Count(data[:off], []byte("\n")) + 1
}

// Marshal encodes the file as indented JSON (LIME writes indent 2).
func (f *File) Marshal() ([]byte, error) {
	var buf bytes.Buffer
	n := len(f.Questions)
	if f.Questions == nil {
		n = -1
	}
	err := f.WriteJSON(&buf, n, func(w io.Writer, i int) error {
		q, err := EncodeQuestion(&f.Questions[i])
		if err == nil {
			_, err = w.Write(q)
		}
		return err
	})
	return buf.Bytes(), err
}

// SolveSetting is the answer-mode setting name (mode, agent_style...) a
// question of f ran with: the one its record holds, else, in a file
// written before outputs recorded them, its meta, else its sheet's.
func (f *File) SolveSetting(q *Question, name string) string {
	if v, ok := q.SolveSettings[name]; ok {
		return v
	}
	if q.SolveSettings != nil {
		return "" // recorded: the default
	}
	if v := q.MetaData[name]; v != "" {
		return v
	}
	return f.Sheet.MetaData[name]
}

// EncodeQuestion encodes q as it stands in an output file's questions
// array, for WriteJSON: run encodes each question once it is graded, while
// other answers are still coming, and keeps none in memory. q must not
// change after.
func EncodeQuestion(q *Question) ([]byte, error) {
	raw, err := q.MarshalJSON()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	if err := json.Indent(&buf, raw, "    ", "  "); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// WriteJSON writes the file as Marshal encodes it, its questions given by
// number, n, and question, which writes question i's encoding
// (EncodeQuestion) to w: a run writes an output of a million questions
// from where it put them as they were graded, in sheet order, without
// holding the file. n < 0 writes "questions": null. The bytes are those
// of an Encoder with SetIndent("", "  ") and no HTML escaping, built a
// member at a time (encoding the whole File scans every question's bytes
// four times: encode, compact into the file, compact the file, indent).
func (f *File) WriteJSON(w io.Writer, n int, question func(w io.Writer, i int) error) error {
	sheet, err := f.Sheet.MarshalJSON()
	if err != nil {
		return err
	}
	var head bytes.Buffer
	head.WriteString("{\n  \"sheet\": ")
	if err := json.Indent(&head, sheet, "  ", "  "); err != nil {
		return err
	}
	head.WriteString(",\n  \"questions\": ")
	switch {
	case n < 0:
		head.WriteString("null")
	case n == 0:
		head.WriteString("[]")
	}
	if _, err := w.Write(head.Bytes()); err != nil {
		return err
	}
	for i := range max(n, 0) {
		sep := ",\n    "
		if i == 0 {
			sep = "[\n    "
		}
		if _, err := io.WriteString(w, sep); err != nil {
			return err
		}
		if err := question(w, i); err != nil {
			return err
		}
	}
	var tail bytes.Buffer
	if n > 0 {
		tail.WriteString("\n  ]")
	}
	for _, name := range slices.Sorted(maps.Keys(f.extra)) {
		key, _ := json.Marshal(name) // as joinExtra writes it
		tail.WriteString(",\n  ")
		tail.Write(key)
		tail.WriteString(": ")
		if err := json.Indent(&tail, f.extra[name], "  ", "  "); err != nil {
			return err
		}
	}
	tail.WriteString("\n}\n")
	_, err = w.Write(tail.Bytes())
	return err
}

// Write writes the file atomically (a reader sees the old file or the new
// one, never half of one), under outfile's rules for an existing file.
func (f *File) Write(path string, opt outfile.Options) error {
	data, err := f.Marshal()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return outfile.Write(path, data, opt)
}

// WithMarkdown is the output file at path, holding data (f marshalled),
// and its readable .md beside it (MarkdownPath), as outfile.WriteFiles
// writes them: as one, both or neither, so the two never disagree. opt and
// mdOpt are their rules.
func (f *File) WithMarkdown(path string, data []byte, opt, mdOpt outfile.Options) []outfile.File {
	return []outfile.File{outfile.Bytes(path, data, opt), outfile.Bytes(MarkdownPath(path), []byte(Markdown(f)), mdOpt)}
}

// FileName is the output file name for a sheet file, a model and a run id:
// output-<sheet>-<model>-<run_id>.json, where <sheet> is the sheet's file
// name without "input" and ".md" (LIME: input-rules-qa-1.md -> rules-qa-1)
// and the model name is made file-safe.
//
// With an empty run id the name ends at the model, as LIME's -u 0 does. A
// run id CheckRunID refuses is made file-safe like the model name, so no
// run id names another folder.
func FileName(sheetPath, modelName, runID string) string {
	base := filepath.Base(sheetPath)
	base = strings.TrimSuffix(base, ".md")
	base = strings.TrimPrefix(base, "input")
	base = strings.TrimLeft(base, "-_")
	name := "output-" + strings.Map(windowsSafe, base) + "-" + SafeName(modelName)
	if runID != "" {
		name += "-" + SafeName(strings.ReplaceAll(runID, "..", "__"))
	}
	return name + ".json"
}

// MaxEpochs bounds a run's epochs.
const MaxEpochs = 10000

// CheckEpoch says what is wrong with a file's epoch and epochs members (0
// for absent), or nil: both absent, or 1 <= epoch <= epochs <= MaxEpochs
// with epochs of 2 or more.
func CheckEpoch(epoch, epochs int) error {
	switch {
	case epoch == 0 && epochs == 0:
		return nil
	case epochs == 0:
		return fmt.Errorf("epoch %d without epochs", epoch)
	case epochs < 2 || epochs > MaxEpochs:
		return fmt.Errorf("epochs %d: 2 to %d (a run of one epoch has neither member)", epochs, MaxEpochs)
	case epoch < 1 || epoch > epochs:
		return fmt.Errorf("epoch %d of %d: 1 to %d", epoch, epochs, epochs)
	}
	return nil
}

// EpochName is the file name of epoch k of an n-epoch run whose single
// file would be name (FileName's): "-epoch<k>" before ".json", so the
// epochs of one run id sit side by side. With n <= 1 it is name.
func EpochName(name string, k, n int) string {
	if n <= 1 {
		return name
	}
	return strings.TrimSuffix(name, ".json") + fmt.Sprintf("-epoch%d.json", k)
}

// ShardName is the file name of shard k of an n-shard run whose single
// file would be name (FileName's, EpochName's): "-shard<k>of<n>" before
// ".json", so the shards of one run sit side by side and never collide
// in one folder. With n < 1 it is name.
func ShardName(name string, k, n int) string {
	if n < 1 {
		return name
	}
	return strings.TrimSuffix(name, ".json") + fmt.Sprintf("-shard%dof%d.json", k, n)
}

// CheckShard says what is wrong with a file's shard and shards members
// (0 for absent), or nil: both absent, or 1 <= shard <= shards <=
// MaxShards.
func CheckShard(shard, shards int) error {
	switch {
	case shard == 0 && shards == 0:
		return nil
	case shards < 1 || shards > MaxShards:
		return fmt.Errorf("shards %d: 1 to %d", shards, MaxShards)
	case shard < 1 || shard > shards:
		return fmt.Errorf("shard %d of %d: 1 to %d", shard, shards, shards)
	}
	return nil
}

// MaxShards bounds a run's shards.
const MaxShards = 10000

// CheckRunID accepts a run id made of letters, digits, "-", "_" and "."
// (not first), at most 64 of them: LIME's hex ids and anything a person
// would type, never a path.
func CheckRunID(id string) error {
	if len(id) > 64 {
		return fmt.Errorf("run id %.20q...: longer than 64 characters", id)
	}
	for i, r := range id {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' && i > 0
		if !ok {
			return fmt.Errorf("run id %q: only letters, digits, -, _ and . (not first) are allowed", id)
		}
	}
	return nil
}

// SafeName makes a model name usable in a file name: " " and what
// windowsSafe replaces become "_" ("replay:r.jsonl" -> "replay_r.jsonl").
func SafeName(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' {
			return '_'
		}
		return windowsSafe(r)
	}, s)
}

// windowsSafe turns a character no Windows file name may hold (<>:"/\|?*
// and control characters) into "_", so that an output folder copied to or
// written on Windows keeps every file. A name FileName makes starts with
// "output-" and ends with ".json", so it is never a reserved name (CON,
// NUL, COM1) nor ends with a dot or space.
func windowsSafe(r rune) rune {
	if r < 0x20 || r == 0x7f || strings.ContainsRune(`<>:"/\|?*`, r) {
		return '_'
	}
	return r
}

// fields holds the JSON members a struct does not know, kept for rewriting.
type fields map[string]json.RawMessage

// decodeObject walks a JSON object's members once: member decodes the
// members it knows from the decoder and reports false for the others,
// which are kept raw. One walk matters: output files run to hundreds of
// megabytes, and decoding twice (once more to find unknown members)
// doubled the time of every grade and export.
func decodeObject(data []byte, member func(name string, dec *json.Decoder) (bool, error)) (fields, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	tok, err := dec.Token()
	if err != nil {
		return nil, unexpected(err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want a JSON object, found %s", describe(tok))
	}
	var ex fields
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		name, _ := tok.(string)
		at := valueStart(data, int(dec.InputOffset()))
		ok, err := member(name, dec)
		if err != nil {
			return nil, atOffset(at, fmt.Errorf("%s: %w", name, err))
		}
		if !ok {
			var raw json.RawMessage
			if err := dec.Decode(&raw); err != nil {
				return nil, unexpected(err)
			}
			if ex == nil {
				ex = fields{}
			}
			ex[name] = raw
		}
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, unexpected(err)
	}
	// Nothing may follow the object (agg's scanner refuses it too).
	if tok, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = fmt.Errorf("data after the top-level object: %s", describe(tok))
		}
		return nil, err
	}
	return ex, nil
}

// unexpected says io.EOF, the decoder's word for a file that ends inside
// a value, as "unexpected EOF".
func unexpected(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// memberError is an error in a member's value at offset, counted from the
// start of the data being decoded: each enclosing object adds the offset
// of its own value, so Parse can name the file's line.
type memberError struct {
	offset int
	err    error
}

func (e *memberError) Error() string { return e.err.Error() }
func (e *memberError) Unwrap() error { return e.err }

// atOffset moves err to offset at: an inner memberError's offset counts
// from the value at at; any other error is placed at at.
func atOffset(at int, err error) error {
	var me *memberError
	if errors.As(err, &me) {
		return &memberError{offset: at + me.offset, err: err}
	}
	return &memberError{offset: at, err: err}
}

// valueStart returns the offset of the value after a member's name, which
// ends at off: past white space and the colon.
func valueStart(data []byte, off int) int {
	for off < len(data) {
		switch data[off] {
		case ' ', '\t', '\r', '\n', ':':
			off++
		default:
			return off
		}
	}
	return off
}

// decodeName decodes a string member whose null would lose what LIME's
// agg.py reads (pandas drops a null sheet, model, run or question name from
// its groups, where an empty string is a value): neither LIME nor this tool
// writes one, so it is refused rather than read as "".
func decodeName(dec *json.Decoder, v *string) error {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return err
	}
	if string(raw) == "null" {
		return errors.New("null, want a string")
	}
	return json.Unmarshal(raw, v)
}

// describe names a JSON token for an error message.
func describe(tok json.Token) string {
	switch v := tok.(type) {
	case nil:
		return "null"
	case json.Delim:
		if v == '[' {
			return "an array"
		}
		return string(v)
	case string:
		return "a string"
	case bool:
		return "a boolean"
	}
	return "a number"
}

// joinExtra appends extra members to an encoded JSON object.
func joinExtra(obj []byte, ex fields) ([]byte, error) {
	if len(ex) == 0 {
		return obj, nil
	}
	names := make([]string, 0, len(ex))
	for n := range ex {
		names = append(names, n)
	}
	sort.Strings(names)
	var buf bytes.Buffer
	buf.Write(obj[:len(obj)-1]) // drop '}'
	for i, n := range names {
		if i > 0 || len(obj) > 2 {
			buf.WriteByte(',')
		}
		key, _ := json.Marshal(n)
		buf.Write(key)
		buf.WriteByte(':')
		buf.Write(ex[n])
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// decodeQuestions reads the questions array one element at a time, so
// each question's bytes are scanned once by the decoder and once by its
// own UnmarshalJSON (a plain Decode would skip over each element first).
func decodeQuestions(dec *json.Decoder, qs *[]Question) error {
	tok, err := dec.Token()
	if err != nil {
		return unexpected(err)
	}
	if tok == nil {
		// No questions: evalmd wrote null for a sheet without questions
		// before it wrote [], and such files exist (agg reads them too).
		*qs = []Question{}
		return nil
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return fmt.Errorf("want an array, found %s", describe(tok))
	}
	start := int(dec.InputOffset()) - 1 // the "["
	out := []Question{}
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return unexpected(err)
		}
		var q Question
		if err := q.UnmarshalJSON(raw); err != nil {
			// Offsets count from the array (the member's value).
			at := int(dec.InputOffset()) - len(raw) - start
			return atOffset(at, fmt.Errorf("question %d: %w", len(out)+1, err))
		}
		out = append(out, q)
	}
	if _, err := dec.Token(); err != nil {
		return unexpected(err)
	}
	*qs = out
	return nil
}

type fileAlias File
type sheetAlias Sheet
type questionAlias Question

// UnmarshalJSON keeps unknown members.
func (f *File) UnmarshalJSON(data []byte) error {
	_, err := f.decode(data)
	return err
}

// decode is UnmarshalJSON, also saying whether the file had a "sheet"
// (which must be an object).
func (f *File) decode(data []byte) (haveSheet bool, err error) {
	ex, err := decodeObject(data, func(name string, dec *json.Decoder) (bool, error) {
		switch name {
		case "sheet":
			haveSheet = true
			return true, dec.Decode(&f.Sheet)
		case "questions":
			return true, decodeQuestions(dec, &f.Questions)
		}
		return false, nil
	})
	f.extra = ex
	return haveSheet, err
}

// MarshalJSON writes unknown members back after the known ones.
func (f File) MarshalJSON() ([]byte, error) {
	obj, err := marshalNoEscape((fileAlias)(f))
	if err != nil {
		return nil, err
	}
	return joinExtra(obj, f.extra)
}

// UnmarshalJSON keeps unknown members (LIME's "type", "sub_sections").
func (s *Sheet) UnmarshalJSON(data []byte) error {
	ex, err := decodeObject(data, func(name string, dec *json.Decoder) (bool, error) {
		var v any
		switch name {
		case "name":
			return true, decodeName(dec, &s.Name)
		case "run_id":
			return true, decodeName(dec, &s.RunID)
		case "model_name":
			return true, decodeName(dec, &s.ModelName)
		case "meta_data":
			v = &s.MetaData
		case "question":
			v = &s.Question
		case "sheet_file":
			v = &s.SheetFile
		case "created":
			v = &s.Created
		case "totals":
			v = &s.Totals
		case "model_info":
			v = &s.ModelInfo
		case "settings":
			v = &s.Settings
		case "dry_run":
			v = &s.DryRun
		case "subset":
			v = &s.Subset
		case "epoch":
			v = &s.Epoch
		case "epochs":
			v = &s.Epochs
		case "shard":
			v = &s.Shard
		case "shards":
			v = &s.Shards
		case "connection_limit_history":
			v = &s.ConnectionLimits
		case "version":
			v = &s.Version
		default:
			return false, nil
		}
		return true, dec.Decode(v)
	})
	s.extra = ex
	if err == nil {
		err = CheckEpoch(s.Epoch, s.Epochs)
	}
	if err == nil {
		err = CheckShard(s.Shard, s.Shards)
	}
	return err
}

// MarshalJSON writes unknown members back after the known ones.
func (s Sheet) MarshalJSON() ([]byte, error) {
	obj, err := marshalNoEscape((sheetAlias)(s))
	if err != nil {
		return nil, err
	}
	return joinExtra(obj, s.extra)
}

// UnmarshalJSON keeps unknown members (LIME's "question_sys").
func (q *Question) UnmarshalJSON(data []byte) error {
	ex, err := decodeObject(data, func(name string, dec *json.Decoder) (bool, error) {
		var v any
		switch name {
		case "name":
			return true, decodeName(dec, &q.Name)
		case "meta_data":
			v = &q.MetaData
		case "ground_truth":
			v = &q.GroundTruth
		case "question":
			v = &q.Question
		case "completion":
			v = &q.Completion
		case "reasoning":
			v = &q.Reasoning
		case "reasoning_tokens":
			v = &q.ReasoningTokens
		case "error":
			v = &q.Error
		case "model_name":
			v = &q.ModelName
		case "eval_time":
			v = &q.EvalTime
		case "grade":
			v = &q.Grade
		case "question_usr":
			v = &q.QuestionUsr
		case "system":
			v = &q.System
		case "input_tokens":
			v = &q.InputTokens
		case "output_tokens":
			v = &q.OutputTokens
		case "cost":
			v = &q.Cost
		case "grader":
			v = &q.Grader
		case "grade_detail":
			v = &q.GradeDetail
		case "grading":
			v = &q.Grading
		case "grading_from":
			v = &q.GradingFrom
		case "sub_answers":
			v = &q.SubAnswers
		case "unanswered":
			v = &q.Unanswered
		case "judge":
			v = &q.Judge
		case "settings":
			v = &q.Settings
		case "finish_reason":
			v = &q.FinishReason
		case "note":
			v = &q.Note
		case "batch_id":
			v = &q.BatchID
		case "request_key":
			v = &q.RequestKey
		case "reused_from":
			v = &q.ReusedFrom
		case "served_model":
			v = &q.ServedModel
		case "position":
			v = &q.Position
		case "mode":
			v = &q.Mode
		case "code_extract":
			v = &q.CodeExtract
		case "code":
			v = &q.Code
		case "answer":
			v = &q.Answer
		case "code_error":
			v = &q.CodeError
		case "transcript":
			v = &q.Transcript
		case "turns":
			v = &q.Turns
		case "limit":
			v = &q.Limit
		case "limit_value":
			v = &q.LimitValue
		case "sandbox":
			v = &q.Sandbox
		case "reformat_model":
			v = &q.ReformatModel
		case "solve_settings":
			v = &q.SolveSettings
		default:
			return false, nil
		}
		return true, dec.Decode(v)
	})
	q.extra = ex
	return err
}

// MarshalJSON writes unknown members back after the known ones.
func (q Question) MarshalJSON() ([]byte, error) {
	obj, err := marshalNoEscape((questionAlias)(q))
	if err != nil {
		return nil, err
	}
	return joinExtra(obj, q.extra)
}

func marshalNoEscape(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
