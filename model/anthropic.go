package model

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
)

// AnthropicDefaultMaxTokens is sent when a request sets no MaxTokens: the
// messages API requires max_tokens, and 4096 fits every current Claude model.
const AnthropicDefaultMaxTokens = 4096

// anthropicConfig is what New resolved for an Anthropic model.
type anthropicConfig struct {
	name    string // as given on the command line
	model   string // sent as the request's model
	baseURL string // "" means api.anthropic.com
	key     string
	opt     Options
}

// anthropicModel talks to the Anthropic messages API.
type anthropicModel struct {
	cfg      anthropicConfig
	messages anthropic.MessageService
}

func newAnthropic(cfg anthropicConfig) (*anthropicModel, error) {
	// Built from explicit options only: the SDK's defaults would read
	// ANTHROPIC_* variables and credential profiles from the machine.
	opts := []option.RequestOption{
		option.WithoutEnvironmentDefaults(),
		option.WithEnvironmentProduction(),
		option.WithHTTPClient(cfg.opt.httpClient()),
		option.WithMaxRetries(0), // the runner retries, with its own budget
		// An explicit request timeout also stops the SDK from refusing large
		// max_tokens for non-streaming calls; Complete's context is the real bound.
		option.WithRequestTimeout(cfg.opt.timeout()),
	}
	if cfg.baseURL != "" {
		opts = append(opts, option.WithBaseURL(cfg.baseURL))
	}
	if cfg.key != "" {
		opts = append(opts, option.WithAPIKey(cfg.key))
	}
	return &anthropicModel{cfg: cfg, messages: anthropic.NewMessageService(opts...)}, nil
}

// Name returns the name given to New.
func (m *anthropicModel) Name() string { return m.cfg.name }

// Complete sends one message request and returns the text of its reply.
func (m *anthropicModel) Complete(ctx context.Context, req Request) (Response, error) {
	params, err := m.params(req)
	if err != nil {
		return Response{}, m.wrap(req, err)
	}
	callCtx, cancel := context.WithTimeout(ctx, m.cfg.opt.timeout())
	defer cancel()
	var httpRes *http.Response
	out, err := m.messages.New(callCtx, params, option.WithResponseInto(&httpRes))
	if err != nil {
		var apiErr *anthropic.Error
		if errors.As(err, &apiErr) && httpRes == nil {
			httpRes = apiErr.Response
		}
		return Response{}, m.wrap(req, classify("anthropic", m.cfg.key, err, httpRes, ctx, callCtx, m.cfg.opt.timeout()))
	}
	if out == nil {
		return Response{}, m.wrap(req, &APIError{Provider: "anthropic", Retryable: true, Message: "malformed reply: empty"})
	}
	var text strings.Builder
	for _, block := range out.Content {
		if block.Type == "text" {
			text.WriteString(block.Text)
		}
	}
	return Response{
		Text:         text.String(),
		InputTokens:  int(out.Usage.InputTokens),
		OutputTokens: int(out.Usage.OutputTokens),
		Model:        string(out.Model),
	}, nil
}

// wrap names the request in an error, keeping *APIError reachable by errors.As.
func (m *anthropicModel) wrap(req Request, err error) error {
	return fmt.Errorf("model %s, question %q: %w", m.cfg.name, req.Question.Name, err)
}

// params translates a Request into the SDK's request body.
func (m *anthropicModel) params(req Request) (anthropic.MessageNewParams, error) {
	p := anthropic.MessageNewParams{
		Model:     anthropic.Model(m.cfg.model),
		MaxTokens: AnthropicDefaultMaxTokens,
	}
	if req.System != "" {
		p.System = []anthropic.TextBlockParam{{Text: req.System}}
	}
	if len(req.Messages) == 0 {
		return p, fmt.Errorf("request has no messages")
	}
	for i, msg := range req.Messages {
		var blocks []anthropic.ContentBlockParamUnion
		// Images go before the text, as Anthropic recommends for vision prompts.
		for j, img := range msg.Images {
			if img.MediaType == "" || len(img.Data) == 0 {
				return p, fmt.Errorf("message %d, image %d: no media type or no data", i, j)
			}
			blocks = append(blocks, anthropic.NewImageBlockBase64(img.MediaType, base64.StdEncoding.EncodeToString(img.Data)))
		}
		if msg.Content != "" || len(blocks) == 0 {
			// Anthropic rejects empty text blocks, so an image-only turn has none.
			blocks = append(blocks, anthropic.NewTextBlock(msg.Content))
		}
		switch msg.Role {
		case "user":
			p.Messages = append(p.Messages, anthropic.NewUserMessage(blocks...))
		case "assistant":
			if len(msg.Images) > 0 {
				return p, fmt.Errorf("message %d: assistant messages cannot carry images", i)
			}
			p.Messages = append(p.Messages, anthropic.NewAssistantMessage(blocks...))
		default:
			return p, fmt.Errorf("message %d: unknown role %q (want user or assistant)", i, msg.Role)
		}
	}
	s := req.Settings
	if s.MaxTokens > 0 {
		p.MaxTokens = int64(s.MaxTokens)
	}
	if s.Temperature != nil {
		p.Temperature = anthropic.Float(*s.Temperature)
	}
	if s.TopP != nil {
		p.TopP = anthropic.Float(*s.TopP)
	}
	if len(s.Stop) > 0 {
		p.StopSequences = s.Stop
	}
	// Anthropic has no seed: Settings.Seed is not sent.
	return p, nil
}
