package model

import (
	"context"
	"errors"
	"net/http"
	"strings"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"
)

const anthropicURL = "https://api.anthropic.com"

// anthropicClient speaks Anthropic's messages API through its SDK.
type anthropicClient struct {
	cfg      Config
	endpoint string
	client   anthropic.Client
}

func newAnthropic(cfg Config) *anthropicClient {
	u := cfg.BaseURL
	if u == "" {
		u = anthropicURL
	}
	// Anthropic's SDK adds /v1 itself; a base URL written as
	// https://api.anthropic.com/v1 means the same endpoint.
	base := strings.TrimSuffix(strings.TrimSuffix(u, "/"), "/v1")
	c := anthropic.NewClient(
		option.WithoutEnvironmentDefaults(), // no ANTHROPIC_API_KEY or base URL from the environment
		option.WithBaseURL(base+"/"),
		option.WithAPIKey(cfg.APIKey),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0),
	)
	return &anthropicClient{cfg: cfg, endpoint: u, client: c}
}

func (c *anthropicClient) fail(err error) error {
	var ae *anthropic.Error
	if errors.As(err, &ae) {
		var h http.Header
		if ae.Response != nil {
			h = ae.Response.Header
		}
		return classify(c.cfg, c.endpoint, c.cfg.Chat, err, ae.StatusCode, h, ae.Message)
	}
	return classify(c.cfg, c.endpoint, c.cfg.Chat, err, 0, nil, "")
}

func (c *anthropicClient) stream(ctx context.Context, p Prompt, onText func(string)) (Written, error) {
	params := anthropic.MessageNewParams{
		Model:     c.cfg.Chat,
		MaxTokens: int64(c.cfg.MaxTokens),
		System:    []anthropic.TextBlockParam{{Text: p.System}},
		Messages:  []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(p.User))},
	}
	s := c.client.Messages.NewStreaming(ctx, params)
	defer s.Close()
	var b strings.Builder
	w := Written{Model: c.cfg.Chat}
	finished := false
	for s.Next() {
		ev := s.Current()
		switch ev.Type {
		case "message_start":
			if ev.Message.Model != "" {
				w.Model = ev.Message.Model
			}
		case "content_block_delta":
			if t := ev.Delta.Text; t != "" {
				b.WriteString(t)
				onText(t)
			}
		case "message_stop":
			finished = true
		}
	}
	w.Text = b.String()
	if err := s.Err(); err != nil {
		return w, c.fail(err)
	}
	if ctx.Err() != nil {
		return w, c.fail(ctx.Err())
	}
	if !finished {
		return w, &Error{Kind: KindDropped, Provider: c.cfg.Provider, Endpoint: c.endpoint, Model: c.cfg.Chat,
			Detail: "the stream closed before message_stop"}
	}
	return w, nil
}
