package harness

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/evalmd/evalmd/model/providers"
	"github.com/evalmd/evalmd/result"
)

// conversationSheet has few-shot turns, a question with turns of its own
// and a schema, and a question with neither of its own.
const conversationSheet = "# S\n#### user\n2+2?<EVAL-ENDCHAR>\n#### assistant\n4<EVAL-ENDCHAR>\n" +
	"## A\n#### user\nI am Ada.<EVAL-ENDCHAR>\n#### question\nWho am I?<EVAL-ENDCHAR>\n" +
	"#### schema\n{\"type\": \"object\", \"properties\": {\"name\": {\"type\": \"string\"}}}<EVAL-ENDCHAR>\n#### answer\n{\"name\": \"Ada\"}<EVAL-ENDCHAR>\n" +
	"## B\n#### question\n3+3?<EVAL-ENDCHAR>\n#### answer\n6<EVAL-ENDCHAR>\n"

// A dry run (-y) writes each question's turns and schema in its output
// and its .md, with question still the last user message; response_format
// is recorded with the settings.
func TestDryRunWritesConversation(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "input-c.md"), []byte(conversationSheet), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	sum, err := Run(context.Background(), Config{Sheets: []string{filepath.Join(dir, "input-c.md")},
		Models: []string{"openai/gpt-4o"}, DryRun: true, Describe: providers.Registry().Describe,
		OutDir: filepath.Join(dir, "out"), Stderr: &stderr})
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	f, err := result.Read(sum.Outputs[0])
	if err != nil {
		t.Fatal(err)
	}
	a, b := f.Questions[0], f.Questions[1]
	if a.Question != "Who am I?" || len(a.Conversation) != 3 || a.Conversation[2].Content != "I am Ada." || a.Conversation[1].Role != "assistant" {
		t.Errorf("A: question %q, conversation %+v", a.Question, a.Conversation)
	}
	if a.ResponseSchema != `{"type":"object","properties":{"name":{"type":"string"}}}` || a.Settings == nil || a.Settings.ResponseFormat != "json_schema" {
		t.Errorf("A: schema %q, settings %+v", a.ResponseSchema, a.Settings)
	}
	if b.Question != "3+3?" || len(b.Conversation) != 2 || b.ResponseSchema != "" {
		t.Errorf("B: question %q, conversation %+v, schema %q", b.Question, b.Conversation, b.ResponseSchema)
	}
	md, err := os.ReadFile(strings.TrimSuffix(sum.Outputs[0], ".json") + ".md")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"**Turn (user):**\n```\n2+2?\n```\n", "**Turn (assistant):**\n```\n4\n```\n",
		"**Response schema:**\n```\n{\"type\":\"object\"", "**Turn (user):**\n```\nI am Ada.\n```\n\n\n**Response schema:**"} {
		if !strings.Contains(string(md), want) {
			t.Errorf(".md lacks %q:\n%s", want, md)
		}
	}
}

// A conversation that opens with an assistant turn stops a run on
// Anthropic before any call, in one line naming the turn's line; a model
// that takes it is sent it.
func TestAssistantFirstRefusedAtItsLine(t *testing.T) {
	dir := t.TempDir()
	sheet := filepath.Join(dir, "input-c.md")
	if err := os.WriteFile(sheet, []byte("## A\n#### assistant\nAsk me.<EVAL-ENDCHAR>\n#### question\n2+2?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	_, err := Run(context.Background(), Config{Sheets: []string{sheet}, Models: []string{"anthropic/claude-sonnet-4-5"}, DryRun: true,
		Describe: providers.Registry().Describe, OutDir: filepath.Join(dir, "out"), Stderr: &stderr})
	if err == nil || !strings.Contains(err.Error(), sheet+":2: question \"A\": the conversation opens with an assistant turn") || strings.Contains(err.Error(), "\n") {
		t.Fatalf("err = %v, want one line naming %s:2", err, sheet)
	}
	if _, err := Run(context.Background(), Config{Sheets: []string{sheet}, Models: []string{"openai/gpt-4o"}, DryRun: true,
		Describe: providers.Registry().Describe, OutDir: filepath.Join(dir, "out"), Stderr: &stderr}); err != nil {
		t.Fatalf("openai: %v", err)
	}
}
