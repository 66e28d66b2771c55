package model

import (
	"context"
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// openAIClient speaks to an OpenAI-compatible endpoint through openai-go.
type openAIClient struct {
	cfg      Config
	endpoint string
	client   openai.Client
}

func newOpenAI(cfg Config, baseURL string) *openAIClient {
	opts := []option.RequestOption{
		option.WithBaseURL(strings.TrimSuffix(baseURL, "/") + "/"),
		option.WithHTTPClient(cfg.HTTPClient),
		option.WithMaxRetries(0), // Client.retrying retries, the same for both providers
	}
	if cfg.APIKey != "" {
		opts = append(opts, option.WithAPIKey(cfg.APIKey))
	} else {
		// ollama and llama.cpp need no key; never send one from the
		// environment (OPENAI_API_KEY) to an endpoint it was not for.
		opts = append(opts, option.WithAPIKey(""), option.WithHeaderDel("Authorization"))
	}
	return &openAIClient{cfg: cfg, endpoint: baseURL, client: openai.NewClient(opts...)}
}

func (c *openAIClient) fail(model string, err error) error {
	var ae *openai.Error
	if errors.As(err, &ae) {
		var h http.Header
		if ae.Response != nil {
			h = ae.Response.Header
		}
		return classify(c.cfg, c.endpoint, model, err, ae.StatusCode, h, ae.Message)
	}
	return classify(c.cfg, c.endpoint, model, err, 0, nil, "")
}

func (c *openAIClient) stream(ctx context.Context, p Prompt, onText func(string)) (Written, error) {
	params := openai.ChatCompletionNewParams{
		Model: c.cfg.Chat,
		Messages: []openai.ChatCompletionMessageParamUnion{
			openai.SystemMessage(p.System),
			openai.UserMessage(p.User),
		},
		MaxCompletionTokens: openai.Int(int64(c.cfg.MaxTokens)),
		Temperature:         openai.Float(0),
	}
	s := c.client.Chat.Completions.NewStreaming(ctx, params)
	defer s.Close()
	var b strings.Builder
	w := Written{Model: c.cfg.Chat}
	finished := false
	for s.Next() {
		ch := s.Current()
		if ch.Model != "" {
			w.Model = ch.Model
		}
		for _, choice := range ch.Choices {
			if t := choice.Delta.Content; t != "" {
				b.WriteString(t)
				onText(t)
			}
			if choice.FinishReason != "" {
				finished = true
			}
		}
	}
	w.Text = b.String()
	if err := s.Err(); err != nil {
		return w, c.fail(c.cfg.Chat, err)
	}
	if ctx.Err() != nil {
		return w, c.fail(c.cfg.Chat, ctx.Err())
	}
	if !finished {
		return w, &Error{Kind: KindDropped, Provider: c.cfg.Provider, Endpoint: c.endpoint, Model: c.cfg.Chat,
			Detail: "the stream closed without a finish reason"}
	}
	return w, nil
}

func (c *openAIClient) embed(ctx context.Context, texts []string) ([][]float32, error) {
	res, err := c.client.Embeddings.New(ctx, openai.EmbeddingNewParams{
		Model:          c.cfg.Embedding,
		Input:          openai.EmbeddingNewParamsInputUnion{OfArrayOfStrings: texts},
		EncodingFormat: openai.EmbeddingNewParamsEncodingFormatFloat,
	})
	if err != nil {
		return nil, c.fail(c.cfg.Embedding, err)
	}
	out := make([][]float32, len(texts))
	for _, d := range res.Data {
		if d.Index < 0 || int(d.Index) >= len(out) {
			return nil, &Error{Kind: KindRefused, Provider: ProviderOpenAI, Endpoint: c.endpoint, Model: c.cfg.Embedding,
				Detail: "an embedding's index is outside the inputs"}
		}
		v := make([]float32, len(d.Embedding))
		for i, x := range d.Embedding {
			v[i] = float32(x)
		}
		out[d.Index] = v
	}
	for i, v := range out {
		if v == nil {
			return nil, &Error{Kind: KindRefused, Provider: ProviderOpenAI, Endpoint: c.endpoint, Model: c.cfg.Embedding,
				Detail: "the answer lacks the embedding of input " + strconv.Itoa(i)}
		}
	}
	return out, nil
}
