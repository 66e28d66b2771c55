package embedded

import (
	"context"
	"strings"
	"testing"

	"hark/gateway/config"
	"hark/gateway/model"
	"hark/gateway/model/modeltest"
)

func TestModelClient(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	if c, err := ModelClient(ctx, config.Model{}, nil); c != nil || err != nil {
		t.Fatalf("no model: %v %v", c, err)
	}
	srv := modeltest.NewOpenAI(t)
	srv.Script(modeltest.Reply{Text: "ok [1]."})
	c, err := ModelClient(ctx, config.Model{Provider: "openai", BaseURL: srv.BaseURL(), Chat: modeltest.ChatModel,
		APIKeyCommand: "echo " + modeltest.Key}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if w, err := c.Write(ctx, modelPrompt(), nil); err != nil || w.Text != "ok [1]." {
		t.Fatalf("the key from api_key_command did not work: %q %v", w.Text, err)
	}
	_, err = ModelClient(ctx, config.Model{Provider: "openai", BaseURL: srv.BaseURL(), Chat: "m",
		APIKeyCommand: "echo sk-secret-output-1234; exit 3"}, nil)
	if err == nil || !strings.Contains(err.Error(), "model.api_key_command") || strings.Contains(err.Error(), "sk-secret") {
		t.Fatalf("failing command: %v", err)
	}
	_, err = ModelClient(ctx, config.Model{Provider: "openai", BaseURL: "localhost:11434", Chat: "m"}, nil)
	if err == nil || !strings.Contains(err.Error(), "invalid model.base_url") {
		t.Fatalf("bad base_url: %v", err)
	}
}

func modelPrompt() model.Prompt { return model.Prompt{System: "s", User: "u"} }
