package inspect

import (
	"archive/zip"
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/evalmd/evalmd/internal/shared"
)

// The JSON Schemas of inspect_ai's log, from the OpenAPI document its
// viewer's types are generated from (pinned in ../shared/reference/inspect).
// EvalLog is a JSON log and the header.json of an .eval zip; EvalSample is
// each samples/*.json member; a list of EvalSampleSummary is summaries.json
// and each _journal/summaries/N.json; _journal/start.json is {version,
// eval, plan} (LogStart in log/_recorders/eval.py).
type inspectSchemas struct {
	log, sample, summary, spec, plan *jsonschema.Schema
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
			"EvalSpec": &s.spec, "EvalPlan": &s.plan,
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
	var probs []string
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
