package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
)

// TTSInputs is the data of the TTS-inputs endpoint: the TTS request's
// fields with the provider's rules (bounds of speech_rate, pitch and
// loudness; the sample rates and formats it accepts), so that a client
// offers what the provider takes instead of keeping a copy of it.
type TTSInputs struct {
	Provider    string      `json:"provider"`
	InputSchema InputSchema `json:"input_schema"`
}

// Input returns the field called name, or nil.
func (t *TTSInputs) Input(name string) *Field {
	for i := range t.InputSchema {
		if t.InputSchema[i].Name == name {
			return &t.InputSchema[i]
		}
	}
	return nil
}

// Ints is the field's enum read as integers (sample rates); values that
// are not integers are left out.
func (f *Field) Ints() []int {
	var out []int
	for _, e := range f.Enum {
		if n, err := strconv.Atoi(e); err == nil {
			out = append(out, n)
		}
	}
	return out
}

// DecodeTTSInputs reads the data of the TTS-inputs endpoint.
func DecodeTTSInputs(data []byte) (*TTSInputs, error) {
	_, obj, err := orderedObject(data)
	if err != nil {
		return nil, malformed(describeJSONError(err))
	}
	schema, ok := obj["input_schema"]
	if !ok {
		return nil, malformed(errors.New("no input_schema"))
	}
	out := &TTSInputs{InputSchema: decodeFields(schema)}
	if p, ok := obj["provider"]; ok {
		_ = json.Unmarshal(p, &out.Provider)
	}
	return out, nil
}

// TTSInputs fetches a provider's TTS inputs and their rules ("" means
// DefaultProvider). A gateway that does not serve them answers 404.
func (c *Client) TTSInputs(ctx context.Context, provider string) (*TTSInputs, error) {
	if provider == "" {
		provider = DefaultProvider
	}
	if err := validSlug("provider", provider); err != nil {
		return nil, err
	}
	data, err := c.get(ctx, fmt.Sprintf(PathTTSInputsFmt, url.PathEscape(provider)))
	if err != nil {
		return nil, fmt.Errorf("tts inputs of %s: %w", provider, err)
	}
	in, err := DecodeTTSInputs(data)
	if err != nil {
		return nil, fmt.Errorf("tts inputs of %s: %w", provider, err)
	}
	return in, nil
}
