package result

import (
	"cmp"
	"hash/fnv"
	"path/filepath"
	"strconv"
)

// Sample is one answer of a model as it was got, however many output
// files carry it: a rerun that reuses an answer (reused_from) carries the
// same sample as the file whose run asked the model, and agg, the report
// and the Inspect logs count it once. It is the run that asked (the base
// name of that run's output file: the file's own for a question it asked,
// else its asked_in, which names the first run whatever the chain of
// reruns, else its reused_from), the request key (which covers the model, everything sent and
// the epoch) and the question's name with its occurrence among the
// questions of its file of that name (two questions of one prompt stay
// two). A question without a request key (LIME's files, evalmd's before
// keys were recorded) was never reused, so it is a sample of its file
// alone: it has no Sample (ok false) and a copy of its whole file is told
// by its run instead. The run that asked is named by its one file, also
// when it was split in shards (unshardName).
type Sample struct {
	From, Key, Name string
	Occ             int
}

// SampleOf is the sample question q of the output file at path holds, q
// being the occ'th question of that file (from 0) named as it is.
func SampleOf(path string, q *Question, occ int) (s Sample, ok bool) {
	if q.RequestKey == "" {
		return Sample{}, false
	}
	from := cmp.Or(q.AskedIn, q.ReusedFrom, filepath.Base(path))
	// A shard's part is a part of the run's one file (unshardName): its
	// answers are that file's, whether read in the part or in the file
	// the parts make.
	return Sample{From: unshardName(from), Key: q.RequestKey, Name: q.Name, Occ: occ}, true
}

// Samples are the samples of f's questions, read from path, in order; a
// question without one (SampleOf) has the zero Sample.
func (f *File) Samples(path string) []Sample {
	out := make([]Sample, len(f.Questions))
	seen := make(map[string]int, len(f.Questions))
	for i := range f.Questions {
		q := &f.Questions[i]
		out[i], _ = SampleOf(path, q, seen[q.Name])
		seen[q.Name]++
	}
	return out
}

// SampleID is a Sample hashed into 16 bytes (FNV-128a): a set of a
// million samples holds a million small keys, and two samples are one
// only by chance of 2^-128.
type SampleID [16]byte

// ID is the sample's SampleID.
func (s Sample) ID() SampleID {
	h := fnv.New128a()
	for _, part := range [...]string{s.From, s.Key, s.Name} {
		h.Write([]byte(strconv.Itoa(len(part))))
		h.Write([]byte{':'})
		h.Write([]byte(part))
	}
	h.Write([]byte(strconv.Itoa(s.Occ)))
	var id SampleID
	h.Sum(id[:0])
	return id
}
