package embedded

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os/exec"
	"strings"
	"time"

	"hark/gateway/config"
	"hark/gateway/model"
)

// ModelClient builds the client of gateway.toml's [model] (with the
// HARK_MODEL_* variables already applied), running api_key_command for
// the key; nil, nil when no model is configured. Its errors name the
// field and the rule, never the key.
func ModelClient(ctx context.Context, m config.Model, log *slog.Logger) (*model.Client, error) {
	if !m.Configured() {
		return nil, nil
	}
	if err := m.Validate(); err != nil {
		return nil, err
	}
	key := m.APIKey
	if m.APIKeyCommand != "" {
		var err error
		if key, err = runKeyCommand(ctx, m.APIKeyCommand); err != nil {
			return nil, fmt.Errorf("model.api_key_command: %w", err)
		}
	}
	return model.New(model.Config{Provider: m.Provider, BaseURL: m.BaseURL, APIKey: key, Chat: m.Chat,
		Embedding: m.Embedding, EmbeddingURL: m.EmbeddingBaseURL, MaxTokens: m.MaxTokens, Log: log})
}

// runKeyCommand runs a key command with sh and returns its first line.
// Its output never appears in an error.
func runKeyCommand(ctx context.Context, command string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var out bytes.Buffer
	cmd.Stdout = &out
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("the command failed (%v)", err)
	}
	key, _, _ := strings.Cut(out.String(), "\n")
	if key = strings.TrimSpace(key); key == "" {
		return "", errors.New("the command printed no key")
	}
	return key, nil
}
