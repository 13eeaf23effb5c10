package builtin

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/evalmd/evalmd/model"
)

// randomModel is the chance baseline: it answers one of the options it finds
// in the question text, or, to a question that asks for its answer as
// @name[value] lines (DABench), each name asked with a random value,
// chosen by a hash of the seed and the question's identity, so a question
// gets the same pick in every run with that seed, whatever order or
// concurrency the requests come in.
type randomModel struct {
	name string
	seed int64
}

func newRandom(name string, opt model.Options) *randomModel {
	return &randomModel{name: name, seed: model.ProviderOption[Options](opt).Seed}
}

// noOptionsReply is what "random" answers to a question in which it finds no
// options and no @name[value] format: a free-form question's chance score is zero, so the baseline
// answers, and is graded wrong, rather than skipping it.
const noOptionsReply = "(random: no options found)"

// optionLine matches an option line: "A) ...", "B. ...", "(C) ...", with an
// optional "-" or "*" bullet before it. Capital letters only, so that prose
// such as "e.g." or "a. m." is not taken for an option.
var optionLine = regexp.MustCompile(`(?m)^[ \t]*(?:[-*][ \t]+)?(?:\(([A-Z])\)|([A-Z])[.)])[ \t]+\S`)

// formatName matches a name a question asks its answer under, "@name[" of
// DABench's "@mean_fare[mean_fare_value]", with the letters its grader
// reads a name with.
var formatName = regexp.MustCompile(`@([\p{L}\p{N}_]+)\[`)

// Name returns "random".
func (m *randomModel) Name() string { return m.name }

// Info says the baseline is offline and free.
func (m *randomModel) Info() model.Info { return randomInfo(m.name) }

// randomInfo is the baseline's Info: it answers from the question's name,
// id and sheet, never its ground truth.
func randomInfo(name string) model.Info {
	i := info("random", name, true)
	i.TruthBlind = true
	return i
}

// Complete answers as Answer does for a question known by its text alone.
func (m *randomModel) Complete(ctx context.Context, req model.Request) (model.Response, error) {
	return m.Answer(ctx, model.Task{Request: req})
}

// Answer answers the letter of one option of the question.
func (m *randomModel) Answer(ctx context.Context, req model.Task) (model.Response, error) {
	if err := ctx.Err(); err != nil {
		return model.Response{}, fmt.Errorf("model %s, question %q: %w", m.name, req.Question.Name, err)
	}
	var text string
	for _, msg := range req.Messages {
		if msg.Role == "user" {
			text += msg.Content + "\n"
		}
	}
	if names := formatNames(text); len(names) > 0 {
		return model.Response{Text: formatted(names, m.pick(req, text))}, nil
	}
	opts := options(text)
	if len(opts) == 0 {
		return model.Response{Text: noOptionsReply}, nil
	}
	return model.Response{Text: opts[m.pick(req, text)%uint64(len(opts))]}, nil
}

// formatNames returns the names text asks answers under (formatName), each
// once, in order.
func formatNames(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, sub := range formatName.FindAllStringSubmatch(text, -1) {
		if !seen[sub[1]] {
			seen[sub[1]] = true
			out = append(out, sub[1])
		}
	}
	return out
}

// formatted is the answer in the format asked: one @name[value] line per
// name, each value a number from 0 to 0.99 drawn from pick, as the
// two-decimal figures DABench mostly asks for are written.
func formatted(names []string, pick uint64) string {
	var b strings.Builder
	for i, n := range names {
		fmt.Fprintf(&b, "@%s[0.%02d]\n", n, mix(pick+uint64(i))%100)
	}
	return strings.TrimSuffix(b.String(), "\n")
}

// ReuseBasis is what the baseline's pick depends on beyond the task: the
// seed (see harness/internal/reuse).
func (m *randomModel) ReuseBasis(model.QuestionRef) string { return fmt.Sprintf("seed %d", m.seed) }

// options returns the option letters found in text, each once, in order.
func options(text string) []string {
	var out []string
	seen := map[string]bool{}
	for _, sub := range optionLine.FindAllStringSubmatch(text, -1) {
		letter := sub[1] + sub[2] // one of the two groups matched
		if !seen[letter] {
			seen[letter] = true
			out = append(out, letter)
		}
	}
	return out
}

// pick hashes the seed with the question's identity (the sheet's file
// name, the question's name and id; the text when the question has neither
// name nor id; the epoch past the first). The file name, not its path, so the baseline is the same
// from any working directory.
func (m *randomModel) pick(req model.Task, text string) uint64 {
	h := fnv.New64a()
	var seed [8]byte
	binary.LittleEndian.PutUint64(seed[:], uint64(m.seed))
	h.Write(seed[:])
	q := req.Question
	if q.Name == "" && q.ID == "" {
		h.Write([]byte(text))
	} else {
		for _, s := range []string{filepath.Base(q.Sheet), q.Name, q.ID} {
			h.Write([]byte(s))
			h.Write([]byte{0})
		}
	}
	if req.Epoch > 1 { // each epoch a pick of its own; epoch 1 picks as a run of one
		binary.LittleEndian.PutUint64(seed[:], uint64(req.Epoch))
		h.Write(seed[:])
	}
	return mix(h.Sum64())
}

// mix is splitmix64's finalizer: FNV's low bits are weak, and the pick is
// taken modulo a small number of options.
func mix(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}
