package result

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// The fast path of Parse. Most output files are well formed, and for them
// json.Unmarshal into the field types (the alias types, which have no
// UnmarshalJSON) is many times faster than decodeObject's token walk. The
// walk is kept for what Unmarshal cannot tell: it places an error at its
// line, refuses a null name and keeps members no field names. So the fast
// path takes a file only when it can prove the walk would decode it to the
// same File: a scan of the validated bytes (scanObject, over the members
// the records name) finds the unknown members to keep, and any doubt (a
// null name, a key repeated or written with escapes, a key that differs
// from a field's only in case, which Unmarshal would match) in a question
// sends that question to the walk (settle, as every reader decodes a
// question), and in the rest of the file, or a question that is not an
// object or that the walk refuses, sends the file to the walk, which then
// decodes it or says why not.

// fastFile is File as json.Unmarshal decodes it, without UnmarshalJSON.
type fastFile struct {
	Sheet     sheetAlias      `json:"sheet"`
	Questions []questionAlias `json:"questions"`
}

// parseFast decodes data as Parse does, or reports false when it cannot
// be sure to (then Parse walks the file and says what is wrong, if
// anything).
func parseFast(data []byte) (*File, bool) {
	var ff fastFile
	if json.Unmarshal(data, &ff) != nil {
		return nil, false
	}
	// data is valid JSON from here on.
	start := skipSpace(data, 0)
	if data[start] != '{' {
		return nil, false
	}
	f := &File{Sheet: Sheet(ff.Sheet)}
	var haveSheet, haveQuestions bool
	var qi int
	ok := true
	f.extra, ok = scanObject(data, start, fileRecord, func(name []byte, v int) bool {
		switch string(name) {
		case "sheet":
			if haveSheet || data[v] != '{' {
				return false
			}
			haveSheet = true
			ex, ok := scanObject(data, v, sheetRecord, nil)
			f.Sheet.extra = ex
			return ok
		case "questions":
			if haveQuestions {
				return false
			}
			haveQuestions = true
			switch data[v] {
			case 'n':
				f.Questions = []Question{}
				return true
			case '[':
			default:
				return false
			}
			f.Questions = make([]Question, len(ff.Questions))
			for i := range ff.Questions {
				f.Questions[i] = Question(ff.Questions[i])
			}
			return scanArray(data, v, func(v int) bool {
				if data[v] != '{' || qi >= len(f.Questions) {
					return false
				}
				q := &f.Questions[qi]
				qi++
				return q.settle(data, v) == nil
			})
		}
		return false
	})
	if !ok || !haveSheet || !haveQuestions || qi != len(f.Questions) {
		return nil, false
	}
	if CheckEpoch(f.Sheet.Epoch, f.Sheet.Epochs) != nil || CheckShard(f.Sheet.Shard, f.Sheet.Shards) != nil {
		return nil, false
	}
	return f, true
}

// scanObject walks the members of the valid JSON object at data[at]. A
// member r names is passed to member, unless nil, with the offset of its
// value; member returns false to give up. Unknown members are returned
// raw. It gives up on a repeated member, a null r refuses, a key with
// escapes or invalid UTF-8 and an unknown key that matches a known one but
// for case.
func scanObject(data []byte, at int, r *record, member func(name []byte, v int) bool) (fields, bool) {
	var ex fields
	var seen [maxMembers / 64]uint64
	i := skipSpace(data, at+1)
	if data[i] == '}' {
		return nil, true
	}
	for {
		// data[i] is the '"' of a key.
		end := skipString(data, i)
		key := data[i+1 : end-1]
		for _, c := range key {
			if c == '\\' {
				return nil, false
			}
		}
		v := skipSpace(data, skipSpace(data, end)+1) // past ':'
		vend := skipValue(data, v)
		if idx, ok := r.index[string(key)]; ok {
			if seen[idx/64]&(1<<(idx%64)) != 0 || r.refusesNull(idx, data, v) || member != nil && !member(key, v) {
				return nil, false
			}
			seen[idx/64] |= 1 << (idx % 64)
		} else {
			name := string(key)
			if !utf8.Valid(key) || foldsToKnown(name, r.index) {
				return nil, false
			}
			if ex == nil {
				ex = fields{}
			}
			if _, dup := ex[name]; dup {
				return nil, false
			}
			ex[name] = json.RawMessage(append([]byte(nil), data[v:vend]...))
		}
		i = skipSpace(data, vend)
		if data[i] == '}' {
			return ex, true
		}
		i = skipSpace(data, i+1) // past ','
	}
}

// foldsToKnown says whether json.Unmarshal would take name for a known
// member (it matches keys without regard to case).
func foldsToKnown(name string, known map[string]int) bool {
	for k := range known {
		if strings.EqualFold(k, name) {
			return true
		}
	}
	// Unmarshal also folds the Kelvin sign and long s; such keys are
	// rare enough to leave to the walk.
	return strings.ContainsRune(name, '\u212a') || strings.ContainsRune(name, '\u017f')
}

// scanArray calls elem with the offset of each element of the valid JSON
// array at data[at], until it returns false.
func scanArray(data []byte, at int, elem func(v int) bool) bool {
	i := skipSpace(data, at+1)
	if data[i] == ']' {
		return true
	}
	for {
		if !elem(i) {
			return false
		}
		i = skipSpace(data, skipValue(data, i))
		if data[i] == ']' {
			return true
		}
		i = skipSpace(data, i+1)
	}
}

func skipSpace(data []byte, i int) int {
	for i < len(data) {
		switch data[i] {
		case ' ', '\t', '\r', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipString returns the offset after the valid JSON string at data[i].
func skipString(data []byte, i int) int {
	for i++; ; {
		q := i + bytes.IndexByte(data[i:], '"')
		// The quote ends the string unless an odd number of backslashes
		// escapes it.
		b := q
		for data[b-1] == '\\' {
			b--
		}
		if (q-b)%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
}

// skipValue returns the offset after the valid JSON value at data[i].
func skipValue(data []byte, i int) int {
	switch data[i] {
	case '"':
		return skipString(data, i)
	case '{', '[':
		depth := 0
		for ; ; i++ {
			switch data[i] {
			case '"':
				i = skipString(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return i + 1
				}
			}
		}
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\r', '\n':
			return i
		}
		i++
	}
	return i
}
