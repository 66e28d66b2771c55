package config

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// hashKey is auth.HashKey, which this package's tests cannot import
// (auth reads the config).
func hashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

func TestWriteNewConfigRoundTrip(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "hark", File)
	key := "hark_" + strings.Repeat("5e", 32)
	if err := WriteNew(path, hashKey(key)); err != nil {
		t.Fatal(err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v, %v", st.Mode(), err)
	}
	raw, _ := os.ReadFile(path)
	if strings.Contains(string(raw), key) || !strings.Contains(string(raw), hashKey(key)) {
		t.Fatal("the config must hold the key's hash, never the key")
	}
	c, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Listen != DefaultListen || time.Duration(c.Limits.ResearchWait) != 5*time.Minute || c.Workspaces[0].Search.Backend != BackendLocal {
		t.Fatalf("config %+v", c)
	}
	if err := WriteNew(path, hashKey(key)); err == nil {
		t.Fatal("WriteNew overwrote an existing file")
	}
}

func TestLoadErrors(t *testing.T) {
	t.Parallel()
	h := hashKey("k")
	for name, c := range map[string]struct{ toml, want string }{
		"unknown key": {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\nrate=3\n", "unknown keys: workspace.rate"},
		"bad hash":    {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"abc\"]\n", `workspace "a".api_key_sha256[0]: must be 64 hex digits`},
		"dup key":     {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n[[workspace]]\nname=\"b\"\napi_key_sha256=[\"" + h + "\"]\n", `already used by workspace "a"`},
		"backend":     {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n[workspace.search]\nbackend=\"bing\"\n", "search.backend: must be local, searxng or tavily"},
		"duration":    {"[limits]\nresearch_wait=\"soon\"\n[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n", "research_wait"},
		"rate":        {"[[workspace]]\nname=\"a\"\nrate_burst=-1\n", `workspace "a".rate_per_second, rate_burst: must not be negative`},
		"period":      {"[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\nquota_period=\"week\"\n", "quota_period: must be day or month"},
		"ops token":   {"[ops]\ntoken_sha256=\"abc\"\n[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n", "ops.token_sha256: must be 64 hex digits"},
		"ops key":     {"[ops]\ntoken_sha256=\"" + h + "\"\n[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n", `ops.token_sha256: is the hash of an API key of workspace "a"`},
		"ops listen":  {"listen=\"127.0.0.1:1\"\n[ops]\nlisten=\"127.0.0.1:1\"\n[[workspace]]\nname=\"a\"\napi_key_sha256=[\"" + h + "\"]\n", "ops.listen: must not be the gateway's own listen address"},
	} {
		path := filepath.Join(t.TempDir(), "g.toml")
		os.WriteFile(path, []byte(c.toml), 0o600)
		_, err := Load(path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", name, err, c.want)
		}
	}
}

// database_url in gateway.toml is a postgres:// URL or empty.
func TestDatabaseURL(t *testing.T) {
	t.Parallel()
	cfg := &Config{Workspaces: []Workspace{LocalWorkspace(hashKey("k"))}}
	for u, ok := range map[string]bool{"": true, "postgres://h/db": true, "postgresql://h/db": true, "sqlite:gateway.db": false, "h:5432": false} {
		cfg.DatabaseURL = u
		err := cfg.Validate()
		if ok != (err == nil) || (err != nil && !strings.Contains(err.Error(), "database_url: must be a postgres://")) {
			t.Errorf("database_url %q: %v", u, err)
		}
	}
}

// Workspaces and their keys may live in the database alone: a file may
// declare none, and a workspace of it no key.
func TestWorkspacesWithoutKeys(t *testing.T) {
	t.Parallel()
	for _, body := range []string{``, "[[workspace]]\nname=\"a\"\ncredit_quota=5\n"} {
		path := filepath.Join(t.TempDir(), "g.toml")
		os.WriteFile(path, []byte(body), 0o600)
		if _, err := Load(path); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}
