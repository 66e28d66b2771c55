package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func env(m map[string]string) func(string) string {
	return func(k string) string { return m[k] }
}

func writeFile(t *testing.T, dir, body string, mode os.FileMode) string {
	t.Helper()
	p := filepath.Join(dir, "hark", "config.toml")
	os.MkdirAll(filepath.Dir(p), 0o700)
	if err := os.WriteFile(p, []byte(body), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(p, mode)
	return p
}

const sample = `
provider = "vendor_speech"
output_dir = "~/audio"

[profiles.default]
base_url = "http://127.0.0.1:8080"
api_key = "sk-default-key-123456"
voice = "alice"

[profiles.work]
base_url = "https://gw.example.com"
api_key_command = "echo sk-from-command-999999"
audio_sink = "file"
`

func TestPrecedence(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, sample, 0o600)
	base := map[string]string{"XDG_CONFIG_HOME": dir, "HOME": "/home/u", "XDG_DATA_HOME": "/data"}
	ctx := context.Background()

	c, err := LoadWith(ctx, Flags{}, env(base))
	if err != nil {
		t.Fatal(err)
	}
	if c.Profile != "default" || c.BaseURL != "http://127.0.0.1:8080" || c.APIKey != "sk-default-key-123456" || c.Voice != "alice" {
		t.Errorf("file: %+v", c)
	}
	if c.OutputDir != "/home/u/audio" || c.DataDir != "/data/hark" || c.AudioSink != "auto" || c.Provider != "vendor_speech" {
		t.Errorf("defaults: %+v", c)
	}
	if c.Sources["base_url"] != "file (profile default)" || c.Sources["provider"] != "file" || c.Sources["audio_sink"] != "default" {
		t.Errorf("sources: %v", c.Sources)
	}
	if len(c.Warnings) != 0 {
		t.Errorf("warnings: %v", c.Warnings)
	}

	e := map[string]string{EnvBaseURL: "http://env:1", EnvAPIKey: "sk-env-key-abcdef", EnvVoice: "bo", EnvAudioSink: "null", EnvDataDir: "/d2"}
	for k, v := range base {
		e[k] = v
	}
	c, err = LoadWith(ctx, Flags{}, env(e))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://env:1" || c.APIKey != "sk-env-key-abcdef" || c.Voice != "bo" || c.AudioSink != "null" || c.DataDir != "/d2" || c.Sources["api_key"] != "env HARK_API_KEY" {
		t.Errorf("env: %+v", c)
	}
	c, err = LoadWith(ctx, Flags{BaseURL: "http://flag:2", APIKey: "sk-flag-key-000000", Voice: "v3", AudioSink: "device"}, env(e))
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "http://flag:2" || c.APIKey != "sk-flag-key-000000" || c.Voice != "v3" || c.AudioSink != "device" || c.Sources["base_url"] != "flag" {
		t.Errorf("flags: %+v", c)
	}
}

func TestProfilesAndKeyCommand(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, sample, 0o600)
	ctx := context.Background()
	c, err := LoadWith(ctx, Flags{}, env(map[string]string{"XDG_CONFIG_HOME": dir, EnvProfile: "work"}))
	if err != nil {
		t.Fatal(err)
	}
	if k, err := c.Key(ctx); c.Profile != "work" || c.BaseURL != "https://gw.example.com" || k != "sk-from-command-999999" || err != nil || c.AudioSink != "file" || c.Voice != "" {
		t.Errorf("work: %+v (key error %v)", c, err)
	}
	_, err = LoadWith(ctx, Flags{Profile: "nope"}, env(map[string]string{"XDG_CONFIG_HOME": dir}))
	if err == nil || !strings.Contains(err.Error(), `profile "nope": not found`) || !strings.Contains(err.Error(), "default, work") {
		t.Errorf("unknown profile: %v", err)
	}
	writeFile(t, dir, "[profiles.x]\napi_key_command = \"echo sk-secret-output; exit 3\"\n", 0o600)
	c, err = LoadWith(ctx, Flags{Profile: "x"}, env(map[string]string{"XDG_CONFIG_HOME": dir}))
	if err != nil {
		t.Fatalf("a failing command fails the first use of the key, not the settings: %v", err)
	}
	_, err = c.Key(ctx)
	if err == nil || !strings.Contains(err.Error(), "profile x: api_key_command: failed: exit status 3") || strings.Contains(err.Error(), "sk-secret-output") {
		t.Errorf("failing command: %v", err)
	}
	if m := c.MaskedKey(); !strings.Contains(m, "api_key_command") || strings.Contains(m, "sk-secret-output") {
		t.Errorf("masked key of a failing command: %q", m)
	}
}

// api_key_command runs on the key's first use, not while the settings
// load (the TUI draws before it ends), once for all callers, concurrent
// ones included; a caller that stops waiting does not stop it.
func TestKeyCommandRunsOnceOnFirstUse(t *testing.T) {
	dir := t.TempDir()
	runs, gate := filepath.Join(dir, "runs"), filepath.Join(dir, "gate")
	cmd := fmt.Sprintf("echo run >> %s; while [ ! -e %s ]; do sleep 0.01; done; echo sk-lazy-key-0123456789", runs, gate)
	writeFile(t, dir, fmt.Sprintf("api_key_command = %q\n", cmd), 0o600)
	var stderr bytes.Buffer
	c, err := LoadWith(context.Background(), Flags{}, env(map[string]string{"XDG_CONFIG_HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	c.KeyCommandStderr = &stderr
	if _, err := os.Stat(runs); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("the command ran while the settings loaded (%v)", err)
	}
	if !c.HasKey() || !c.KeyFromCommand() || c.KnownKey() != "" {
		t.Fatalf("before first use: has key %v, from command %v, known %q", c.HasKey(), c.KeyFromCommand(), c.KnownKey())
	}
	short, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := c.Key(short); !errors.Is(err, context.Canceled) {
		t.Fatalf("Key with an ended context: %v", err)
	}
	var wg sync.WaitGroup
	keys := make([]string, 4)
	for i := range keys {
		wg.Add(1)
		go func() {
			defer wg.Done()
			keys[i], _ = c.Key(context.Background())
		}()
	}
	os.WriteFile(gate, nil, 0o600)
	wg.Wait()
	for _, k := range keys {
		if k != "sk-lazy-key-0123456789" {
			t.Errorf("keys %q", keys)
			break
		}
	}
	if b, _ := os.ReadFile(runs); string(b) != "run\n" {
		t.Errorf("the command ran %d times, want once", strings.Count(string(b), "run"))
	}
	if c.KnownKey() != "sk-lazy-key-0123456789" || c.MaskedKey() != "****6789" {
		t.Errorf("after the run: known %q, masked %q", c.KnownKey(), c.MaskedKey())
	}
}

func TestWarnsOnReadableKeyFile(t *testing.T) {
	dir := t.TempDir()
	p := writeFile(t, dir, sample, 0o644)
	c, err := LoadWith(context.Background(), Flags{}, env(map[string]string{"XDG_CONFIG_HOME": dir}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "chmod 600 "+p) || strings.Contains(c.Warnings[0], c.APIKey) {
		t.Errorf("warnings = %v", c.Warnings)
	}
	// A file with only a key command holds no secret.
	writeFile(t, dir, "api_key_command = \"echo k-123456789012\"\n", 0o644)
	c, err = LoadWith(context.Background(), Flags{}, env(map[string]string{"XDG_CONFIG_HOME": dir}))
	if k, _ := c.Key(context.Background()); err != nil || len(c.Warnings) != 0 || k != "k-123456789012" {
		t.Errorf("command-only: %v %v", c.Warnings, err)
	}
}

func TestValidation(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct{ body, want string }{
		{`base_url = "ftp://x"`, "base_url \"ftp://x\" (from file)"},
		{`audio_sink = "speaker"`, "audio_sink \"speaker\" (from file): must be one of auto, device, file, null"},
		{`base_url = `, "config file"},
		{`base_url = "http://u:p@h"`, "must not carry credentials"},
		{`log_level = "loud"`, "log_level \"loud\" (from file): must be one of debug, info, warn, error"},
	} {
		writeFile(t, dir, tc.body, 0o600)
		_, err := LoadWith(context.Background(), Flags{}, env(map[string]string{"XDG_CONFIG_HOME": dir}))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: %v, want %q", tc.body, err, tc.want)
		}
		if err != nil && strings.Contains(err.Error(), "u:p") && !strings.Contains(tc.want, "credentials") {
			t.Errorf("leaks userinfo: %v", err)
		}
	}
	writeFile(t, dir, "colour = \"red\"\n", 0o600)
	c, err := LoadWith(context.Background(), Flags{}, env(map[string]string{"XDG_CONFIG_HOME": dir}))
	if err != nil || len(c.Warnings) != 1 || !strings.Contains(c.Warnings[0], "colour") {
		t.Errorf("unknown key: %v %v", c, err)
	}
	// An explicit config file that does not exist is an error; the
	// default one is optional.
	if _, err := LoadWith(context.Background(), Flags{ConfigFile: filepath.Join(dir, "missing.toml")}, env(nil)); err == nil {
		t.Error("missing explicit file accepted")
	}
	c, err = LoadWith(context.Background(), Flags{}, env(map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": "/h"}))
	if err != nil || c.File != "" || c.BaseURL != "" || c.DataDir != "/h/.local/share/hark" {
		t.Errorf("no file: %+v %v", c, err)
	}
	// Saved audio and exports default to the data directory, never the
	// directory hark was started in; played audio is a cache beside it.
	if c.OutputDir != "/h/.local/share/hark/output" || c.Sources["output_dir"] != "default" || c.PlayedDir() != "/h/.local/share/hark/played" {
		t.Errorf("output_dir %q (%s), played %q", c.OutputDir, c.Sources["output_dir"], c.PlayedDir())
	}
	c, _ = LoadWith(context.Background(), Flags{}, env(map[string]string{"XDG_CONFIG_HOME": t.TempDir(), "HOME": "/h", EnvDataDir: "~/d"}))
	if c.OutputDir != "/h/d/output" {
		t.Errorf("output_dir %q with %s=~/d", c.OutputDir, EnvDataDir)
	}
}

func TestMask(t *testing.T) {
	if Mask("") != "(not set)" || Mask("short") != "****" || Mask("sk-abcdefgh1234") != "****1234" {
		t.Error(Mask("sk-abcdefgh1234"))
	}
	c := &Config{APIKey: "sk-abcdefgh1234"}
	for _, kv := range c.Settings() {
		if strings.Contains(kv[1], "abcdefgh") {
			t.Errorf("%s shows the key", kv[0])
		}
	}
}

// TestAllowPrivate: off by default; the file's top level, a profile and the
// environment turn it on or off in that order of precedence; a value that
// is not a boolean names the setting and the rule.
func TestAllowPrivate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	base := map[string]string{"XDG_CONFIG_HOME": dir, "HOME": "/home/u"}
	load := func(file string, extra map[string]string) (*Config, error) {
		writeFile(t, dir, file, 0o600)
		e := map[string]string{}
		for k, v := range base {
			e[k] = v
		}
		for k, v := range extra {
			e[k] = v
		}
		return LoadWith(ctx, Flags{}, env(e))
	}
	cases := []struct {
		file string
		env  map[string]string
		want bool
		from string
	}{
		{"", nil, false, "default"},
		{"allow_private = true\n", nil, true, "file"},
		{"allow_private = true\n[profiles.default]\nallow_private = false\n", nil, false, "file (profile default)"},
		{"allow_private = false\n", map[string]string{EnvAllowPrivate: "1"}, true, "env " + EnvAllowPrivate},
		{"allow_private = true\n", map[string]string{EnvAllowPrivate: "false"}, false, "env " + EnvAllowPrivate},
	}
	for _, tc := range cases {
		c, err := load(tc.file, tc.env)
		if err != nil {
			t.Fatalf("%q %v: %v", tc.file, tc.env, err)
		}
		if c.AllowPrivate != tc.want || c.Sources["allow_private"] != tc.from {
			t.Errorf("%q %v: allow_private %v from %q, want %v from %q", tc.file, tc.env, c.AllowPrivate, c.Sources["allow_private"], tc.want, tc.from)
		}
	}
	// The library: on unless turned off by the file or HARK_LIBRARY.
	for _, tc := range []struct {
		file string
		env  map[string]string
		want bool
		from string
	}{
		{"", nil, true, "default"},
		{"library = false\n", nil, false, "file"},
		{"library = false\n", map[string]string{EnvLibrary: "1"}, true, "env " + EnvLibrary},
		{"", map[string]string{EnvLibrary: "0"}, false, "env " + EnvLibrary},
	} {
		c, err := load(tc.file, tc.env)
		if err != nil || c.Library != tc.want || c.Sources["library"] != tc.from {
			t.Errorf("%q %v: library %v from %q (%v), want %v from %q", tc.file, tc.env, c != nil && c.Library, c.Sources["library"], err, tc.want, tc.from)
		}
	}
	if _, err := load("", map[string]string{EnvLibrary: "nah"}); err == nil || !strings.Contains(err.Error(), `library "nah" (from env HARK_LIBRARY)`) {
		t.Errorf("bad library value: %v", err)
	}
	_, err := load("", map[string]string{EnvAllowPrivate: "sometimes"})
	if err == nil || !strings.Contains(err.Error(), `allow_private "sometimes" (from env HARK_ALLOW_PRIVATE): must be true or false`) {
		t.Fatalf("bad value: %v", err)
	}
}
