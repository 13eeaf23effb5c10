package inspect

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"fmt"
	"hash/crc32"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Log file formats.
const (
	// FormatEval is Inspect's .eval format, its default: a zip holding the
	// log's header and each sample as separate JSON members, so a viewer
	// lists a folder of logs by reading headers only.
	FormatEval = "eval"
	// FormatJSON is Inspect's .json format: the whole log as one JSON
	// document.
	FormatJSON = "json"
)

// CheckFormat says whether format names a log format ("" is the default,
// FormatEval).
func CheckFormat(format string) error {
	switch format {
	case "", FormatEval, FormatJSON:
		return nil
	}
	return fmt.Errorf("log format %q is not %s or %s", format, FormatEval, FormatJSON)
}

// The members of an .eval zip, as inspect_ai's EvalRecorder names them
// (log/_recorders/eval.py).
const (
	evalStart     = "_journal/start.json" // {version, eval, plan}, written first
	evalSummaries = "summaries.json"      // a summary of every sample
	evalReduced   = "reductions.json"     // the reduced scores (Log.Reductions), when scored
	evalHeader    = "header.json"         // the log without its samples, written last
	evalSamples   = "samples/"            // samples/<id>_epoch_<epoch>.json
)

// sampleMember is the zip member of a sample.
func sampleMember(s *evalSample) string {
	return evalSamples + s.ID.String() + "_epoch_" + strconv.Itoa(s.Epoch) + ".json"
}

// writeEval writes lg as an .eval zip: the start record, each sample, the
// sample summaries, the reductions and the header, in the order Inspect's
// recorder writes them, each member deflated JSON. (Inspect now compresses
// members with zstd, which Go's standard library lacks; its readers and
// viewer read deflate, the method every .eval file had before.) Each
// member's sizes are in its local header, as Python's zipfile writes them.
// modified stamps the members, so the same log gives the same bytes.
func writeEval(w io.Writer, lg *Log, modified time.Time) error {
	zw := zip.NewWriter(w)
	// The MS-DOS time of the members (UTC; CreateRaw, unlike CreateHeader,
	// does not derive it from FileHeader.Modified).
	m := modified.UTC()
	if m.Year() < 1980 { // the first year MS-DOS times can say
		m = time.Date(1980, 1, 1, 0, 0, 0, 0, time.UTC)
	}
	dosDate := uint16((m.Year()-1980)<<9 | int(m.Month())<<5 | m.Day())
	dosTime := uint16(m.Hour()<<11 | m.Minute()<<5 | m.Second()/2)
	var deflated bytes.Buffer
	fw, err := flate.NewWriter(&deflated, flate.DefaultCompression)
	if err != nil {
		return err
	}
	put := func(name string, v any) error {
		data, err := marshal(v)
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		deflated.Reset()
		fw.Reset(&deflated)
		if _, err := fw.Write(data); err != nil {
			return err
		}
		if err := fw.Close(); err != nil {
			return err
		}
		// Sizes and checksum go in the local header (no data descriptor):
		// Inspect's viewer reads a member's size from its local header.
		fh := &zip.FileHeader{Name: name, Method: zip.Deflate,
			CRC32: crc32.ChecksumIEEE(data), CompressedSize64: uint64(deflated.Len()), UncompressedSize64: uint64(len(data))}
		//lint:ignore SA1019 CreateRaw writes the MS-DOS time fields as given; Modified is only read by CreateHeader, which always adds a data descriptor
		fh.ModifiedDate, fh.ModifiedTime = dosDate, dosTime
		mw, err := zw.CreateRaw(fh)
		if err != nil {
			return err
		}
		_, err = mw.Write(deflated.Bytes())
		return err
	}
	start := struct {
		Version int      `json:"version"`
		Eval    evalSpec `json:"eval"`
		Plan    evalPlan `json:"plan"`
	}{lg.Version, lg.Eval, lg.Plan}
	if err := put(evalStart, start); err != nil {
		return err
	}
	summaries := make([]sampleSummary, 0, len(lg.Samples))
	for i := range lg.Samples {
		s := &lg.Samples[i]
		if err := put(sampleMember(s), s); err != nil {
			return err
		}
		summaries = append(summaries, summarize(s))
	}
	if err := put(evalSummaries, summaries); err != nil {
		return err
	}
	if lg.Reductions != nil {
		if err := put(evalReduced, lg.Reductions); err != nil {
			return err
		}
	}
	header := *lg
	header.Samples, header.Reductions = nil, nil
	if err := put(evalHeader, &header); err != nil {
		return err
	}
	return zw.Close()
}

// sampleSummary is a sample's entry in summaries.json (Inspect's
// EvalSampleSummary): what the viewer lists without opening the sample,
// with long texts thinned as Inspect thins them (log/_util.py).
type sampleSummary struct {
	ID           SampleID               `json:"id"`
	Epoch        int                    `json:"epoch"`
	Input        SampleInput            `json:"input"`
	Choices      []string               `json:"choices,omitempty"`
	Target       string                 `json:"target"`
	Metadata     map[string]any         `json:"metadata"`
	Scores       map[string]sampleScore `json:"scores,omitempty"`
	ModelUsage   map[string]modelUsage  `json:"model_usage"`
	RoleUsage    map[string]modelUsage  `json:"role_usage"`
	TotalTime    *float64               `json:"total_time,omitempty"`
	WorkingTime  *float64               `json:"working_time,omitempty"`
	UUID         string                 `json:"uuid,omitempty"`
	Error        *string                `json:"error,omitempty"`
	Limit        string                 `json:"limit,omitempty"` // the type of the limit that ended the sample
	Completed    bool                   `json:"completed"`
	MessageCount int                    `json:"message_count"`
}

// summarize is EvalSample.summary().
func summarize(s *evalSample) sampleSummary {
	sum := sampleSummary{
		ID: s.ID, Epoch: s.Epoch, Choices: s.Choices, Target: truncateText(s.Target),
		Metadata: thinMetadata(s.Metadata), ModelUsage: s.ModelUsage, RoleUsage: s.RoleUsage,
		TotalTime: s.TotalTime, WorkingTime: s.WorkingTime, UUID: s.UUID,
		Completed: true, MessageCount: len(s.Messages),
	}
	if s.Input.Messages != nil {
		sum.Input.Messages = make([]ChatMessage, len(s.Input.Messages))
		for i, m := range s.Input.Messages {
			if m.Content.Parts == nil {
				m.Content.Text = truncateText(m.Content.Text)
			}
			sum.Input.Messages[i] = m
		}
	} else {
		sum.Input.Text = truncateText(s.Input.Text)
	}
	if s.Scores != nil {
		sum.Scores = make(map[string]sampleScore, len(s.Scores))
		for k, sc := range s.Scores {
			thin := sampleScore{Value: sc.Value, History: []scoreEdit{}}
			if sc.Answer != nil {
				a := thinText(*sc.Answer)
				thin.Answer = &a
			}
			if sc.Explanation != nil {
				e := thinText(*sc.Explanation)
				thin.Explanation = &e
			}
			if sc.Metadata != nil {
				thin.Metadata = thinMetadata(sc.Metadata)
			}
			sum.Scores[k] = thin
		}
	}
	if s.Error != nil {
		msg := s.Error.Message
		sum.Error = &msg
	}
	if s.Limit != nil {
		sum.Limit = s.Limit.Type
	}
	return sum
}

// Inspect's thinning limits (log/_util.py).
const (
	maxTextLength = 5120 // truncate_text: inputs and targets
	thinWidth     = 1024 // thin_text: score texts and metadata strings
	thinScan      = thinWidth * 8
	removedKey    = "Key removed from summary (> 1k)"
)

// truncateText is Inspect's truncate_text: at most 5120 characters, then a
// marker.
func truncateText(s string) string {
	if utf8.RuneCountInString(s) <= maxTextLength {
		return s
	}
	return string([]rune(s)[:maxTextLength]) + "...\n(content truncated)"
}

// thinText is Inspect's thin_text, Python's textwrap.shorten of the first
// 8192 characters to 1024 with "..." as placeholder: whitespace runs
// become one space, and words that do not fit are dropped.
func thinText(s string) string {
	if r := []rune(s); len(r) > thinScan {
		s = string(r[:thinScan])
	}
	words := strings.Fields(s)
	joined := strings.Join(words, " ")
	if utf8.RuneCountInString(joined) <= thinWidth {
		return joined
	}
	const placeholder = "..."
	var b strings.Builder
	n := 0
	for _, w := range words {
		add := utf8.RuneCountInString(w)
		if n > 0 {
			add++
		}
		if n+add+len(placeholder) > thinWidth {
			break
		}
		if n > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(w)
		n += add
	}
	if n == 0 { // one word longer than the width: cut it
		return string([]rune(joined)[:thinWidth-len(placeholder)]) + placeholder
	}
	return b.String() + placeholder
}

// thinMetadata is Inspect's thin_metadata: numbers and booleans stay,
// strings are thinned, anything else stays only when its JSON is at most
// 1 KiB.
func thinMetadata(m map[string]any) map[string]any {
	out := make(map[string]any, len(m))
	for k, v := range m {
		switch x := v.(type) {
		case nil, bool, int, int64, float64:
			out[k] = v
		case string:
			out[k] = thinText(x)
		default:
			data, err := marshal(v)
			if err != nil || len(data) > thinWidth {
				out[k] = removedKey
			} else {
				out[k] = v
			}
		}
	}
	return out
}
