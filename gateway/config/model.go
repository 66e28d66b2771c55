package config

import (
	"errors"
	"fmt"
	"os"
	"strconv"

	"github.com/BurntSushi/toml"
)

// Model is the [model] section: the language model an operator brings,
// which writes research answers (and embeds passages). Absent, research
// stays extractive. HARK_MODEL_* variables override each field.
type Model struct {
	Provider         string `toml:"provider,omitempty"` // openai (any OpenAI-compatible endpoint) or anthropic
	BaseURL          string `toml:"base_url,omitempty"`
	APIKey           string `toml:"api_key,omitempty"`
	APIKeyCommand    string `toml:"api_key_command,omitempty"` // prints the key; run when the gateway starts
	Chat             string `toml:"chat,omitempty"`            // the model that writes answers
	Embedding        string `toml:"embedding,omitempty"`       // optional
	EmbeddingBaseURL string `toml:"embedding_base_url,omitempty"`
	MaxTokens        int    `toml:"max_tokens,omitempty"`
}

// ModelEnv maps each HARK_MODEL_* variable to its field.
var ModelEnv = []struct {
	Var, Field string
	set        func(*Model, string)
}{
	{"HARK_MODEL_PROVIDER", "provider", func(m *Model, v string) { m.Provider = v }},
	{"HARK_MODEL_BASE_URL", "base_url", func(m *Model, v string) { m.BaseURL = v }},
	{"HARK_MODEL_API_KEY", "api_key", func(m *Model, v string) { m.APIKey = v; m.APIKeyCommand = "" }},
	{"HARK_MODEL_API_KEY_COMMAND", "api_key_command", func(m *Model, v string) { m.APIKeyCommand = v; m.APIKey = "" }},
	{"HARK_MODEL_CHAT", "chat", func(m *Model, v string) { m.Chat = v }},
	{"HARK_MODEL_EMBEDDING", "embedding", func(m *Model, v string) { m.Embedding = v }},
	{"HARK_MODEL_EMBEDDING_BASE_URL", "embedding_base_url", func(m *Model, v string) { m.EmbeddingBaseURL = v }},
	{"HARK_MODEL_MAX_TOKENS", "max_tokens", func(m *Model, v string) {
		n, err := strconv.Atoi(v)
		if err != nil {
			n = -1 // Validate names the field
		}
		m.MaxTokens = n
	}},
}

// WithEnv is m with the HARK_MODEL_* variables that are set applied.
func (m Model) WithEnv(getenv func(string) string) Model {
	for _, e := range ModelEnv {
		if v := getenv(e.Var); v != "" {
			e.set(&m, v)
		}
	}
	return m
}

// Configured reports whether a model is asked for at all.
func (m Model) Configured() bool { return m != Model{} }

// Validate checks what the section alone can say is wrong; the model
// client checks the rest of its settings when it is built
// (embedded.ModelClient, with model.Config.Validate's rules).
func (m Model) Validate() error {
	if m.APIKey != "" && m.APIKeyCommand != "" {
		return errors.New("invalid model.api_key_command: give api_key or api_key_command, not both")
	}
	if m.MaxTokens < 0 {
		return fmt.Errorf("invalid model.max_tokens %d: must be 0 (the default) or more", m.MaxTokens)
	}
	return nil
}

// Settings are the model's fields as `hark config` shows them, the key
// masked (its last four characters, for a key of 12 or more).
func (m Model) Settings() [][2]string {
	if !m.Configured() {
		return [][2]string{{"model", "(none: research is extractive)"}}
	}
	key := "(not set)"
	switch {
	case m.APIKeyCommand != "":
		key = "(from api_key_command)"
	case m.APIKey != "":
		key = MaskKey(m.APIKey)
	}
	out := [][2]string{
		{"model.provider", m.Provider},
		{"model.base_url", m.BaseURL},
		{"model.api_key", key},
		{"model.chat", m.Chat},
	}
	if m.Embedding != "" {
		out = append(out, [2]string{"model.embedding", m.Embedding})
		if m.EmbeddingBaseURL != "" {
			out = append(out, [2]string{"model.embedding_base_url", m.EmbeddingBaseURL})
		}
	}
	return out
}

// MaskKey is a key as a screen may show it: its last four characters
// for a key of 12 or more, else nothing of it.
func MaskKey(k string) string {
	if len(k) >= 12 {
		return "****" + k[len(k)-4:]
	}
	return "****"
}

// ModelOf reads only the [model] section of the gateway.toml at path, for
// the embedded gateway, which takes nothing else from it. A missing file
// is no model.
func ModelOf(path string) (Model, error) {
	var c struct {
		Model Model `toml:"model"`
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return Model{}, nil
	}
	if _, err := toml.DecodeFile(path, &c); err != nil {
		return Model{}, fmt.Errorf("gateway config %s: %w", path, err)
	}
	return c.Model, nil
}
