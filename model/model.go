// Package model defines how evalmd talks to a language model.
//
// A Request (system text, messages and the settings sent) goes in and a
// Response (text, reasoning and usage) comes out. A model's Info says what
// it can do: its provider, server, vision, price and context.
// ImageTokens says what an image costs in input tokens on it, by its
// provider's published rule, for estimates made before a request is sent.
//
// A Task is a request with what travels beside it: the question, for the
// offline models that answer from it, and the code or agent mode's Solve.
// Ask hands a Task whole to an Answerer and only its request to any other
// model.
//
// The package knows no provider. The providers live in model/openai,
// model/anthropic and model/builtin; a program wires the ones it wants
// into a Registry, much as database/sql takes drivers but without a
// global table. Each provider registers a Factory that builds its models
// from a Ref and the Options. A provider that takes batches reports each
// batch as a BatchState (running, ended or failed).
//
// A request may hold a conversation (user and assistant turns before the
// last user message) and ask for a JSON answer: Settings.ResponseFormat
// ResponseJSON, or ResponseSchema with Request.Schema, a JSON Schema sent
// as each provider's structured output (named SchemaName where a
// provider names it). A model whose Info says UserFirst refuses a
// conversation that opens with an assistant turn.
//
// A Request's Prefix is the start of it that its sheet's other requests
// send too (CommonPrefix finds it): a provider's prompt cache keeps it
// once and serves it to the rest, when it is past the model's
// Info.CacheMin.
//
// A reply's answer and what the model thought before it are kept apart,
// in Response.Text and Response.Reasoning; SplitThink applies the
// think_tags rule to a reply that opens with <think> blocks. What a
// request's settings send comes from SendSettings: a SettingsSender's own
// rules, else its Info's Sendable.
package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
)

// Message is one chat turn. The JSON form is how a transcript is kept in
// output files (images are not kept there).
type Message struct {
	Role    string  `json:"role"`             // "user", "assistant" or "tool"
	Content string  `json:"content"`          // the text of the turn
	Images  []Image `json:"images,omitempty"` // images sent with the turn, for models that take them

	// ToolCalls are the tools an assistant turn asked to run.
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// ToolCallID is the call a "tool" turn answers.
	ToolCallID string `json:"tool_call_id,omitempty"`
	// ToolLimit is the sandbox limit a tool call hit ("tool_timeout", "memory", "output", ...).
	ToolLimit string `json:"tool_limit,omitempty"`
	// Reasoning is what an assistant turn thought before its content
	// (Response.Reasoning), kept in transcripts apart from the content.
	Reasoning string `json:"reasoning,omitempty"`
	// ReasoningBlocks are an assistant turn's reasoning as its API
	// returned it (Response.ReasoningBlocks), sent back with the turn.
	ReasoningBlocks []ReasoningBlock `json:"reasoning_blocks,omitempty"`
}

// Image is an image attached to a message; providers base64-encode Data.
type Image struct {
	MediaType string // "image/png", "image/jpeg"
	Data      []byte
}

// Settings are the generation settings of a request. A nil pointer or zero
// value means "the provider's default".
type Settings struct {
	Temperature *float64 `json:"temperature,omitempty"`
	TopP        *float64 `json:"top_p,omitempty"`
	MaxTokens   int      `json:"max_tokens,omitempty"`
	Seed        *int64   `json:"seed,omitempty"`
	Stop        []string `json:"stop,omitempty"`
	// ReasoningEffort is how hard a reasoning model thinks, one of
	// ReasoningEfforts; "" is the provider's default.
	ReasoningEffort string `json:"reasoning_effort,omitempty"`
	// ReasoningTokens is a thinking budget in tokens, for the providers
	// that take one; 0 is none.
	ReasoningTokens int `json:"reasoning_tokens,omitempty"`
	// Thinking is ThinkingAdaptive, Anthropic's adaptive thinking (the
	// model decides how much to think); "" is the provider's default.
	Thinking string `json:"thinking,omitempty"`
	// Verbosity is how long an answer is (low, medium or high: OpenAI's
	// verbosity); "" is the provider's default.
	Verbosity string `json:"verbosity,omitempty"`
	// ResponseFormat is ResponseJSON to ask for a JSON answer (each
	// provider's JSON mode), ResponseSchema for one following the
	// request's Schema (its structured output); "" is plain text.
	ResponseFormat string `json:"response_format,omitempty"`
}

// The values of Settings.ResponseFormat but plain text's "".
const (
	ResponseJSON   = "json"
	ResponseSchema = "json_schema"
)

// The values of Settings.ReasoningEffort, from the least thinking to the
// most: OpenAI's (none to xhigh) and Claude's (low to max).
const (
	ReasoningNone    = "none"
	ReasoningMinimal = "minimal"
	ReasoningLow     = "low"
	ReasoningMedium  = "medium"
	ReasoningHigh    = "high"
	ReasoningXHigh   = "xhigh"
	ReasoningMax     = "max"
)

// ReasoningEfforts are the values of Settings.ReasoningEffort, from the
// least thinking to the most.
var ReasoningEfforts = []string{ReasoningNone, ReasoningMinimal, ReasoningLow, ReasoningMedium, ReasoningHigh, ReasoningXHigh, ReasoningMax}

// ThinkingAdaptive is the value of Settings.Thinking.
const ThinkingAdaptive = "adaptive"

// Verbosities are the values of Settings.Verbosity, from the shortest
// answers to the longest.
var Verbosities = []string{"low", "medium", "high"}

// Request is what is sent to a provider for one question, and nothing
// else: a provider's Complete sees only this.
type Request struct {
	System   string // system message; empty means none
	Messages []Message
	Settings Settings
	// Tools are offered to the model (agent mode); nil for none.
	Tools []Tool
	// Schema is the JSON Schema the answer must follow, sent as the
	// provider's structured output; nil for none. A request with a
	// schema asks for JSON (Settings.ResponseFormat is ResponseSchema).
	Schema json.RawMessage
	// Prefix is the start of the request that its sheet's other requests
	// send too, which a provider's prompt cache can serve them; the zero
	// Prefix marks none. It changes how the request is sent (Anthropic's
	// cache breakpoints), never what the model reads.
	Prefix Prefix
}

// SchemaName is the name a provider that names a response schema
// (OpenAI's json_schema.name) is sent: the sheet gives none.
const SchemaName = "answer"

// Check says what no provider can send of r, as every HTTP provider
// refuses it: no messages, a role other than user, assistant and tool,
// an image without its type or data, images on an assistant turn, a tool
// result without the id of its call.
func (r Request) Check() error {
	if len(r.Messages) == 0 {
		return fmt.Errorf("request has no messages")
	}
	for i, msg := range r.Messages {
		switch msg.Role {
		case "user", "assistant", "tool":
		default:
			return fmt.Errorf("message %d: unknown role %q (want user, assistant or tool)", i, msg.Role)
		}
		if msg.Role == "assistant" && len(msg.Images) > 0 {
			return fmt.Errorf("message %d: assistant messages cannot carry images", i)
		}
		if msg.Role == "tool" && msg.ToolCallID == "" {
			return fmt.Errorf("message %d: a tool result without the id of its call", i)
		}
		for j, img := range msg.Images {
			if img.MediaType == "" || len(img.Data) == 0 {
				return fmt.Errorf("message %d, image %d: no media type or no data", i, j)
			}
		}
	}
	return nil
}

// Task is one question put to a model: the Request that is sent and,
// beside it, what no provider sends. Ask hands a Task to a model that is
// an Answerer (the offline models that answer from the question; package
// solve, which acts on Solve) and only its Request to any other.
type Task struct {
	Request
	// Solve, when set, says the answer is made by running code (code and
	// agent modes); nil for a plain completion.
	Solve *Solve
	// Question names the question, for errors and for the models that
	// answer from it (Info.FromQuestion: replay matches Name or ID, oracle
	// answers GroundTruth).
	Question QuestionRef
	// Epoch is the epoch the question is asked in (run --epochs) when past
	// the first, else 0. It is not sent, but keyed: epoch 2 is never
	// answered from epoch 1's cache entry or journal record, while epoch 1
	// keys as a run of one epoch does.
	Epoch int
}

// QuestionRef names the question a request asks.
type QuestionRef struct {
	Sheet string
	Name  string
	ID    string // the question's "id" meta, the benchmark's own id
	// IDIsNumber says the benchmark keys answers by numeric id (DABench's
	// eval_closed_form.py): a replay line's "id": "7" then does not answer
	// question 7, only "id": 7 does.
	IDIsNumber  bool
	GroundTruth *string // nil when the question has no answer
}

// Response is a model's answer with its usage.
type Response struct {
	// Text is the answer alone: what graders, code extraction and the
	// reformat step read. What the model thought before it is Reasoning.
	Text         string
	InputTokens  int
	OutputTokens int // every token generated, reasoning included
	// Reasoning is the text the model thought before its answer, as the
	// server returned it apart from the answer (reasoning_content,
	// reasoning, thinking blocks) or as the think_tags rule took it out
	// of the text (<think>...</think>); a note when the provider returned
	// it encrypted or redacted; "" when none.
	Reasoning string `json:",omitempty"`
	// ReasoningTokens are the output tokens spent on reasoning, when the
	// provider counts them apart (a part of OutputTokens, costed as
	// output); 0 when unknown.
	ReasoningTokens int `json:",omitempty"`
	// CacheReadTokens and CacheWriteTokens are the input tokens the
	// provider read from and wrote to its prompt cache: parts of
	// InputTokens, priced at the cache rates (see Cost); 0 when none or
	// unknown.
	CacheReadTokens  int    `json:",omitempty"`
	CacheWriteTokens int    `json:",omitempty"`
	Model            string // the model the server said answered (its reply's "model"), if any; offline models leave it empty
	// FinishReason is why the model stopped, as the provider says it
	// ("stop", "length", "end_turn", "max_tokens", ...); "" when unknown.
	FinishReason string `json:",omitempty"`
	// ToolCalls are the tools the model asked to run, in order.
	ToolCalls []ToolCall `json:",omitempty"`
	// ReasoningBlocks are the reply's reasoning as the API returned it, for
	// an agent to send back with the next turn (see ReasoningBlock); like
	// ToolCalls, the agent loop's, kept in its transcript, never in a
	// journal's settled answer.
	ReasoningBlocks []ReasoningBlock `json:",omitempty"`
	// Work is what a code- or agent-mode answer ran; nil for a plain
	// completion.
	Work *ToolRun `json:",omitempty"`
}

// FinishRefusal is Response.FinishReason of a reply in which the model
// refused: Anthropic's stop_reason, and OpenAI's message refusal (then
// the refusal's text is Response.Text).
const FinishRefusal = "refusal"

// Model answers requests. Implementations are safe for concurrent use.
type Model interface {
	// Name is the model's name as given on the command line, e.g. "openai/gpt-4o".
	Name() string
	// Info says what the model is and can do; every capability question
	// (vision, price, offline, context limit, server) is asked of it.
	Info() Info
	Complete(ctx context.Context, req Request) (Response, error)
}

// An Answerer answers a whole Task, not only its Request: a model that
// answers from the question (Info.FromQuestion), or a wrapper that acts on
// what travels beside the request (package solve, the runner's retries).
// It is database/sql's optional-interface pattern: Ask uses it when a
// model has it.
type Answerer interface {
	Answer(ctx context.Context, t Task) (Response, error)
}

// Ask puts t to m: m.Answer(t) when m is an Answerer, else
// m.Complete(t.Request), which no provider can tell from a Task.
func Ask(ctx context.Context, m Model, t Task) (Response, error) {
	if a, ok := m.(Answerer); ok {
		return a.Answer(ctx, t)
	}
	return m.Complete(ctx, t.Request)
}

// ErrNoAnswer is returned by a model that has no answer for a question (a
// replay file without that question). The run records it as unanswered, not
// as wrong.
var ErrNoAnswer = errors.New("no answer for this question")
