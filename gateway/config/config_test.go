package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"hark/gateway/auth"
)

func TestWriteNewConfigRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hark", File)
	key, err := auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	if err := WriteNew(path, auth.HashKey(key)); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), key) || !strings.Contains(string(raw), auth.HashKey(key)) {
		t.Fatal("the config must hold the key's hash, never the key")
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen || time.Duration(c.Limits.ResearchWait) != 5*time.Minute || c.Workspaces[0].Search.Backend != BackendLocal {
		t.Fatalf("config %+v", c)
	}
	if err := WriteNew(path, auth.HashKey(key)); err == nil {
		t.Fatal("WriteNew overwrote an existing file")
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	h := auth.HashKey("k")
	for name, c := range map[string]struct{ toml, want string }{
		"no workspace": {``, "no [[workspace]]"},
		"unknown key":  {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\nrate=3\n", "unknown keys: workspace.rate"},
		"bad hash":     {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"abc\"]\n", `workspace "a".api_key_sha256[0]: must be 64 hex digits`},
		"no keys":      {"[[workspace]]\nname=\"a\"\n", "at least one key hash is required"},
		"dup key":      {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n[[workspace]]\nname=\"b\"\napi_key_sha256=[\"" + h + "\"]\n", `already used by workspace "a"`},
		"backend":      {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n[workspace.search]\nbackend=\"bing\"\n", "search.backend: must be local, searxng or tavily"},
		"duration":     {"[limits]\nresearch_wait=\"soon\"\n[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n", "research_wait"},
		"period":       {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\nquota_period=\"week\"\n", "quota_period: must be day or month"},
	} {
		path := filepath.Join(t.TempDir(), "g.toml")
		os.WriteFile(path, []byte(c.toml), 0o600)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}
