package runner

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strconv"

	"github.com/evalmd/evalmd/model"
)

// keyVersion is hashed into every key, so a change to what a key covers
// invalidates old cache entries instead of silently matching them. v2: the
// base URL is always the model's real server (Info().BaseURL); v1 keys
// held it only when --base-url was given.
const keyVersion = "evalmd-request-v2"

// journalVersion is written in every journal record; records of an older
// version (v1 had none) are asked again, with one warning.
const journalVersion = 2

// keyMaterial is what a request key covers. It is marshalled with
// encoding/json, whose output for a struct is deterministic (fields in
// declaration order, []byte as base64), so equal requests hash equally.
// Credentials are not part of it on purpose: the cache directory may be
// shared or committed, and a key must not change when a key is rotated.
type keyMaterial struct {
	Version  string            `json:"v"`
	Model    string            `json:"model"`
	BaseURL  string            `json:"base_url"`
	System   string            `json:"system"`
	Messages []messageMaterial `json:"messages"`
	Settings settingsMaterial  `json:"settings"`
	// Tools offered (agent mode); absent for plain requests, so their keys
	// are what they were before tools existed.
	Tools []toolMaterial `json:"tools,omitempty"`
	// Solve is how the answer is made (code, agent mode); absent for a
	// plain completion. Files count by base name, as the code sees them.
	Solve *solveMaterial `json:"solve,omitempty"`
	// Question is set only for the journal fingerprint (see fingerprint).
	Question *questionMaterial `json:"question,omitempty"`
}

// messageMaterial is model.Message as keys have always covered it (Go's
// field names, images as base64), plus the tool fields when set.
type messageMaterial struct {
	Role       string
	Content    string
	Images     []model.Image
	ToolCalls  []model.ToolCall `json:",omitempty"`
	ToolCallID string           `json:",omitempty"`
}

type toolMaterial struct {
	Name, Description string
	Parameters        string
}

func messagesOf(msgs []model.Message) []messageMaterial {
	out := make([]messageMaterial, len(msgs))
	for i, m := range msgs {
		out[i] = messageMaterial{Role: m.Role, Content: m.Content, Images: m.Images, ToolCalls: m.ToolCalls, ToolCallID: m.ToolCallID}
	}
	return out
}

type solveMaterial struct {
	Mode, Extract, Style   string
	Files                  []string
	MaxTurns, TokenBudget  int
	QuestionTimeoutSeconds float64
	// Added later: absent when unset, so earlier keys stay.
	ToolTimeoutSeconds float64         `json:",omitempty"`
	ToolMemory         int64           `json:",omitempty"`
	Reformat           *model.Reformat `json:",omitempty"`
}

func solveOf(s *model.Solve) *solveMaterial {
	if s == nil {
		return nil
	}
	m := &solveMaterial{Mode: s.Mode, Extract: s.Extract, Style: s.Style, MaxTurns: s.MaxTurns,
		TokenBudget: s.TokenBudget, QuestionTimeoutSeconds: s.QuestionTimeout.Seconds(),
		ToolTimeoutSeconds: s.ToolTimeout.Seconds(), ToolMemory: s.ToolMemory, Reformat: s.Reformat}
	for _, f := range s.Files {
		m.Files = append(m.Files, filepath.Base(f))
	}
	return m
}

func toolsOf(tools []model.Tool) []toolMaterial {
	var out []toolMaterial
	for _, t := range tools {
		out = append(out, toolMaterial{Name: t.Name, Description: t.Description, Parameters: string(t.Parameters)})
	}
	return out
}

// settingsMaterial is model.Settings with floats as text: encoding/json
// rejects NaN and infinities, and a key must exist for any input.
type settingsMaterial struct {
	Temperature string   `json:"temperature"`
	TopP        string   `json:"top_p"`
	MaxTokens   int      `json:"max_tokens"`
	Seed        string   `json:"seed"`
	Stop        []string `json:"stop"`
}

// questionMaterial is model.QuestionRef without pointers.
type questionMaterial struct {
	Sheet, Name, ID string
	HasTruth        bool
	Truth           string
}

func settingsOf(s model.Settings) settingsMaterial {
	m := settingsMaterial{MaxTokens: s.MaxTokens, Stop: s.Stop}
	if s.Temperature != nil {
		m.Temperature = strconv.FormatFloat(*s.Temperature, 'g', -1, 64)
	}
	if s.TopP != nil {
		m.TopP = strconv.FormatFloat(*s.TopP, 'g', -1, 64)
	}
	if s.Seed != nil {
		m.Seed = strconv.FormatInt(*s.Seed, 10)
	}
	return m
}

// RequestKey is the content address of a request to a model: the hex
// sha256 over the model name (provider/model), the server's base URL, the
// system text, the messages (text and image bytes) and the settings. It never
// covers credentials, and it does not cover req.Question, which providers do
// not send: two questions with the same prompt share a cache entry.
func RequestKey(modelName, baseURL string, req model.Request) string {
	return hashKey(keyMaterial{
		Version:  keyVersion,
		Model:    modelName,
		BaseURL:  baseURL,
		System:   req.System,
		Messages: messagesOf(req.Messages),
		Settings: settingsOf(req.Settings),
		Tools:    toolsOf(req.Tools),
		Solve:    solveOf(req.Solve),
	})
}

// fingerprint identifies a job's request in the journal. Unlike RequestKey
// it covers req.Question, because offline built-ins (replay, oracle) answer
// from it: a journaled answer is reused only for the very same request.
func fingerprint(modelName, baseURL string, req model.Request) string {
	q := &questionMaterial{Sheet: req.Question.Sheet, Name: req.Question.Name, ID: req.Question.ID}
	if t := req.Question.GroundTruth; t != nil {
		q.HasTruth, q.Truth = true, *t
	}
	return hashKey(keyMaterial{
		Version:  keyVersion,
		Model:    modelName,
		BaseURL:  baseURL,
		System:   req.System,
		Messages: messagesOf(req.Messages),
		Settings: settingsOf(req.Settings),
		Tools:    toolsOf(req.Tools),
		Solve:    solveOf(req.Solve),
		Question: q,
	})
}

func hashKey(k keyMaterial) string {
	b, err := json.Marshal(k)
	if err != nil {
		// keyMaterial holds only strings, ints, bools and byte slices,
		// which encoding/json always accepts; a formatted dump (no
		// pointers left to print as addresses) keeps this total anyway.
		b = fmt.Appendf(nil, "%#v", k)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
