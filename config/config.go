// Package config works out hark's settings: command-line flags, then the
// HARK_* environment, then the config file's profile, then defaults. It
// never prints or logs the API key; use Mask for anything shown to people.
package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/BurntSushi/toml"
)

// Environment variables hark reads.
const (
	EnvBaseURL = "HARK_BASE_URL"
	// EnvFallbackURLs holds the gateway's other addresses, comma-separated
	// (fallback_urls).
	EnvFallbackURLs = "HARK_FALLBACK_URLS"
	EnvAPIKey       = "HARK_API_KEY"
	EnvProfile      = "HARK_PROFILE"
	EnvProvider     = "HARK_PROVIDER"
	EnvVoice        = "HARK_VOICE"
	EnvOutputDir    = "HARK_OUTPUT_DIR"
	EnvDataDir      = "HARK_DATA_DIR"
	EnvAudioSink    = "HARK_AUDIO_SINK"
	// EnvAllowPrivate lets the embedded gateway fetch private, loopback
	// and link-local addresses (an intranet, a docs server on localhost).
	EnvAllowPrivate = "HARK_ALLOW_PRIVATE"
	// EnvLibrary set to 0 or false turns the library off.
	EnvLibrary = "HARK_LIBRARY"
	EnvConfig  = "HARK_CONFIG" // path of the config file
	// EnvZoteroURL is where Zotero's connector server answers.
	EnvZoteroURL = "HARK_ZOTERO_URL"
	EnvLogLevel  = "HARK_LOG_LEVEL"
)

// Defaults.
const (
	DefaultProfile   = "default"
	DefaultProvider  = "vendor_speech"
	DefaultAudioSink = "auto"
	DefaultLogLevel  = "info"
	// DefaultZoteroURL is Zotero's connector server, as its browser
	// connector reaches it.
	DefaultZoteroURL = "http://127.0.0.1:23119"
)

// LogLevels are the accepted log_level values; debug adds the start-up
// phases and each gateway call to hark.log.
var LogLevels = []string{"debug", "info", "warn", "error"}

// AudioSinks are the accepted audio_sink values.
var AudioSinks = []string{"auto", "device", "file", "null"}

// Flags are settings given on the command line; "" means not given.
type Flags struct {
	ConfigFile string
	Profile    string
	BaseURL    string
	APIKey     string
	Provider   string
	Voice      string
	OutputDir  string
	DataDir    string
	AudioSink  string
}

// Config is the effective settings.
type Config struct {
	// Profile is the selected profile's name.
	Profile string
	// BaseURL is the gateway; "" means run the embedded gateway.
	BaseURL string
	// FallbackURLs are the same gateway's other addresses (its other
	// replicas), tried in turn when BaseURL stops answering.
	FallbackURLs []string
	// APIKey is secret: never print it, use MaskedKey. When the key comes
	// from api_key_command it is "" and Key runs the command on first use.
	APIKey string
	// KeyCommandStderr receives api_key_command's stderr (default
	// os.Stderr, where a password manager may prompt); the TUI, which owns
	// the terminal, sends it to its log. Set it before the first Key call.
	KeyCommandStderr io.Writer
	// keyCmd is api_key_command, run once by Key; nil for other sources.
	keyCmd   *keyCommand
	Provider string
	Voice    string
	// OutputDir is where saved audio and exports go (default: the
	// "output" folder of DataDir).
	OutputDir string
	// DataDir holds the embedded gateway's database and caches.
	DataDir   string
	AudioSink string
	// LogLevel is the least level written to hark.log (one of LogLevels).
	LogLevel string
	// AllowPrivate lets the embedded gateway's web engine read private,
	// loopback and link-local addresses. Off by default: a page on the
	// internet must not be able to steer the crawler into the local network.
	AllowPrivate bool
	// Library keeps every result in the library (library.db in DataDir);
	// on by default.
	Library bool
	// ZoteroURL is Zotero's connector server, where highlights are
	// exported to Zotero (DefaultZoteroURL).
	ZoteroURL string
	// File is the config file read ("" when there was none).
	File string
	// Sources says where each setting came from: "flag", "env HARK_...",
	// "file (profile x)", "command (profile x)" or "default".
	Sources map[string]string
	// Warnings are problems worth telling the user that do not stop hark,
	// e.g. a key-holding config file others can read.
	Warnings []string
}

// MaskedKey is the API key as it may be shown. A key from
// api_key_command is read first (hark config shows whether it works).
func (c *Config) MaskedKey() string {
	k, err := c.Key(context.Background())
	if err != nil {
		return "(" + err.Error() + ")"
	}
	return Mask(k)
}

// PlayedDir is where audio played with no sound device (the file sink)
// is kept: a bounded cache of the newest PlayedKeep files, pruned as new
// ones are written. A file worth keeping is saved elsewhere with w.
func (c *Config) PlayedDir() string { return filepath.Join(c.DataDir, "played") }

// PlayedKeep is how many played files PlayedDir keeps.
const PlayedKeep = 20

// Mask hides a secret, keeping only enough to tell keys apart: the last
// four characters of a key of 12 or more, nothing of a shorter one.
func Mask(key string) string {
	switch {
	case key == "":
		return "(not set)"
	case len(key) < 12:
		return "****"
	default:
		return "****" + key[len(key)-4:]
	}
}

// Profile is one named profile of the config file. The top level of the
// file holds the same keys, which apply to every profile that does not set
// them.
type Profile struct {
	BaseURL       string   `toml:"base_url"`
	FallbackURLs  []string `toml:"fallback_urls"`
	APIKey        string   `toml:"api_key"`
	APIKeyCommand string   `toml:"api_key_command"`
	Provider      string   `toml:"provider"`
	Voice         string   `toml:"voice"`
	OutputDir     string   `toml:"output_dir"`
	DataDir       string   `toml:"data_dir"`
	AudioSink     string   `toml:"audio_sink"`
	LogLevel      string   `toml:"log_level"`
	AllowPrivate  *bool    `toml:"allow_private"`
	Library       *bool    `toml:"library"`
	ZoteroURL     string   `toml:"zotero_url"`
}

// File is the config file's shape.
type File struct {
	Profile
	// DefaultProfile selects the profile when neither --profile nor
	// HARK_PROFILE does.
	DefaultProfile string             `toml:"profile"`
	Profiles       map[string]Profile `toml:"profiles"`
}

// Path is the config file's location: $HARK_CONFIG, else
// $XDG_CONFIG_HOME/hark/config.toml, else ~/.config/hark/config.toml.
func Path(getenv func(string) string) string {
	if p := getenv(EnvConfig); p != "" {
		return p
	}
	if x := getenv("XDG_CONFIG_HOME"); x != "" {
		return filepath.Join(x, "hark", "config.toml")
	}
	return filepath.Join(home(getenv), ".config", "hark", "config.toml")
}

// DataDir is the default data directory: $XDG_DATA_HOME/hark, else
// ~/.local/share/hark.
func DataDir() string { return dataDir(os.Getenv) }

func dataDir(getenv func(string) string) string {
	if x := getenv("XDG_DATA_HOME"); x != "" {
		return filepath.Join(x, "hark")
	}
	return filepath.Join(home(getenv), ".local", "share", "hark")
}

func home(getenv func(string) string) string {
	if h := getenv("HOME"); h != "" {
		return h
	}
	if h, err := os.UserHomeDir(); err == nil {
		return h
	}
	return "."
}

// Load reads the settings from flags, the process environment and the
// config file.
func Load(ctx context.Context, f Flags) (*Config, error) { return LoadWith(ctx, f, os.Getenv) }

// LoadWith is Load with the environment given as a function (for tests).
func LoadWith(ctx context.Context, f Flags, getenv func(string) string) (*Config, error) {
	c := &Config{Sources: map[string]string{}}
	path := f.ConfigFile
	explicit := path != ""
	if path == "" {
		path = Path(getenv)
		explicit = getenv(EnvConfig) != ""
	}
	var file File
	raw, err := os.ReadFile(path)
	switch {
	case err == nil:
		c.File = path
		md, err := toml.Decode(string(raw), &file)
		if err != nil {
			return nil, fmt.Errorf("config file %s: %v", path, err)
		}
		if und := md.Undecoded(); len(und) > 0 {
			keys := make([]string, len(und))
			for i, k := range und {
				keys[i] = k.String()
			}
			c.Warnings = append(c.Warnings, fmt.Sprintf("config file %s: unknown keys ignored: %s", path, strings.Join(keys, ", ")))
		}
		if w := permissionWarning(path, &file); w != "" {
			c.Warnings = append(c.Warnings, w)
		}
	case errors.Is(err, os.ErrNotExist) && !explicit:
	default:
		return nil, fmt.Errorf("config file: %v", err)
	}

	// The profile.
	c.Profile, c.Sources["profile"] = pick(
		src{f.Profile, "flag"}, src{getenv(EnvProfile), "env " + EnvProfile},
		src{file.DefaultProfile, "file"}, src{DefaultProfile, "default"})
	prof, ok := file.Profiles[c.Profile]
	if !ok && c.Profile != DefaultProfile {
		have := make([]string, 0, len(file.Profiles))
		for k := range file.Profiles {
			have = append(have, k)
		}
		sort.Strings(have)
		where := path
		if c.File == "" {
			where = path + " (which does not exist)"
		}
		if len(have) == 0 {
			return nil, fmt.Errorf("profile %q: not found in %s", c.Profile, where)
		}
		return nil, fmt.Errorf("profile %q: not found in %s (profiles: %s)", c.Profile, where, strings.Join(have, ", "))
	}
	fileSrc := fmt.Sprintf("file (profile %s)", c.Profile)
	fileVal := func(p, top string) src {
		if p != "" {
			return src{p, fileSrc}
		}
		return src{top, "file"}
	}

	c.BaseURL, c.Sources["base_url"] = pick(src{f.BaseURL, "flag"}, src{getenv(EnvBaseURL), "env " + EnvBaseURL},
		fileVal(prof.BaseURL, file.BaseURL), src{"", "default"})
	switch {
	case getenv(EnvFallbackURLs) != "":
		for _, u := range strings.Split(getenv(EnvFallbackURLs), ",") {
			if u = strings.TrimSpace(u); u != "" {
				c.FallbackURLs = append(c.FallbackURLs, u)
			}
		}
		c.Sources["fallback_urls"] = "env " + EnvFallbackURLs
	case len(prof.FallbackURLs) > 0:
		c.FallbackURLs, c.Sources["fallback_urls"] = prof.FallbackURLs, fileSrc
	case len(file.FallbackURLs) > 0:
		c.FallbackURLs, c.Sources["fallback_urls"] = file.FallbackURLs, "file"
	}
	c.Provider, c.Sources["provider"] = pick(src{f.Provider, "flag"}, src{getenv(EnvProvider), "env " + EnvProvider},
		fileVal(prof.Provider, file.Provider), src{DefaultProvider, "default"})
	c.Voice, c.Sources["voice"] = pick(src{f.Voice, "flag"}, src{getenv(EnvVoice), "env " + EnvVoice},
		fileVal(prof.Voice, file.Voice), src{"", "default"})
	c.DataDir, c.Sources["data_dir"] = pick(src{f.DataDir, "flag"}, src{getenv(EnvDataDir), "env " + EnvDataDir},
		fileVal(prof.DataDir, file.DataDir), src{dataDir(getenv), "default"})
	c.DataDir = expandHome(c.DataDir, getenv)
	// Saved audio and exports go under the data directory unless asked
	// otherwise, never into whatever directory hark was started in.
	c.OutputDir, c.Sources["output_dir"] = pick(src{f.OutputDir, "flag"}, src{getenv(EnvOutputDir), "env " + EnvOutputDir},
		fileVal(prof.OutputDir, file.OutputDir), src{filepath.Join(c.DataDir, "output"), "default"})
	c.AudioSink, c.Sources["audio_sink"] = pick(src{f.AudioSink, "flag"}, src{getenv(EnvAudioSink), "env " + EnvAudioSink},
		fileVal(prof.AudioSink, file.AudioSink), src{DefaultAudioSink, "default"})
	c.LogLevel, c.Sources["log_level"] = pick(src{getenv(EnvLogLevel), "env " + EnvLogLevel},
		fileVal(prof.LogLevel, file.LogLevel), src{DefaultLogLevel, "default"})
	c.LogLevel = strings.ToLower(c.LogLevel)
	c.ZoteroURL, c.Sources["zotero_url"] = pick(src{getenv(EnvZoteroURL), "env " + EnvZoteroURL},
		fileVal(prof.ZoteroURL, file.ZoteroURL), src{DefaultZoteroURL, "default"})

	// boolean settings: env, the profile's, the top level's, the default.
	boolean := func(key, env string, prof, top *bool, def bool) (bool, error) {
		switch v := strings.TrimSpace(getenv(env)); {
		case v != "":
			b, err := strconv.ParseBool(v)
			if err != nil {
				return false, fmt.Errorf("%s %q (from env %s): must be true or false (or 1 or 0)", key, v, env)
			}
			c.Sources[key] = "env " + env
			return b, nil
		case prof != nil:
			c.Sources[key] = fileSrc
			return *prof, nil
		case top != nil:
			c.Sources[key] = "file"
			return *top, nil
		}
		c.Sources[key] = "default"
		return def, nil
	}

	if c.AllowPrivate, err = boolean("allow_private", EnvAllowPrivate, prof.AllowPrivate, file.AllowPrivate, false); err != nil {
		return nil, err
	}
	if c.Library, err = boolean("library", EnvLibrary, prof.Library, file.Library, true); err != nil {
		return nil, err
	}

	// The key: flag, env, the profile's key or command, the top level's.
	switch {
	case f.APIKey != "":
		c.APIKey, c.Sources["api_key"] = f.APIKey, "flag"
	case getenv(EnvAPIKey) != "":
		c.APIKey, c.Sources["api_key"] = getenv(EnvAPIKey), "env "+EnvAPIKey
	case prof.APIKey != "":
		c.APIKey, c.Sources["api_key"] = prof.APIKey, fileSrc
	case prof.APIKeyCommand != "":
		// Run on first use, not here: the TUI's first frame must not wait
		// for a password manager.
		c.keyCmd = newKeyCommand(prof.APIKeyCommand, fmt.Sprintf("profile %s: api_key_command", c.Profile))
		c.Sources["api_key"] = fmt.Sprintf("api_key_command (profile %s)", c.Profile)
	case file.APIKey != "":
		c.APIKey, c.Sources["api_key"] = file.APIKey, "file"
	case file.APIKeyCommand != "":
		c.keyCmd = newKeyCommand(file.APIKeyCommand, "api_key_command")
		c.Sources["api_key"] = "api_key_command"
	default:
		c.Sources["api_key"] = "not set"
	}

	c.OutputDir = expandHome(c.OutputDir, getenv)
	if err := c.Validate(); err != nil {
		return nil, err
	}
	return c, nil
}

// Validate checks the settings' rules.
func (c *Config) Validate() error {
	if c.BaseURL != "" {
		u, err := url.Parse(c.BaseURL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("base_url %q (from %s): must be an http:// or https:// URL with a host, or empty for the embedded gateway", c.BaseURL, c.Sources["base_url"])
		}
		if u.User != nil {
			return fmt.Errorf("base_url (from %s): must not carry credentials; set api_key instead", c.Sources["base_url"])
		}
	}
	for _, f := range c.FallbackURLs {
		u, err := url.Parse(f)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			return fmt.Errorf("fallback_urls (from %s): %q must be an http:// or https:// URL with a host and no credentials", c.Sources["fallback_urls"], f)
		}
	}
	if len(c.FallbackURLs) > 0 && c.BaseURL == "" {
		return fmt.Errorf("fallback_urls (from %s): are other addresses of the gateway of base_url, which is empty (the embedded gateway)", c.Sources["fallback_urls"])
	}
	ok := false
	for _, s := range AudioSinks {
		if c.AudioSink == s {
			ok = true
		}
	}
	if !ok {
		return fmt.Errorf("audio_sink %q (from %s): must be one of %s", c.AudioSink, c.Sources["audio_sink"], strings.Join(AudioSinks, ", "))
	}
	if !slices.Contains(LogLevels, c.LogLevel) {
		return fmt.Errorf("log_level %q (from %s): must be one of %s", c.LogLevel, c.Sources["log_level"], strings.Join(LogLevels, ", "))
	}
	if strings.ContainsAny(c.APIKey, "\r\n\x00") {
		return fmt.Errorf("api_key (from %s): must not contain line breaks", c.Sources["api_key"])
	}
	if c.Provider == "" {
		return errors.New("provider: must not be empty")
	}
	if c.ZoteroURL != "" {
		u, err := url.Parse(c.ZoteroURL)
		if err != nil || u.Scheme != "http" || u.Host == "" || u.User != nil {
			return fmt.Errorf("zotero_url %q (from %s): must be an http:// URL with a host (Zotero's connector listens on %s)", c.ZoteroURL, c.Sources["zotero_url"], DefaultZoteroURL)
		}
	}
	return nil
}

type src struct{ val, from string }

func pick(srcs ...src) (string, string) {
	for _, s := range srcs {
		if strings.TrimSpace(s.val) != "" {
			return strings.TrimSpace(s.val), s.from
		}
	}
	last := srcs[len(srcs)-1]
	return last.val, last.from
}

func expandHome(p string, getenv func(string) string) string {
	if p == "~" {
		return home(getenv)
	}
	if strings.HasPrefix(p, "~/") {
		return filepath.Join(home(getenv), p[2:])
	}
	return p
}

// holdsKey reports whether the file stores a key itself (a command does
// not count: the file then holds no secret).
func (f *File) holdsKey() bool {
	if f.APIKey != "" {
		return true
	}
	for _, p := range f.Profiles {
		if p.APIKey != "" {
			return true
		}
	}
	return false
}

func permissionWarning(path string, f *File) string {
	if !f.holdsKey() {
		return ""
	}
	st, err := os.Stat(path)
	if err != nil {
		return ""
	}
	if mode := st.Mode().Perm(); mode&0o077 != 0 {
		return fmt.Sprintf("config file %s holds an API key and can be read by other users (mode %04o); run: chmod 600 %s", path, mode, path)
	}
	return ""
}

// keyCommandTimeout bounds api_key_command.
const keyCommandTimeout = 15 * time.Second

// keyCommand is api_key_command, run at most once per process.
type keyCommand struct {
	command string
	setting string // how errors name it: "profile work: api_key_command"

	once sync.Once
	done chan struct{} // closed when the command has ended
	key  string
	err  error
}

func newKeyCommand(command, setting string) *keyCommand {
	return &keyCommand{command: command, setting: setting, done: make(chan struct{})}
}

// HasKey reports whether the settings name a key, given or from a command.
func (c *Config) HasKey() bool { return c.APIKey != "" || c.keyCmd != nil }

// KeyFromCommand reports whether the key comes from api_key_command.
func (c *Config) KeyFromCommand() bool { return c.keyCmd != nil }

// Key returns the API key. A key from api_key_command is read by running
// the command the first time Key is called; every later call, concurrent
// ones included, gets that run's result. The command runs to its own
// time limit even when ctx ends (a later call may still want the key);
// Key itself returns when ctx ends. Errors name the setting, never the key.
func (c *Config) Key(ctx context.Context) (string, error) {
	k := c.keyCmd
	if k == nil {
		return c.APIKey, nil
	}
	k.once.Do(func() {
		stderr := c.KeyCommandStderr
		if stderr == nil {
			stderr = os.Stderr
		}
		go func() {
			defer close(k.done)
			key, err := runKeyCommand(k.command, stderr)
			if err == nil && strings.ContainsAny(key, "\r\x00") {
				err = errors.New("printed a line with a carriage return or NUL byte; the key must be plain text")
			}
			if err != nil {
				err = fmt.Errorf("%s: %v", k.setting, err)
			}
			k.key, k.err = key, err
		}()
	})
	select {
	case <-k.done:
		return k.key, k.err
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// KnownKey is the key when it is known without running anything: the
// given key, or api_key_command's once it has run ("" before). It is for
// hiding the key in text about to be shown.
func (c *Config) KnownKey() string {
	k := c.keyCmd
	if k == nil {
		return c.APIKey
	}
	select {
	case <-k.done:
		return k.key
	default:
		return ""
	}
}

// runKeyCommand runs cmd with sh -c and returns its first output line. Its
// output never appears in errors, since it may be the key.
func runKeyCommand(command string, stderr io.Writer) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), keyCommandTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "sh", "-c", command)
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = stderr // a password manager may prompt there
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			return "", fmt.Errorf("did not finish within %v", keyCommandTimeout)
		}
		return "", fmt.Errorf("failed: %v", err)
	}
	line, _, _ := strings.Cut(out.String(), "\n")
	key := strings.TrimSpace(line)
	if key == "" {
		return "", errors.New("printed nothing")
	}
	return key, nil
}

// Settings lists the effective settings as name/value pairs for display,
// the key masked.
func (c *Config) Settings() [][2]string {
	out := [][2]string{
		{"profile", c.Profile},
		{"base_url", orEmbedded(c.BaseURL)},
	}
	if len(c.FallbackURLs) > 0 {
		out = append(out, [2]string{"fallback_urls", strings.Join(c.FallbackURLs, ", ")})
	}
	return append(out, [][2]string{
		{"api_key", c.MaskedKey()},
		{"provider", c.Provider},
		{"voice", orFirstVoice(c.Voice)},
		{"output_dir", c.OutputDir},
		{"data_dir", c.DataDir},
		{"audio_sink", c.AudioSink},
		{"log_level", c.LogLevel},
		{"allow_private", strconv.FormatBool(c.AllowPrivate)},
		{"library", strconv.FormatBool(c.Library)},
		{"zotero_url", c.ZoteroURL},
	}...)
}

func orEmbedded(s string) string {
	if s == "" {
		return "(embedded gateway)"
	}
	return s
}

func orFirstVoice(s string) string {
	if s == "" {
		return "(chosen by your locale)"
	}
	return s
}
