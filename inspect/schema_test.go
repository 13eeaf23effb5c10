package inspect

import (
	"archive/zip"
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// The JSON Schemas of inspect_ai's log, from the OpenAPI document its
// viewer's types are generated from (pinned in ../shared/reference/inspect).
// EvalLog is a JSON log and the header.json of an .eval zip; EvalSample is
// each samples/*.json member; a list of EvalSampleSummary is summaries.json
// and each _journal/summaries/N.json; a list of EvalSampleReductions is
// reductions.json; _journal/start.json is {version, eval, plan} (LogStart
// in log/_recorders/eval.py).
type inspectSchemas struct {
	log, sample, summary, reductions, spec, plan *jsonschema.Schema
}

var (
	schemasOnce sync.Once
	schemas     *inspectSchemas
	schemasErr  error
)

// loadSchemas compiles the schemas once per test binary.
func loadSchemas(t testing.TB) *inspectSchemas {
	t.Helper()
	path := shared.Path(t, "reference", "inspect", "inspect-openapi.json")
	schemasOnce.Do(func() {
		f, err := os.Open(path)
		if err != nil {
			schemasErr = err
			return
		}
		defer f.Close()
		doc, err := jsonschema.UnmarshalJSON(f)
		if err != nil {
			schemasErr = fmt.Errorf("%s: %w", path, err)
			return
		}
		const url = "file:///inspect-openapi.json"
		c := jsonschema.NewCompiler()
		c.DefaultDraft(jsonschema.Draft2020)
		if err := c.AddResource(url, doc); err != nil {
			schemasErr = err
			return
		}
		s := &inspectSchemas{}
		for name, dst := range map[string]**jsonschema.Schema{
			"EvalLog": &s.log, "EvalSample": &s.sample, "EvalSampleSummary": &s.summary,
			"EvalSampleReductions": &s.reductions,
			"EvalSpec":             &s.spec, "EvalPlan": &s.plan,
		} {
			if *dst, err = c.Compile(url + "#/components/schemas/" + name); err != nil {
				schemasErr = fmt.Errorf("schema %s: %w", name, err)
				return
			}
		}
		schemas = s
	})
	if schemasErr != nil {
		t.Fatal(schemasErr)
	}
	return schemas
}

// schemaProblems validates a written log file (JSON or .eval) against
// Inspect's schemas and returns what fails, one line a problem.
func schemaProblems(t testing.TB, path string) []string {
	t.Helper()
	s := loadSchemas(t)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(path, ".eval") {
		return validateJSON(s.log, "", data)
	}
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return []string{fmt.Sprintf("not a zip: %v", err)}
	}
	probs := localHeaderProblems(data, zr.File)
	seen := map[string]bool{}
	for _, f := range zr.File {
		if seen[f.Name] {
			probs = append(probs, f.Name+": member written twice")
		}
		seen[f.Name] = true
		if f.Method != zip.Deflate && f.Method != zip.Store {
			probs = append(probs, fmt.Sprintf("%s: compression method %d", f.Name, f.Method))
		}
		rc, err := f.Open()
		if err != nil {
			probs = append(probs, fmt.Sprintf("%s: %v", f.Name, err))
			continue
		}
		member, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			probs = append(probs, fmt.Sprintf("%s: %v", f.Name, err))
			continue
		}
		switch {
		case f.Name == "header.json":
			probs = append(probs, validateJSON(s.log, f.Name, member)...)
		case f.Name == "_journal/start.json":
			probs = append(probs, validateStart(s, member)...)
		case f.Name == "summaries.json" || strings.HasPrefix(f.Name, "_journal/summaries/"):
			probs = append(probs, validateList(s.summary, f.Name, member)...)
		case f.Name == "reductions.json":
			probs = append(probs, validateList(s.reductions, f.Name, member)...)
		case strings.HasPrefix(f.Name, "samples/"):
			probs = append(probs, validateJSON(s.sample, f.Name, member)...)
		default:
			probs = append(probs, f.Name+": a member Inspect does not write")
		}
	}
	for _, want := range []string{"header.json", "_journal/start.json", "summaries.json"} {
		if !seen[want] {
			probs = append(probs, want+" missing")
		}
	}
	return probs
}

func validateJSON(sch *jsonschema.Schema, name string, data []byte) []string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", name, err)}
	}
	if err := sch.Validate(inst); err != nil {
		return []string{fmt.Sprintf("%s: %v", name, err)}
	}
	return nil
}

func validateList(sch *jsonschema.Schema, name string, data []byte) []string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []string{fmt.Sprintf("%s: %v", name, err)}
	}
	list, ok := inst.([]any)
	if !ok {
		return []string{name + ": not a list"}
	}
	var probs []string
	for i, v := range list {
		if err := sch.Validate(v); err != nil {
			probs = append(probs, fmt.Sprintf("%s[%d]: %v", name, i, err))
		}
	}
	return probs
}

func validateStart(s *inspectSchemas, data []byte) []string {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		return []string{fmt.Sprintf("start.json: %v", err)}
	}
	m, ok := inst.(map[string]any)
	if !ok {
		return []string{"start.json: not an object"}
	}
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if strings.Join(keys, " ") != "eval plan version" {
		return []string{fmt.Sprintf("start.json: members %v, want eval plan version", keys)}
	}
	var probs []string
	if err := s.spec.Validate(m["eval"]); err != nil {
		probs = append(probs, fmt.Sprintf("start.json eval: %v", err))
	}
	if err := s.plan.Validate(m["plan"]); err != nil {
		probs = append(probs, fmt.Sprintf("start.json plan: %v", err))
	}
	return probs
}

// CheckSchema fails t for every way the log at path breaks Inspect's
// schema. It is exported to the external tests (run_test.go), which write
// logs through harness and cmd-level paths.
func CheckSchema(t testing.TB, path string) {
	t.Helper()
	for _, p := range schemaProblems(t, path) {
		t.Errorf("%s: %s", filepath.Base(path), p)
	}
}

// localHeaderProblems reads the members' local headers one after another
// as Inspect's viewer does (its remote zip reader, remoteZipFile.ts, takes
// a member's compressed size from the local header, not the central
// directory): every local header must carry the sizes and checksum the
// central directory has, and no data descriptor may follow the data.
func localHeaderProblems(data []byte, files []*zip.File) []string {
	var probs []string
	off := 0
	for _, f := range files {
		if off+30 > len(data) || binary.LittleEndian.Uint32(data[off:]) != 0x04034b50 {
			return append(probs, fmt.Sprintf("%s: no local header at %d", f.Name, off))
		}
		h := data[off:]
		flags := binary.LittleEndian.Uint16(h[6:])
		crc := binary.LittleEndian.Uint32(h[14:])
		csize := binary.LittleEndian.Uint32(h[18:])
		usize := binary.LittleEndian.Uint32(h[22:])
		nameLen := int(binary.LittleEndian.Uint16(h[26:]))
		extraLen := int(binary.LittleEndian.Uint16(h[28:]))
		if name := string(h[30 : 30+nameLen]); name != f.Name {
			probs = append(probs, fmt.Sprintf("local header %q, central directory %q", name, f.Name))
		}
		if flags&0x8 != 0 || crc != f.CRC32 || uint64(csize) != f.CompressedSize64 || uint64(usize) != f.UncompressedSize64 {
			probs = append(probs, fmt.Sprintf("%s: local header flags %#x crc %#x sizes %d/%d; central directory crc %#x sizes %d/%d (Inspect's viewer reads the local header)",
				f.Name, flags, crc, csize, usize, f.CRC32, f.CompressedSize64, f.UncompressedSize64))
			if flags&0x8 != 0 {
				return probs // the next header cannot be found without the size
			}
		}
		off += 30 + nameLen + extraLen + int(csize)
	}
	return probs
}
