// Package result reads and writes output files: the JSON a run writes for
// one sheet and one model (LIME's format, with this tool's additions), and
// the readable markdown beside it. LIME's own files load as they are, and a
// file rewritten without changes keeps every field and value, including
// fields this package does not know.
//
// Find lists the output files of a folder or a glob pattern (ErrNoMatch
// when the pattern matches nothing), by LIME's rule, IsOutputName.
//
// A run of several epochs (each question asked N times) writes one file
// per epoch under one run id, named by EpochName; Sheet.EpochOf says which
// epoch a file holds. A run split over machines (run --shard K/N) writes
// each file in N parts, one per shard, named by ShardName; CheckShard
// accepts a shard of 1 to MaxShards, and Parts puts the parts of a run
// back together as the one file a single machine writes (MergeParts;
// MergeNamed). File.Origin says where each question of such a file was
// read, its part and its index there, which File.Keep keeps.
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
	"slices"
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
	// origins say where each question was read, when that is not f's
	// own index in one file (Origin).
	origins []Origin
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
	// Configuration are the run-level generation settings the flags and
	// the config files gave, the sheet's meta left out: what names a
	// configuration of the model (ModelLabel), two of which are two rows
	// of a leaderboard, where a setting the sheet holds is the sheet's,
	// and a run after its change supersedes the runs before (nil: none).
	Configuration *model.Settings `json:"configuration,omitempty"`
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
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// CacheReadTokens and CacheWriteTokens are the input tokens read from
	// and written to the provider's prompt cache (parts of InputTokens).
	CacheReadTokens  int      `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int      `json:"cache_write_tokens,omitempty"`
	Cost             *float64 `json:"cost"` // null when the model's price is unknown
	// CacheSaved sums the questions' CacheSaved; absent when none has one.
	CacheSaved  *float64 `json:"cache_saved,omitempty"`
	WallSeconds float64  `json:"wall_seconds"`
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
	// ThinkBlocks is the leading text of a chat reply the think_tags rule
	// took out (its reasoning blocks, tags and all), so that a rerun
	// under another rule regrades the reply as it was sent (Resplit)
	// without asking again; "" when nothing was taken out.
	ThinkBlocks string `json:"think_blocks,omitempty"`
	// ReasoningTokens are the output tokens spent on reasoning, when the
	// provider counts them apart: a part of OutputTokens, costed as output.
	ReasoningTokens int      `json:"reasoning_tokens,omitempty"`
	Error           *string  `json:"error"`
	ModelName       string   `json:"model_name"`
	EvalTime        *float64 `json:"eval_time"`
	Grade           *bool    `json:"grade"`

	// This tool's additions (absent from LIME's files).
	QuestionUsr string  `json:"question_usr,omitempty"` // the question's own text (LIME's name), for judges
	System      *string `json:"system,omitempty"`       // the system message sent
	// Conversation are the turns sent before Question, in order: the
	// sheet's few-shot turns, then the question's own; absent without
	// any, so Question is the whole user side of a sheet without turns.
	Conversation []model.Message `json:"conversation,omitempty"`
	// ResponseSchema is the JSON Schema the answer was asked to follow
	// (the sheet's schema section, compacted), as text, so that it reads
	// back as it was sent; absent without one. The settings record
	// response_format.
	ResponseSchema string `json:"response_schema,omitempty"`
	// ImagesSent are the base names of the question's images sent with
	// its message; ImagesNotSent those left out because the model takes
	// no images (run --vision). Both absent for a question without one.
	ImagesSent    []string `json:"images_sent,omitempty"`
	ImagesNotSent []string `json:"images_not_sent,omitempty"`
	// Accepted are the answers graded right besides the ground truth
	// (the sheet's accept lines), tried in order when the grader finds
	// the answer wrong against the truth; absent without any.
	Accepted     []string `json:"accepted,omitempty"`
	InputTokens  int      `json:"input_tokens,omitempty"`
	OutputTokens int      `json:"output_tokens,omitempty"`
	// CacheReadTokens and CacheWriteTokens are the input tokens the
	// provider read from and wrote to its prompt cache: parts of
	// InputTokens, costed at the cache rates.
	CacheReadTokens  int      `json:"cache_read_tokens,omitempty"`
	CacheWriteTokens int      `json:"cache_write_tokens,omitempty"`
	Cost             *float64 `json:"cost,omitempty"`
	// CacheSaved is what the prompt cache saved on the question: its cost
	// with every input token at the full input price, less Cost (below 0
	// where a cache write cost more than it saved); absent when nothing
	// was read from or written to the cache, or the price is unknown.
	CacheSaved   *float64        `json:"cache_saved,omitempty"`
	Grader       string          `json:"grader,omitempty"`
	GradeDetail  string          `json:"grade_detail,omitempty"`
	SubAnswers   []SubAnswer     `json:"sub_answers,omitempty"`
	AlsoGraded   []AlsoGrade     `json:"also_graded,omitempty"`   // the verdicts of the also_grade meta's graders, beside the grade, never changing it
	Unanswered   bool            `json:"unanswered,omitempty"`    // the model had no answer (replay), not a wrong one
	Judge        json.RawMessage `json:"judge,omitempty"`         // an LLM judge's reply and verdict
	Settings     *model.Settings `json:"settings,omitempty"`      // the generation settings sent
	FinishReason string          `json:"finish_reason,omitempty"` // why the model stopped ("length": cut at max_tokens; "refusal")
	Note         string          `json:"note,omitempty"`          // what a reader must know of the answer: a reply with no text, a refusal
	BatchID      string          `json:"batch_id,omitempty"`      // the provider's batch that answered (run --batch); its cost is at batch prices
	// RequestKey is the key of the request asked (see harness/internal/reuse):
	// a rerun reuses this answer for a question whose request has the
	// same key. ReusedFrom names the output file this run took the answer
	// from instead of asking (its base name: the file is in the output's
	// folder, or in the Superseded folder beside it once put aside); its
	// grade is this run's. AskedIn, when the answer had been reused there
	// already, names the output file whose run asked the model: the
	// sample's run (Sample), which may have been removed since.
	RequestKey string `json:"request_key,omitempty"`
	ReusedFrom string `json:"reused_from,omitempty"`
	AskedIn    string `json:"asked_in,omitempty"`
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
	// Review, when a person's verdict covers this answer (package
	// verdict), says who decided and what the grader had said: Grade is
	// then the person's, so every reader (LIME's agg.py too) counts it.
	Review *Review `json:"review,omitempty"`

	// Code and agent modes (model.ToolRun): what ran beside the completion.
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

// Review records a person's verdict on an answer (see package verdict):
// the question's Grade is the verdict's, and GraderGrade is what its
// grader gave, kept so the grader can be measured against people.
type Review struct {
	By          string `json:"by"`
	At          string `json:"at"` // RFC 3339, UTC
	Reason      string `json:"reason,omitempty"`
	GraderGrade *bool  `json:"grader_grade"` // null when the grader gave none
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

// AlsoGrade is one further grader's verdict on a question's answer (the
// also_grade meta): recorded, not counted.
type AlsoGrade struct {
	Grader string `json:"grader"`
	Grade  *bool  `json:"grade"`
	Detail string `json:"grade_detail,omitempty"`
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
func (q *Question) SetWork(w *model.ToolRun) {
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
