package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestModelSection(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), File)
	if m, err := ModelOf(path); err != nil || m.Configured() {
		t.Fatalf("a missing file: %+v %v", m, err)
	}
	os.WriteFile(path, []byte("[model]\nprovider = \"openai\"\nbase_url = \"http://localhost:11434/v1\"\nchat = \"llama3.1:8b\"\napi_key = \"sk-abcdefghijkl1234\"\n"), 0o600)
	m, err := ModelOf(path)
	if err != nil || m.Chat != "llama3.1:8b" {
		t.Fatalf("%+v %v", m, err)
	}
	env := map[string]string{"HARK_MODEL_CHAT": "qwen2.5", "HARK_MODEL_API_KEY_COMMAND": "pass show llm"}
	m = m.WithEnv(func(k string) string { return env[k] })
	if m.Chat != "qwen2.5" || m.APIKey != "" || m.APIKeyCommand != "pass show llm" {
		t.Fatalf("env not applied: %+v", m)
	}
	shown := ""
	for _, kv := range (Model{Provider: "openai", Chat: "m", APIKey: "sk-abcdefghijkl1234"}).Settings() {
		shown += kv[0] + "=" + kv[1] + "\n"
	}
	if strings.Contains(shown, "abcdefgh") || !strings.Contains(shown, "model.api_key=****1234") {
		t.Fatalf("settings:\n%s", shown)
	}
	if err := (Model{APIKey: "a", APIKeyCommand: "b"}).Validate(); err == nil || !strings.Contains(err.Error(), "model.api_key_command") {
		t.Fatalf("both keys: %v", err)
	}
	if err := (Model{}).WithEnv(func(k string) string {
		if k == "HARK_MODEL_MAX_TOKENS" {
			return "lots"
		}
		return ""
	}).Validate(); err == nil || !strings.Contains(err.Error(), "model.max_tokens") {
		t.Fatalf("max_tokens: %v", err)
	}
}
