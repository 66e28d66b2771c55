// Package model is the gateway's client of a language model that the
// operator brings: an OpenAI-compatible endpoint (OpenAI, OpenRouter,
// ollama, llama.cpp's server, vLLM, LM Studio) or Anthropic. It streams a
// written answer and embeds texts, through the providers' official Go
// SDKs (openai-go, anthropic-sdk-go), and turns their failures into one
// typed Error that names the provider and never the key.
//
// It does not build prompts or judge answers (research does), and it
// logs a prompt only at debug level.
package model

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"
)

// Providers a Config may name.
const (
	ProviderOpenAI    = "openai"    // any OpenAI-compatible endpoint
	ProviderAnthropic = "anthropic" // Anthropic's messages API
)

// Config is a model endpoint, resolved: the key is the key itself (an
// api_key_command has already run).
type Config struct {
	Provider string
	BaseURL  string // default: the provider's public endpoint
	APIKey   string // may be empty for a local server (ollama)
	Chat     string // the chat model that writes answers
	// Embedding is the embedding model; empty turns embeddings off. It
	// is always served by an OpenAI-compatible endpoint: EmbeddingURL,
	// or BaseURL with the openai provider.
	Embedding    string
	EmbeddingURL string
	MaxTokens    int           // an answer's limit; default 1500
	Retries      int           // retries of a 429 or 5xx before any text arrived; default 2, -1 for none
	MaxRetryWait time.Duration // the longest Retry-After honoured; default 30s
	HTTPClient   *http.Client  // default: one without a total timeout (streams are long)
	Log          *slog.Logger  // default: discard; prompts only at debug level
}

// Validate names the first field that is wrong and its rule.
func (c Config) Validate() error {
	switch c.Provider {
	case ProviderOpenAI, ProviderAnthropic:
	default:
		return fmt.Errorf("invalid model.provider %q: must be %s or %s", c.Provider, ProviderOpenAI, ProviderAnthropic)
	}
	if c.Chat == "" {
		return errors.New("invalid model.chat: a chat model name is required")
	}
	if c.Provider == ProviderOpenAI && c.BaseURL == "" {
		return errors.New("invalid model.base_url: an OpenAI-compatible provider needs its base URL (https://api.openai.com/v1, http://localhost:11434/v1, ...)")
	}
	for _, u := range []struct{ field, v string }{{"model.base_url", c.BaseURL}, {"model.embedding_base_url", c.EmbeddingURL}} {
		if u.v != "" && !strings.HasPrefix(u.v, "http://") && !strings.HasPrefix(u.v, "https://") {
			return fmt.Errorf("invalid %s %q: must be an http:// or https:// URL", u.field, u.v)
		}
	}
	if c.Embedding != "" && c.Provider == ProviderAnthropic && c.EmbeddingURL == "" {
		return errors.New("invalid model.embedding_base_url: Anthropic serves no embeddings; name an OpenAI-compatible endpoint for model.embedding")
	}
	if c.MaxTokens < 0 {
		return fmt.Errorf("invalid model.max_tokens %d: must be 0 (default) or more", c.MaxTokens)
	}
	return nil
}

// Prompt is what a model is asked.
type Prompt struct {
	System string // the instructions
	User   string // the question and the numbered passages
}

// Written is an answer as it arrived. After an error, Text holds what
// arrived before it.
type Written struct {
	Text  string
	Model string // the model that wrote it, as the provider names it
}

// Client calls one configured model.
type Client struct {
	cfg   Config
	chat  chatter
	embed *openAIClient // nil without an embedding model
	log   *slog.Logger
}

// chatter is one provider's streaming chat.
type chatter interface {
	stream(ctx context.Context, p Prompt, onText func(string)) (Written, error)
}

// New builds a client; it makes no call.
func New(cfg Config) (*Client, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = 1500
	}
	if cfg.Retries == 0 {
		cfg.Retries = 2
	} else if cfg.Retries < 0 {
		cfg.Retries = 0
	}
	if cfg.MaxRetryWait <= 0 {
		cfg.MaxRetryWait = 30 * time.Second
	}
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{}
	}
	log := cfg.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Client{cfg: cfg, log: log}
	switch cfg.Provider {
	case ProviderAnthropic:
		c.chat = newAnthropic(cfg)
	default:
		c.chat = newOpenAI(cfg, cfg.BaseURL)
	}
	if cfg.Embedding != "" {
		u := cfg.EmbeddingURL
		if u == "" {
			u = cfg.BaseURL
		}
		c.embed = newOpenAI(cfg, u)
	}
	return c, nil
}

// Name is the model as a report names it: "fake-writer (openai)".
func (c *Client) Name() string {
	return fmt.Sprintf("%s (%s)", c.cfg.Chat, c.cfg.Provider)
}

// Embeds reports whether an embedding model is configured.
func (c *Client) Embeds() bool { return c.embed != nil }

// EmbeddingModel is the configured embedding model's name.
func (c *Client) EmbeddingModel() string { return c.cfg.Embedding }

// Write streams the model's answer to p, calling onText with each piece
// as it arrives. A 429 or 5xx before any text is retried, after the
// Retry-After the provider asked for; a stream that fails after text
// arrived is not retried, and Written keeps that text.
func (c *Client) Write(ctx context.Context, p Prompt, onText func(string)) (Written, error) {
	if onText == nil {
		onText = func(string) {}
	}
	start := time.Now()
	c.log.InfoContext(ctx, "model call", "provider", c.cfg.Provider, "model", c.cfg.Chat, "prompt_chars", len(p.System)+len(p.User))
	if c.log.Enabled(ctx, slog.LevelDebug) {
		c.log.DebugContext(ctx, "model prompt", "system", p.System, "user", p.User)
	}
	var w Written
	err := c.retrying(ctx, func() (bool, error) {
		var err error
		w, err = c.chat.stream(ctx, p, onText)
		return w.Text == "", err
	})
	level := slog.LevelInfo
	attrs := []any{"provider", c.cfg.Provider, "model", c.cfg.Chat, "answer_chars", len(w.Text), "duration_ms", time.Since(start).Milliseconds()}
	if err != nil {
		level = slog.LevelWarn
		attrs = append(attrs, "error", err.Error())
	}
	c.log.Log(ctx, level, "model answer", attrs...)
	return w, err
}

// Embed embeds texts with the embedding model, one vector per text, in
// one request.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if c.embed == nil {
		return nil, errors.New("model: no embedding model is configured (model.embedding)")
	}
	var out [][]float32
	err := c.retrying(ctx, func() (bool, error) {
		var err error
		out, err = c.embed.embed(ctx, texts)
		return true, err
	})
	return out, err
}

// retrying runs call until it succeeds, fails for good, or fails after
// output began (call reports whether it may be repeated).
func (c *Client) retrying(ctx context.Context, call func() (repeatable bool, err error)) error {
	for attempt := 0; ; attempt++ {
		repeatable, err := call()
		if err == nil {
			return nil
		}
		var me *Error
		if !errors.As(err, &me) || !me.retryable() || !repeatable || attempt >= c.cfg.Retries {
			return err
		}
		wait := me.RetryAfter
		if wait == 0 {
			wait = time.Duration(500<<attempt) * time.Millisecond
		}
		if wait > c.cfg.MaxRetryWait {
			return err
		}
		c.log.InfoContext(ctx, "model retry", "provider", c.cfg.Provider, "status", me.Status, "wait_ms", wait.Milliseconds())
		t := time.NewTimer(wait)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return err
		}
	}
}
