package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/internal/testkit/fakeserver"
	"github.com/evalmd/evalmd/model"
	"github.com/evalmd/evalmd/model/providers"
)

// A LIME sheet (temperature 0.5, max_tokens 10) on a reasoning model of
// the Responses API: no 400s (the fake refuses temperature on o3, as
// OpenAI does), each setting not sent as asked said once naming the
// sheet's line, and the settings sent recorded.
func TestSentSettingsSaidOnce(t *testing.T) {
	srv := fakeserver.NewOpenAIResponses(t, fakeserver.Options{MaxRequests: 10,
		Reply: func(c fakeserver.Call) fakeserver.Reply { return fakeserver.Reply{Text: answerOf(c)} }})
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-lime.md")
	text := "# LIME\n#### meta\ntemperature: 0.5\nmax_tokens: 10\n## Q1\n#### question\nask S1 Q1\n#### answer\nA1-1\n" +
		"## Q2\n#### question\nask S1 Q2\n#### answer\nA1-2\n"
	if err := os.WriteFile(sheet, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	cfg := serverConfig(t, []string{sheet}, out, srv.URL, 2)
	cfg.Models = []string{"openai-responses/o3"}
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	if _, err := Run(context.Background(), cfg); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	for _, want := range []string{
		"openai-responses/o3: temperature 0.5 (" + sheet + ":3) is not sent: a reasoning model takes only the default",
		"openai-responses/o3: max_tokens 10 (" + sheet + ":4) is sent as 16: the Responses API's least max_output_tokens",
	} {
		if n := strings.Count(stderr.String(), want); n != 1 {
			t.Errorf("said %d times, want once: %s\nstderr:\n%s", n, want, stderr.String())
		}
	}
	for _, f := range outputs(t, out) {
		want := model.Settings{MaxTokens: 16}
		if s := f.Sheet.Settings; s == nil || !s.Equal(want) {
			t.Errorf("sheet settings %+v, want %+v", s, want)
		}
		for _, q := range f.Questions {
			if q.Error != nil || q.Settings == nil || !q.Settings.Equal(want) || q.Grade == nil || !*q.Grade {
				t.Errorf("%s: error %v, settings %+v, grade %v", q.Name, q.Error, q.Settings, q.Grade)
			}
		}
	}
}

// Anthropic's max_tokens must exceed the thinking budget: one error
// naming the line, before any call.
func TestSentSettingsRefusedBeforeAnyCall(t *testing.T) {
	srv := fakeserver.NewAnthropic(t, fakeserver.Options{MaxRequests: 10})
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-think.md")
	text := "# Think\n#### meta\nreasoning_tokens: 2048\nmax_tokens: 1000\n## Q1\n#### question\nask S1 Q1\n#### answer\nA1-1\n"
	if err := os.WriteFile(sheet, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := serverConfig(t, []string{sheet}, t.TempDir(), srv.URL, 2)
	cfg.Models = []string{"anthropic/claude-sonnet-4-5"}
	var stderr bytes.Buffer
	cfg.Stderr = &stderr
	_, err := Run(context.Background(), cfg)
	want := sheet + ":4: question \"Q1\": model anthropic/claude-sonnet-4-5: max_tokens 1000 must exceed reasoning_tokens 2048"
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("err = %v, want %q", err, want)
	}
	if n := srv.Count(); n != 0 {
		t.Errorf("%d calls made, want none", n)
	}
}

// A prompt cut for openai-responses/ is cut by OpenAI's own encoding:
// no warning that the counts are an estimate, as for openai/.
func TestResponsesPromptsCutAsOpenAIs(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-cut.md")
	text := "# Cut\n#### meta\ntruncate: keep-last\n## Q1\n#### question\n" + strings.Repeat("word ", 50) + "\n#### answer\nA\n"
	if err := os.WriteFile(sheet, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"openai/gpt-4o", "openai-responses/gpt-4o"} {
		cfg := serverConfig(t, []string{sheet}, t.TempDir(), "", 1)
		cfg.Models, cfg.DryRun, cfg.Describe = []string{name}, true, providers.Registry().Describe
		var stderr bytes.Buffer
		cfg.Stderr = &stderr
		if _, err := Run(context.Background(), cfg); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, stderr.String())
		}
		if strings.Contains(stderr.String(), "not OpenAI's") {
			t.Errorf("%s: %s", name, stderr.String())
		}
	}
}
