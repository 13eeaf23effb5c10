package evalmd_test

import (
	"cmp"
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/evalmd/evalmd/internal/testkit/shared"
)

// The manifests of docs/kubernetes.md, checked without a cluster: always
// against the rules of the Job API the page relies on and evalmd's own
// (checkJobRules), and, when EVALMD_K8S_API names a copy of the k8s.io/api
// module (`go mod download -json k8s.io/api@v0.33.2` prints its folder;
// CI sets it), against the Kubernetes API's own Go types: every field is
// one of batch/v1 Job's and the core/v1 types below it, of its type, and
// every field they require is there.
func TestManifest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("docs", "kubernetes.md"))
	if err != nil {
		t.Fatal(err)
	}
	blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
	var jobs []map[string]any
	for _, b := range blocks {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(b[1]), &m); err != nil {
			t.Fatalf("docs/kubernetes.md: a YAML block: %v", err)
		}
		jobs = append(jobs, m)
	}
	if len(jobs) != 2 {
		t.Fatalf("docs/kubernetes.md has %d YAML blocks, want 2: the shards' Job and the merge's", len(jobs))
	}
	for _, err := range checkJobRules(jobs[0], jobs[1]) {
		t.Error(err)
	}
	types := apiTypesOrSkip(t)
	for i, job := range jobs {
		for _, err := range types.check(job, "batch/v1", "Job") {
			t.Errorf("docs/kubernetes.md, manifest %d: %v", i+1, err)
		}
	}
}

// The checker finds what it is meant to: an unknown field, a field of the
// wrong type, a required field left out, a rule of the Job API broken.
func TestManifestCheckerFinds(t *testing.T) {
	job := func() map[string]any {
		var m map[string]any
		err := yaml.Unmarshal([]byte(`
apiVersion: batch/v1
kind: Job
metadata: {name: j}
spec:
  completionMode: Indexed
  completions: 2
  backoffLimitPerIndex: 1
  template:
    spec:
      restartPolicy: Never
      containers:
        - name: c
          image: i
          args: ["run", "-o", "/data/out", "--run-id", "$(RUN_ID)"]
          env:
            - {name: EVALMD_SHARDS, value: "2"}
            - name: RUN_ID
              valueFrom: {fieldRef: {fieldPath: "metadata.labels['batch.kubernetes.io/controller-uid']"}}
            - name: X_API_KEY
              valueFrom: {secretKeyRef: {name: s, key: k}}
          volumeMounts: [{name: data, mountPath: /data}]
      volumes:
        - {name: data, persistentVolumeClaim: {claimName: c}}
`), &m)
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
	merge := func() map[string]any {
		m := job()
		spec := m["spec"].(map[string]any)
		delete(spec, "completionMode")
		delete(spec, "completions")
		delete(spec, "backoffLimitPerIndex")
		c := dig(m, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
		c["args"] = []any{"agg", "-i", "/data/out"}
		delete(c, "env")
		return m
	}
	if errs := checkJobRules(job(), merge()); len(errs) > 0 {
		t.Fatalf("the good manifests: %v", errs)
	}
	for _, tc := range []struct {
		name   string
		change func(j, m map[string]any)
		want   string
	}{
		{"not indexed", func(j, m map[string]any) { j["spec"].(map[string]any)["completionMode"] = "NonIndexed" }, "completionMode"},
		{"restart on failure", func(j, m map[string]any) {
			dig(j, "spec", "template", "spec").(map[string]any)["restartPolicy"] = "OnFailure"
		}, "restartPolicy"},
		{"another count", func(j, m map[string]any) { j["spec"].(map[string]any)["completions"] = 3 }, "EVALMD_SHARDS"},
		{"a key in the manifest", func(j, m map[string]any) {
			env := dig(j, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["env"].([]any)
			env[2] = map[string]any{"name": "X_API_KEY", "value": "sk-1"}
		}, "X_API_KEY"},
		{"agg reads another folder", func(j, m map[string]any) {
			dig(m, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)["args"] = []any{"agg", "-i", "/data/other"}
		}, "agg -i"},
		{"a volume not declared", func(j, m map[string]any) {
			dig(j, "spec", "template", "spec").(map[string]any)["volumes"] = []any{}
		}, "not declared"},
		{"unmasked proc on the host's users", func(j, m map[string]any) {
			c := dig(j, "spec", "template", "spec", "containers").([]any)[0].(map[string]any)
			c["securityContext"] = map[string]any{"procMount": "Unmasked"}
		}, "hostUsers"},
	} {
		j, m := job(), merge()
		tc.change(j, m)
		errs := checkJobRules(j, m)
		if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), tc.want) {
			t.Errorf("%s: %v, want an error naming %s", tc.name, errs, tc.want)
		}
	}

	types := apiTypesOrSkip(t)
	if errs := types.check(job(), "batch/v1", "Job"); len(errs) > 0 {
		t.Fatalf("the good manifest: %v", errs)
	}
	for _, tc := range []struct {
		name   string
		change func(j map[string]any)
		want   string
	}{
		{"an unknown field", func(j map[string]any) { j["spec"].(map[string]any)["backoffLimitPerIdx"] = 1 }, "spec.backoffLimitPerIdx: no such field in batch/v1 JobSpec"},
		{"a misplaced field", func(j map[string]any) {
			dig(j, "spec", "template", "spec").(map[string]any)["procMount"] = "Unmasked"
		}, "spec.template.spec.procMount: no such field in core/v1 PodSpec"},
		{"a number as text", func(j map[string]any) { j["spec"].(map[string]any)["completions"] = "2" }, "spec.completions: want a number"},
		{"a list as an object", func(j map[string]any) {
			dig(j, "spec", "template", "spec").(map[string]any)["containers"] = map[string]any{"name": "c"}
		}, "spec.template.spec.containers: want a list"},
		{"a required field left out", func(j map[string]any) {
			delete(dig(j, "spec", "template", "spec", "containers").([]any)[0].(map[string]any), "name")
		}, "spec.template.spec.containers[0]: name is required by core/v1 Container"},
		{"a required field of an inlined struct", func(j map[string]any) {
			vm := dig(j, "spec", "template", "spec", "volumes").([]any)[0].(map[string]any)
			vm["persistentVolumeClaim"] = map[string]any{"readOnly": true}
		}, "claimName is required"},
		{"an unknown metadata field", func(j map[string]any) { j["metadata"].(map[string]any)["label"] = "x" }, "metadata.label: no such field in ObjectMeta"},
	} {
		j := job()
		tc.change(j)
		errs := types.check(j, "batch/v1", "Job")
		if len(errs) == 0 || !strings.Contains(fmt.Sprint(errs), tc.want) {
			t.Errorf("%s: %v, want %q", tc.name, errs, tc.want)
		}
	}
}

// apiTypesOrSkip loads the k8s.io/api module EVALMD_K8S_API names; without
// it the test is skipped, or fails where EVALMD_REQUIRE_SHARED=1 (CI,
// whose .ci/run downloads the module and sets it).
func apiTypesOrSkip(t *testing.T) *apiTypes {
	t.Helper()
	api := os.Getenv("EVALMD_K8S_API")
	if api == "" {
		shared.Missing(t, "EVALMD_K8S_API names no copy of the k8s.io/api module: the manifests' fields are not checked against its types (go mod download -json k8s.io/api@v0.33.2 prints its folder)")
	}
	types, err := loadAPITypes(api)
	if err != nil {
		t.Fatalf("EVALMD_K8S_API: %v", err)
	}
	return types
}

// dig is the value at a path of map keys.
func dig(v any, keys ...string) any {
	for _, k := range keys {
		m, _ := v.(map[string]any)
		v = m[k]
	}
	return v
}

// checkJobRules checks the rules of the Job API the page relies on
// (batch/v1, Kubernetes 1.33: an Indexed Job has completions;
// backoffLimitPerIndex needs completionMode Indexed and restartPolicy
// Never; procMount Unmasked needs hostUsers false) and evalmd's own: the
// shards' count is the Job's completions, the run id the Job's uid, a key
// comes from a Secret, the merge reads the folder the shards write, a
// volume mounted is declared.
func checkJobRules(job, merge map[string]any) []error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	spec, _ := job["spec"].(map[string]any)
	if job["apiVersion"] != "batch/v1" || job["kind"] != "Job" || merge["apiVersion"] != "batch/v1" || merge["kind"] != "Job" {
		bad("both manifests are batch/v1 Jobs: %v %v, %v %v", job["apiVersion"], job["kind"], merge["apiVersion"], merge["kind"])
	}
	completions, ok := spec["completions"].(int)
	if spec["completionMode"] != "Indexed" || !ok || completions < 1 {
		bad("spec: completionMode %v with completions %v: an Indexed Job of N completions is what sets JOB_COMPLETION_INDEX", spec["completionMode"], spec["completions"])
	}
	if p, ok := spec["parallelism"].(int); ok && p > completions {
		bad("spec.parallelism %d is more than completions %d", p, completions)
	}
	if _, ok := spec["backoffLimitPerIndex"]; ok && dig(spec, "template", "spec", "restartPolicy") != "Never" {
		bad("spec.backoffLimitPerIndex needs spec.template.spec.restartPolicy: Never, not %v", dig(spec, "template", "spec", "restartPolicy"))
	}
	out := ""
	for _, c := range containers(job) {
		args := strs(c["args"])
		if len(args) == 0 || args[0] != "run" {
			bad("the shards' container runs %q, not evalmd run", args)
		}
		out = flagValue(args, "-o")
		env := map[string]map[string]any{}
		for _, e := range list(c["env"]) {
			e, _ := e.(map[string]any)
			name, _ := e["name"].(string)
			env[name] = e
			if strings.HasSuffix(name, "_API_KEY") && dig(e, "valueFrom", "secretKeyRef", "key") == nil {
				bad("env %s: an API key comes from a Secret (valueFrom.secretKeyRef), never a value in the manifest", name)
			}
		}
		if v, _ := env["EVALMD_SHARDS"]["value"].(string); v != strconv.Itoa(completions) && flagValue(args, "--shards") != strconv.Itoa(completions) {
			bad("EVALMD_SHARDS (or --shards) is %q, the Job's completions %d: the shards would not split the run", v, completions)
		}
		runID := flagValue(args, "--run-id")
		name := strings.TrimSuffix(strings.TrimPrefix(runID, "$("), ")")
		if dig(env[name], "valueFrom", "fieldRef", "fieldPath") != "metadata.labels['batch.kubernetes.io/controller-uid']" {
			bad("--run-id %q: the run id is the Job's uid, from the downward API", runID)
		}
		if mp, _ := dig(c, "securityContext", "procMount").(string); mp == "Unmasked" && dig(job, "spec", "template", "spec", "hostUsers") != false {
			bad("procMount: Unmasked needs the pod's hostUsers: false")
		}
	}
	for _, c := range containers(merge) {
		if args := strs(c["args"]); len(args) == 0 || args[0] != "agg" || flagValue(args, "-i") != out || out == "" {
			bad("the merge runs %q: want agg -i %s, the folder the shards write (-o)", args, out)
		}
	}
	for _, m := range []map[string]any{job, merge} {
		pod := dig(m, "spec", "template", "spec")
		declared := map[string]bool{}
		for _, v := range list(dig(pod, "volumes")) {
			if name, ok := dig(v, "name").(string); ok {
				declared[name] = true
			}
		}
		for _, c := range containers(m) {
			for _, vm := range list(c["volumeMounts"]) {
				if name, _ := dig(vm, "name").(string); !declared[name] {
					bad("volumeMounts %q: the volume is not declared in the pod's volumes", name)
				}
			}
		}
	}
	return errs
}

func containers(job map[string]any) []map[string]any {
	var out []map[string]any
	for _, c := range list(dig(job, "spec", "template", "spec", "containers")) {
		if m, ok := c.(map[string]any); ok {
			out = append(out, m)
		}
	}
	return out
}

func list(v any) []any { l, _ := v.([]any); return l }

func strs(v any) []string {
	var out []string
	for _, s := range list(v) {
		out = append(out, fmt.Sprint(s))
	}
	return out
}

// flagValue is the value after flag in args, "" when it is not there.
func flagValue(args []string, flag string) string {
	if i := slices.Index(args, flag); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// apiTypes are the type declarations of the k8s.io/api packages the
// manifests use, read from their types.go.
type apiTypes struct {
	decls   map[string]map[string]ast.Expr // package ("batch/v1") -> type name -> its type
	imports map[string]map[string]string   // package -> import name -> import path
}

// loadAPITypes reads batch/v1 and core/v1 of the k8s.io/api module at dir.
func loadAPITypes(dir string) (*apiTypes, error) {
	at := &apiTypes{decls: map[string]map[string]ast.Expr{}, imports: map[string]map[string]string{}}
	for _, pkg := range []string{"batch/v1", "core/v1"} {
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, filepath.Join(dir, pkg, "types.go"), nil, parser.ParseComments)
		if err != nil {
			return nil, err
		}
		at.decls[pkg], at.imports[pkg] = map[string]ast.Expr{}, map[string]string{}
		for _, imp := range f.Imports {
			p, _ := strconv.Unquote(imp.Path.Value)
			name := filepath.Base(p)
			if imp.Name != nil {
				name = imp.Name.Name
			}
			at.imports[pkg][name] = p
		}
		for _, d := range f.Decls {
			if g, ok := d.(*ast.GenDecl); ok && g.Tok == token.TYPE {
				for _, s := range g.Specs {
					ts := s.(*ast.TypeSpec)
					at.decls[pkg][ts.Name.Name] = ts.Type
				}
			}
		}
	}
	if at.decls["batch/v1"]["JobSpec"] == nil || at.decls["core/v1"]["PodSpec"] == nil {
		return nil, fmt.Errorf("%s holds no batch/v1 JobSpec or core/v1 PodSpec: not the k8s.io/api module", dir)
	}
	return at, nil
}

// objectMeta are the fields of ObjectMeta (k8s.io/apimachinery's
// meta/v1, Kubernetes 1.33) a manifest may set.
var objectMeta = []string{"name", "generateName", "namespace", "labels", "annotations", "ownerReferences", "finalizers"}

// check checks v against the type name of package pkg.
func (at *apiTypes) check(v any, pkg, name string) []error {
	var errs []error
	at.value(v, &ast.Ident{Name: name}, pkg, "", &errs)
	return errs
}

// value checks v against the type expression t of package pkg, at path.
func (at *apiTypes) value(v any, t ast.Expr, pkg, path string, errs *[]error) {
	bad := func(format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("%s: %s", cmp.Or(path, "(the manifest)"), fmt.Sprintf(format, args...)))
	}
	switch t := t.(type) {
	case *ast.StarExpr:
		at.value(v, t.X, pkg, path, errs)
	case *ast.ArrayType:
		if id, ok := t.Elt.(*ast.Ident); ok && id.Name == "byte" {
			at.scalar(v, "string", bad)
			return
		}
		l, ok := v.([]any)
		if !ok {
			bad("want a list, found %s", kindOf(v))
			return
		}
		for i, e := range l {
			at.value(e, t.Elt, pkg, fmt.Sprintf("%s[%d]", path, i), errs)
		}
	case *ast.MapType:
		m, ok := v.(map[string]any)
		if !ok {
			bad("want an object (a map), found %s", kindOf(v))
			return
		}
		for k, e := range m {
			at.value(e, t.Value, pkg, path+"."+k, errs)
		}
	case *ast.SelectorExpr:
		imp := at.imports[pkg][t.X.(*ast.Ident).Name]
		if rest, ok := strings.CutPrefix(imp, "k8s.io/api/"); ok {
			at.value(v, &ast.Ident{Name: t.Sel.Name}, rest, path, errs)
			return
		}
		at.foreign(v, imp+"."+t.Sel.Name, path, errs)
	case *ast.Ident:
		switch t.Name {
		case "string", "bool", "int", "int32", "int64", "float64":
			at.scalar(v, t.Name, bad)
			return
		}
		decl, ok := at.decls[pkg][t.Name]
		if !ok {
			bad("type %s is not declared in %s/types.go", t.Name, pkg)
			return
		}
		if st, ok := decl.(*ast.StructType); ok {
			m, ok := v.(map[string]any)
			if !ok {
				bad("want an object (%s %s), found %s", pkg, t.Name, kindOf(v))
				return
			}
			at.object(m, st, pkg, t.Name, path, errs)
			return
		}
		at.value(v, decl, pkg, path, errs)
	default:
		bad("a field of type %T, which this check does not know", t)
	}
}

// scalar checks a value of a Go basic type.
func (at *apiTypes) scalar(v any, goType string, bad func(string, ...any)) {
	ok := false
	switch goType {
	case "string":
		_, ok = v.(string)
	case "bool":
		_, ok = v.(bool)
	case "float64":
		_, isInt := v.(int)
		_, isFloat := v.(float64)
		ok = isInt || isFloat
	default:
		_, ok = v.(int)
	}
	if !ok {
		want := map[string]string{"string": "a string", "bool": "a boolean"}[goType]
		bad("want %s, found %s", cmp.Or(want, "a number"), kindOf(v))
	}
}

// foreign checks a value of a type of k8s.io/apimachinery: ObjectMeta
// against its fields, the others by their JSON form.
func (at *apiTypes) foreign(v any, typ, path string, errs *[]error) {
	bad := func(at, format string, args ...any) {
		*errs = append(*errs, fmt.Errorf("%s: %s", at, fmt.Sprintf(format, args...)))
	}
	switch typ {
	case "k8s.io/apimachinery/pkg/apis/meta/v1.ObjectMeta":
		m, ok := v.(map[string]any)
		if !ok {
			bad(path, "want an object (ObjectMeta), found %s", kindOf(v))
			return
		}
		for _, k := range slices.Sorted(maps.Keys(m)) {
			if !slices.Contains(objectMeta, k) {
				bad(path+"."+k, "no such field in ObjectMeta (%s)", strings.Join(objectMeta, ", "))
			}
		}
	case "k8s.io/apimachinery/pkg/api/resource.Quantity", "k8s.io/apimachinery/pkg/util/intstr.IntOrString":
		switch v.(type) {
		case string, int, float64:
		default:
			bad(path, "want a quantity (a string or a number), found %s", kindOf(v))
		}
	default: // Time, Duration, LabelSelector, UID...: the manifests set none
		bad(path, "a field of type %s, which this check does not know", typ)
	}
}

// object checks the members of m against the struct st (type name of
// pkg): each member a field, of its type; each required field there.
func (at *apiTypes) object(m map[string]any, st *ast.StructType, pkg, name, path string, errs *[]error) {
	fields := map[string]*ast.Field{}
	var required []string
	at.fields(st, pkg, fields, &required)
	for _, k := range slices.Sorted(maps.Keys(m)) {
		f, ok := fields[k]
		sub := strings.TrimPrefix(path+"."+k, ".")
		if !ok {
			*errs = append(*errs, fmt.Errorf("%s: no such field in %s %s", sub, pkg, name))
			continue
		}
		if k == "apiVersion" || k == "kind" {
			continue
		}
		at.value(m[k], f.Type, pkg, sub, errs)
	}
	for _, r := range required {
		if _, ok := m[r]; !ok {
			*errs = append(*errs, fmt.Errorf("%s: %s is required by %s %s", cmp.Or(path, "(the manifest)"), r, pkg, name))
		}
	}
}

// fields gathers the JSON members of a struct, those of its inlined
// structs too, and the required ones: a field is required, as the
// Kubernetes API's OpenAPI schema has it, unless its comment says
// +optional or its tag omitempty.
func (at *apiTypes) fields(st *ast.StructType, pkg string, out map[string]*ast.Field, required *[]string) {
	for _, f := range st.Fields.List {
		tag := ""
		if f.Tag != nil {
			s, _ := strconv.Unquote(f.Tag.Value)
			tag = reflect.StructTag(s).Get("json")
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "-" {
			continue
		}
		if name == "" && strings.Contains(opts, "inline") {
			switch t := f.Type.(type) {
			case *ast.Ident:
				if sub, ok := at.decls[pkg][t.Name].(*ast.StructType); ok {
					at.fields(sub, pkg, out, required)
				}
			case *ast.SelectorExpr: // metav1.TypeMeta
				if t.Sel.Name == "TypeMeta" {
					out["apiVersion"], out["kind"] = f, f
				}
			}
			continue
		}
		if name == "" {
			continue
		}
		out[name] = f
		optional := strings.Contains(opts, "omitempty") || f.Doc != nil && strings.Contains(f.Doc.Text(), "+optional")
		if !optional {
			*required = append(*required, name)
		}
	}
}

func kindOf(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return fmt.Sprintf("the string %q", v)
	case int, float64:
		return fmt.Sprintf("the number %v", v)
	case bool:
		return fmt.Sprintf("the boolean %v", v)
	case nil:
		return "null"
	}
	return fmt.Sprintf("a %T", v)
}
