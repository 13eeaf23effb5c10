package prompt

import (
	"strings"
	"testing"
	"time"
)

// A sheet's template is bounded in what it renders and in how long it
// runs: a bomb is the question's error, naming the sheet's line, soon.
func TestTemplateBombs(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name, tmpl, want string
	}{
		{"the issue's", "{{range 3000000000}}{{range 3000000000}}x{{end}}{{end}}", "input-t.md:4: question \"Q\": template at line 3: stopped after 100000 steps"},
		{"no output", "x\n{{range 3000000000}}{{end}}", "input-t.md:5: question \"Q\": template at line 4: stopped after 100000 steps"},
		{"output", "{{range 3000000000}}" + strings.Repeat("x", 1000) + "{{end}}", "input-t.md:4: question \"Q\": template at line 3: renders more than 32 MiB"},
		{"system", "x{{define \"system\"}}{{range 3000000000}}{{end}}{{end}}", "template at line 3: stopped after 100000 steps"},
		{"recursion", "x\n{{define \"a\"}}{{range 2}}{{template \"a\"}}{{end}}{{end}}{{template \"a\"}}", "input-t.md:4: templates section: template \"a\" calls itself"},
		{"mutual", "{{define \"a\"}}{{template \"b\"}}{{end}}{{define \"b\"}}{{if 1}}{{template \"a\"}}{{end}}{{end}}x", "calls itself"},
		{"nesting", strings.Repeat("{{range 2}}", 20000) + "x" + strings.Repeat("{{end}}", 20000), "input-t.md:3: templates section: nested more than 100 deep"},
		{"slow steps", "{{range 3000000000}}{{printf \"%0999999d\" 0 | len}}{{end}}", "template at line 3: stopped after 2s"},
		{"doubling", "{{$a := printf \"%0999999d\" 0}}" + strings.Repeat("{{$a = printf \"%s%s\" $a $a}}", 40) + "x", "printf makes more than 32 MiB"},
	} {
		its := items(t, dir, "# S\n#### templates\n"+tc.tmpl+"\n## Q\n#### question\nx\n")
		done, start := make(chan error, 1), time.Now()
		go func() {
			_, err := (&Builder{Dir: dir, Model: "m"}).Build(t.Context(), "input-t.md", &its[0])
			done <- err
		}()
		select {
		case err := <-done:
			if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%s: %v; want one line with %q", tc.name, err, tc.want)
			}
			t.Logf("%s: %v", tc.name, time.Since(start))
		case <-time.After(20 * time.Second):
			t.Fatalf("%s: still rendering after 20 s", tc.name)
		}
	}
}

// A template stopped at a bound is not run again for the questions it
// also serves: each gets its error, naming its own line, at once.
func TestTemplateStoppedOnce(t *testing.T) {
	dir := t.TempDir()
	its := items(t, dir, "# S\n#### templates\n{{range 3000000000}}{{end}}\n## Q1\n#### question\nx\n## Q2\n#### question\ny\n")
	b := &Builder{Dir: dir, Model: "m"}
	for i, want := range []string{`input-t.md:4: question "Q1": template at line 3: stopped`, `input-t.md:7: question "Q2": template at line 3: stopped`} {
		if _, err := b.Build(t.Context(), "input-t.md", &its[i]); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%v; want %q", err, want)
		}
		if b.stopped[its[i].Template] == nil {
			t.Errorf("question %d: the template is not marked stopped", i+1)
		}
	}
}
