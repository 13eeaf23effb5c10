package model

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// openAIConfig is what New resolved for an OpenAI or OpenAI-compatible model.
type openAIConfig struct {
	name     string // as given on the command line
	provider string // "openai", "ollama", "vllm", "llamacpp", or an openai-api label
	model    string // sent as the request's model
	baseURL  string
	key      string // "" sends no Authorization header

	// maxCompletionTokens sends Settings.MaxTokens as max_completion_tokens,
	// which OpenAI requires for its reasoning models (o1, o3, gpt-5...) and
	// accepts for every chat model; max_tokens is deprecated there. Other
	// servers (vLLM, Ollama, llama.cpp) know max_tokens, so they get that.
	maxCompletionTokens bool

	opt Options
}

// openAIModel talks to OpenAI or any server speaking its chat-completions API.
type openAIModel struct {
	cfg  openAIConfig
	chat openai.ChatCompletionService
}

func newOpenAI(cfg openAIConfig) (*openAIModel, error) {
	// The service is built from explicit options only, not openai.NewClient,
	// whose defaults read OPENAI_* variables from the process environment:
	// keys and URLs come from Options and its injected Getenv alone.
	opts := []option.RequestOption{
		option.WithHTTPClient(cfg.opt.httpClient()),
		option.WithBaseURL(cfg.baseURL),
		option.WithMaxRetries(0), // the runner retries, with its own budget
	}
	if cfg.key != "" {
		opts = append(opts, option.WithAPIKey(cfg.key))
	}
	return &openAIModel{cfg: cfg, chat: openai.NewChatCompletionService(opts...)}, nil
}

// Name returns the name given to New.
func (m *openAIModel) Name() string { return m.cfg.name }

// Complete sends one chat completion and returns its first choice.
func (m *openAIModel) Complete(ctx context.Context, req Request) (Response, error) {
	params, err := m.params(req)
	if err != nil {
		return Response{}, m.wrap(req, err)
	}
	callCtx, cancel := context.WithTimeout(ctx, m.cfg.opt.timeout())
	defer cancel()
	var httpRes *http.Response
	out, err := m.chat.New(callCtx, params, option.WithResponseInto(&httpRes))
	if err != nil {
		var apiErr *openai.Error
		if errors.As(err, &apiErr) && httpRes == nil {
			httpRes = apiErr.Response
		}
		return Response{}, m.wrap(req, classify(m.cfg.provider, m.cfg.key, err, httpRes, ctx, callCtx, m.cfg.opt.timeout()))
	}
	if out == nil || len(out.Choices) == 0 {
		return Response{}, m.wrap(req, &APIError{Provider: m.cfg.provider, Retryable: true,
			Message: "malformed reply: no choices"})
	}
	msg := out.Choices[0].Message
	text := msg.Content
	if text == "" && msg.Refusal != "" {
		text = msg.Refusal // a refusal is the model's answer; grading decides
	}
	return Response{
		Text:         text,
		InputTokens:  int(out.Usage.PromptTokens),
		OutputTokens: int(out.Usage.CompletionTokens),
		Model:        out.Model,
	}, nil
}

// wrap names the request in an error, keeping *APIError reachable by errors.As.
func (m *openAIModel) wrap(req Request, err error) error {
	return fmt.Errorf("model %s, question %q: %w", m.cfg.name, req.Question.Name, err)
}

// params translates a Request into the SDK's request body.
func (m *openAIModel) params(req Request) (openai.ChatCompletionNewParams, error) {
	p := openai.ChatCompletionNewParams{Model: m.cfg.model}
	if req.System != "" {
		p.Messages = append(p.Messages, openai.SystemMessage(req.System))
	}
	if len(req.Messages) == 0 {
		return p, fmt.Errorf("request has no messages")
	}
	for i, msg := range req.Messages {
		switch msg.Role {
		case "user":
			if len(msg.Images) == 0 {
				p.Messages = append(p.Messages, openai.UserMessage(msg.Content))
				continue
			}
			parts := []openai.ChatCompletionContentPartUnionParam{openai.TextContentPart(msg.Content)}
			for j, img := range msg.Images {
				if img.MediaType == "" || len(img.Data) == 0 {
					return p, fmt.Errorf("message %d, image %d: no media type or no data", i, j)
				}
				parts = append(parts, openai.ImageContentPart(openai.ChatCompletionContentPartImageImageURLParam{
					URL: "data:" + img.MediaType + ";base64," + base64.StdEncoding.EncodeToString(img.Data),
				}))
			}
			p.Messages = append(p.Messages, openai.UserMessage(parts))
		case "assistant":
			if len(msg.Images) > 0 {
				return p, fmt.Errorf("message %d: assistant messages cannot carry images", i)
			}
			p.Messages = append(p.Messages, openai.AssistantMessage(msg.Content))
		default:
			return p, fmt.Errorf("message %d: unknown role %q (want user or assistant)", i, msg.Role)
		}
	}
	s := req.Settings
	if s.Temperature != nil {
		p.Temperature = openai.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = openai.Float(*s.TopP)
	}
	if s.MaxTokens > 0 {
		if m.cfg.maxCompletionTokens {
			p.MaxCompletionTokens = openai.Int(int64(s.MaxTokens))
		} else {
			p.MaxTokens = openai.Int(int64(s.MaxTokens))
		}
	}
	if s.Seed != nil {
		p.Seed = openai.Int(*s.Seed)
	}
	if len(s.Stop) > 0 {
		p.Stop = openai.ChatCompletionNewParamsStopUnion{OfStringArray: s.Stop}
	}
	return p, nil
}
