// Package config is gateway.toml: the gateway's workspaces, their search
// and voice backends, quotas and limits, with their defaults and their
// validation. It reads and checks settings; it opens no database, starts
// nothing and makes no key (gateway/auth does).
package config

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
)

// File is the gateway config's file name under $XDG_CONFIG_HOME/hark.
const File = "gateway.toml"

// DefaultListen is where `hark serve` listens unless told otherwise.
const DefaultListen = "127.0.0.1:8787"

// Search backends a workspace may name.
const (
	BackendLocal   = "local"
	BackendSearXNG = "searxng"
	BackendTavily  = "tavily"
)

// Config is gateway.toml: the limits and the workspaces.
type Config struct {
	Listen  string `toml:"listen,omitempty"`
	DataDir string `toml:"data_dir,omitempty"`
	// DatabaseURL, a postgres:// URL, puts the usage ledger and credit
	// quotas in PostgreSQL, shared by replicas; empty keeps them in
	// gateway.db (see docs/deploy.md for what runs where today).
	DatabaseURL string      `toml:"database_url,omitempty"`
	Limits      Limits      `toml:"limits,omitempty"`
	Ops         Ops         `toml:"ops,omitempty"`
	Workspaces  []Workspace `toml:"workspace,omitempty"`
	// Model is the language model that writes research answers; without
	// one, research is extractive (docs/model.md).
	Model Model `toml:"model,omitempty"`
	// Voice adds voice providers to the embedded gateway's one workspace
	// (hark and hark tui read it with VoicesOf); hark serve's workspaces
	// each declare their own under [workspace.voice.<code>].
	Voice map[string]Voice `toml:"voice,omitempty"`
}

// VoicesOf reads only the [voice.<code>] sections of the gateway.toml at
// path, for the embedded gateway, checked. A missing file adds none.
// vendor_speech is the embedded gateway's own and cannot be replaced.
func VoicesOf(path string) (map[string]Voice, error) {
	var c struct {
		Voice map[string]Voice `toml:"voice"`
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if _, err := toml.DecodeFile(path, &c); err != nil {
		return nil, fmt.Errorf("gateway config %s: %w", path, err)
	}
	for name, v := range c.Voice {
		if name == ProviderLocal {
			return nil, fmt.Errorf("gateway config %s: voice.%s: is the local engines' own; list other providers", path, name)
		}
		if err := v.check(name); err != nil {
			return nil, fmt.Errorf("gateway config %s: %w", path, err)
		}
	}
	return c.Voice, nil
}

// Ops is where an operator's tools reach a gateway: /healthz (open on the
// gateway's address), /readyz and /metrics (docs/gateway.md, *Operating*).
type Ops struct {
	// Listen is a second address serving /healthz, /readyz and /metrics
	// to whoever reaches it, for a private network or loopback; empty
	// serves none.
	Listen string `toml:"listen,omitempty"`
	// TokenSHA256 is the hex SHA-256 of a token that opens /readyz and
	// /metrics on the gateway's own address (Authorization: Bearer);
	// empty keeps them off it.
	TokenSHA256 string `toml:"token_sha256,omitempty"`
}

// Workspace declares one workspace: who may call it (API key hashes),
// its credit quota, its search backend and its voice providers.
type Workspace struct {
	Name string `toml:"name"`
	// APIKeySHA256 holds the hex SHA-256 of each API key. Keys themselves
	// are never stored. It may be empty: keys can live in the database
	// alone (hark serve keys add).
	APIKeySHA256 []string `toml:"api_key_sha256"`
	// CreditQuota is the credits the workspace may spend per QuotaPeriod;
	// 0 means unlimited.
	CreditQuota int64  `toml:"credit_quota,omitempty"`
	QuotaPeriod string `toml:"quota_period,omitempty"` // "day" or "month" (default)
	// RatePerSecond and RateBurst are the workspace's keys' rate limit;
	// 0 takes [limits]'.
	RatePerSecond float64 `toml:"rate_per_second,omitempty"`
	RateBurst     int     `toml:"rate_burst,omitempty"`
	// Search is the backend of the vendor_search service. Without one, every
	// search tool answers 三方服务凭证未配置.
	Search *Search `toml:"search,omitempty"`
	// Voice maps a provider code (vendor_speech) to its settings.
	Voice map[string]Voice `toml:"voice,omitempty"`
}

// Search is a workspace's search backend and its credentials.
type Search struct {
	Backend string `toml:"backend,omitempty"` // local, searxng or tavily
	URL     string `toml:"url,omitempty"`
	APIKey  string `toml:"api_key,omitempty"`
}

// Voice is one voice provider of a workspace.
type Voice struct {
	Enabled bool `toml:"enabled"`
	// Engine is what speaks for the provider: local (no credentials),
	// openai (any OpenAI-compatible speech server) or elevenlabs. Empty
	// takes the provider code's own (EngineOf).
	Engine string `toml:"engine,omitempty"`
	URL    string `toml:"url,omitempty"`
	APIKey string `toml:"api_key,omitempty"`
	// Model and STTModel are the vendor's models for speech and for
	// recognition (openai: tts-1 and whisper-1; elevenlabs:
	// eleven_multilingual_v2 and scribe_v1 when empty).
	Model    string `toml:"model,omitempty"`
	STTModel string `toml:"stt_model,omitempty"`
	// Voices are the voice codes offered when the server has no voice
	// list of its own (an OpenAI-compatible server without
	// GET /audio/voices).
	Voices []string `toml:"voices,omitempty"`
}

// Voice provider codes and the engines behind them.
const (
	ProviderLocal      = "vendor_speech" // the local engines
	ProviderOpenAI     = "openai_speech" // an OpenAI-compatible speech server
	ProviderElevenLabs = "elevenlabs"

	EngineOpenAI     = "openai"
	EngineElevenLabs = "elevenlabs"
)

// EngineOf is the engine that speaks for provider: the one configured,
// else the provider code's own (openai_speech: openai, elevenlabs:
// elevenlabs, any other: local).
func (v Voice) EngineOf(provider string) string {
	if v.Engine != "" {
		return v.Engine
	}
	switch provider {
	case ProviderOpenAI:
		return EngineOpenAI
	case ProviderElevenLabs:
		return EngineElevenLabs
	}
	return BackendLocal
}

// Configured reports whether the provider has what it needs to run as
// provider: the local engine needs nothing, any other engine needs an
// API key (a server that takes none is given any word).
func (v Voice) Configured(provider string) bool {
	if v.EngineOf(provider) == BackendLocal {
		return true
	}
	return v.APIKey != ""
}

// Settings are the provider's fields as `hark config` shows them, under
// voice.<provider>, the key masked.
func (v Voice) Settings(provider string) [][2]string {
	key := "(not set)"
	if v.APIKey != "" {
		key = MaskKey(v.APIKey)
	}
	pre := "voice." + provider + "."
	out := [][2]string{{pre + "enabled", fmt.Sprint(v.Enabled)}, {pre + "engine", v.EngineOf(provider)}, {pre + "api_key", key}}
	if v.URL != "" {
		out = append(out, [2]string{pre + "url", v.URL})
	}
	if v.Model != "" {
		out = append(out, [2]string{pre + "model", v.Model})
	}
	return out
}

// check checks a voice provider's settings; its error names the field.
func (v Voice) check(provider string) error {
	field := "voice." + provider
	switch v.EngineOf(provider) {
	case BackendLocal, EngineOpenAI, EngineElevenLabs:
	default:
		return fmt.Errorf("%s.engine: must be local, openai or elevenlabs", field)
	}
	if v.URL != "" {
		u, err := url.Parse(v.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("%s.url: must be an absolute http(s) URL", field)
		}
		if u.User != nil {
			return fmt.Errorf("%s.url: must not hold credentials; put the key in api_key", field)
		}
	}
	for _, c := range v.Voices {
		if strings.TrimSpace(c) == "" {
			return fmt.Errorf("%s.voices: must not hold an empty code", field)
		}
	}
	return nil
}

// Duration is a time.Duration written as "90s" or "5m" in TOML.
type Duration time.Duration

// UnmarshalText parses a Go duration string.
func (d *Duration) UnmarshalText(b []byte) error {
	v, err := time.ParseDuration(string(b))
	if err != nil {
		return fmt.Errorf("duration %q: %w", b, err)
	}
	*d = Duration(v)
	return nil
}

// MarshalText writes the duration as a Go duration string.
func (d Duration) MarshalText() ([]byte, error) { return []byte(time.Duration(d).String()), nil }

// Limits are the bounds the spec leaves to the gateway. Zero fields take the
// defaults of DefaultLimits; docs/gateway.md lists every one.
type Limits struct {
	RatePerSecond       float64  `toml:"rate_per_second,omitempty"`
	RateBurst           int      `toml:"rate_burst,omitempty"`
	MaxBodyBytes        int64    `toml:"max_body_bytes,omitempty"`
	MaxTextChars        int      `toml:"max_text_chars,omitempty"`
	MaxStreamTextChars  int      `toml:"max_stream_text_chars,omitempty"`
	MaxAudioBytes       int      `toml:"max_audio_bytes,omitempty"`
	MaxStreamAudioBytes int64    `toml:"max_stream_audio_bytes,omitempty"`
	MaxFrameBytes       int64    `toml:"max_frame_bytes,omitempty"`
	UpstreamTimeout     Duration `toml:"upstream_timeout,omitempty"`
	ResearchWait        Duration `toml:"research_wait,omitempty"`
	StreamIdleTimeout   Duration `toml:"stream_idle_timeout,omitempty"`
	ShutdownGrace       Duration `toml:"shutdown_grace,omitempty"`
	// ReservationLease is how long a call's credit reservation stays
	// pending without its gateway renewing it; then any gateway on the
	// database refunds it (a gateway killed mid-call renews nothing).
	ReservationLease Duration `toml:"reservation_lease,omitempty"`

	// Admission: how many calls of each class run at once, how many more
	// may wait, and for how long, before the gateway answers 503.
	MaxInvoke   int      `toml:"max_invoke,omitempty"`   // vendor_search on the local index
	MaxFetch    int      `toml:"max_fetch,omitempty"`    // extract, crawl, map, remote search: waiting on the network
	MaxResearch int      `toml:"max_research,omitempty"` // vendor_research
	MaxVoice    int      `toml:"max_voice,omitempty"`    // REST TTS and STT
	MaxStreams  int      `toml:"max_streams,omitempty"`  // TTS and STT streams
	QueueLength int      `toml:"queue_length,omitempty"` // waiters per class at most
	QueueWait   Duration `toml:"queue_wait,omitempty"`   // wait budget: a call expected to wait longer is refused
	// The CPU's share of each class whose work is the CPU's: CPUSeats
	// calls of that work at once, shared by weight when contended.
	CPUSeats    int `toml:"cpu_seats,omitempty"`
	ShareSearch int `toml:"share_search,omitempty"`
	ShareTTS    int `toml:"share_tts,omitempty"`
	ShareSTT    int `toml:"share_stt,omitempty"`
	// MaxBodyMemory bounds the request bodies held in memory at once: a
	// body is read whole before its call is admitted.
	MaxBodyMemory  int64 `toml:"max_body_memory,omitempty"`
	StreamsPerKey  int   `toml:"streams_per_key,omitempty"` // open streams of one API key
	STTRecognisers int   `toml:"stt_recognisers,omitempty"` // local recognisers (about 90 MB each)

	// Connections: the phases of a request, and a cap per client address.
	HeaderTimeout     Duration `toml:"header_timeout,omitempty"`       // request line and headers
	BodyTimeout       Duration `toml:"body_timeout,omitempty"`         // a body's grace before its rate counts
	BodyMinRate       int64    `toml:"body_min_rate,omitempty"`        // bytes a second a body must keep up
	IdleTimeout       Duration `toml:"idle_timeout,omitempty"`         // keep-alive connection between requests
	MaxConnsPerClient int      `toml:"max_conns_per_client,omitempty"` // open connections of one address
	// MaxConns caps every open connection; 0 sizes it from the process's
	// descriptor limit, keeping headroom for the database and engines
	// (limits.FDHeadroom). A value above that size is lowered to it.
	MaxConns          int      `toml:"max_conns,omitempty"`
	UnauthIdleTimeout Duration `toml:"unauth_idle_timeout,omitempty"` // keep-alive of a connection no request of which authenticated
	MaxHeaderBytes    int      `toml:"max_header_bytes,omitempty"`    // request line and headers; then 431
	MaxDBConns        int      `toml:"max_db_conns,omitempty"`        // open SQLite connections
}

// DefaultLimits returns the limits used where the config is silent.
func DefaultLimits() Limits {
	return Limits{
		RatePerSecond:       10,
		RateBurst:           20,
		MaxBodyBytes:        16 << 20,
		MaxTextChars:        5000,
		MaxStreamTextChars:  100000,
		MaxAudioBytes:       10 << 20,
		MaxStreamAudioBytes: 64 << 20,
		MaxFrameBytes:       1 << 20,
		UpstreamTimeout:     Duration(90 * time.Second),
		ResearchWait:        Duration(5 * time.Minute),
		StreamIdleTimeout:   Duration(60 * time.Second),
		ShutdownGrace:       Duration(30 * time.Second),
		ReservationLease:    Duration(30 * time.Second),
		// Sized from the machine: a local search is CPU and SQLite work,
		// so one per core keeps the cores busy; more only slow each other
		// (measured with bench/load: 2 at once served 140-160/s with a p99
		// of 60-90 ms here, 4 at once 120-134/s and 130-160 ms).
		MaxInvoke:   runtime.NumCPU(),
		MaxFetch:    8 * runtime.NumCPU(),
		MaxResearch: max(2, runtime.NumCPU()),
		MaxVoice:    2 * runtime.NumCPU(),
		MaxStreams:  64,
		// The queue is sized by expected wait (docs/gateway.md, "Load,
		// admission"): a burst of 16 searches from one client waits about
		// 8 × 45 ms on 2 cores, well within half a second.
		QueueLength:       64 * runtime.NumCPU(),
		QueueWait:         Duration(500 * time.Millisecond),
		CPUSeats:          runtime.NumCPU(),
		ShareSearch:       2,
		ShareTTS:          1,
		ShareSTT:          1,
		MaxBodyMemory:     256 << 20,
		StreamsPerKey:     8,
		STTRecognisers:    runtime.NumCPU(),
		HeaderTimeout:     Duration(10 * time.Second),
		BodyTimeout:       Duration(10 * time.Second),
		BodyMinRate:       1024,
		IdleTimeout:       Duration(60 * time.Second),
		MaxConnsPerClient: 256,
		UnauthIdleTimeout: Duration(5 * time.Second),
		MaxHeaderBytes:    64 << 10,
		MaxDBConns:        4 * runtime.NumCPU(),
	}
}

// WithDefaults fills zero fields from DefaultLimits.
func (l Limits) WithDefaults() Limits {
	d := DefaultLimits()
	if l.RatePerSecond <= 0 {
		l.RatePerSecond = d.RatePerSecond
	}
	if l.RateBurst <= 0 {
		l.RateBurst = d.RateBurst
	}
	if l.MaxBodyBytes <= 0 {
		l.MaxBodyBytes = d.MaxBodyBytes
	}
	if l.MaxTextChars <= 0 {
		l.MaxTextChars = d.MaxTextChars
	}
	if l.MaxStreamTextChars <= 0 {
		l.MaxStreamTextChars = d.MaxStreamTextChars
	}
	if l.MaxAudioBytes <= 0 {
		l.MaxAudioBytes = d.MaxAudioBytes
	}
	if l.MaxStreamAudioBytes <= 0 {
		l.MaxStreamAudioBytes = d.MaxStreamAudioBytes
	}
	if l.MaxFrameBytes <= 0 {
		l.MaxFrameBytes = d.MaxFrameBytes
	}
	if l.UpstreamTimeout <= 0 {
		l.UpstreamTimeout = d.UpstreamTimeout
	}
	if l.ResearchWait <= 0 {
		l.ResearchWait = d.ResearchWait
	}
	if l.StreamIdleTimeout <= 0 {
		l.StreamIdleTimeout = d.StreamIdleTimeout
	}
	if l.ShutdownGrace <= 0 {
		l.ShutdownGrace = d.ShutdownGrace
	}
	if l.ReservationLease <= 0 {
		l.ReservationLease = d.ReservationLease
	}
	fill := func(v *int, def int) {
		if *v <= 0 {
			*v = def
		}
	}
	fill(&l.MaxInvoke, d.MaxInvoke)
	fill(&l.MaxFetch, d.MaxFetch)
	fill(&l.MaxResearch, d.MaxResearch)
	fill(&l.MaxVoice, d.MaxVoice)
	fill(&l.MaxStreams, d.MaxStreams)
	fill(&l.QueueLength, d.QueueLength)
	fill(&l.StreamsPerKey, d.StreamsPerKey)
	fill(&l.STTRecognisers, d.STTRecognisers)
	fill(&l.MaxConnsPerClient, d.MaxConnsPerClient)
	fill(&l.MaxDBConns, d.MaxDBConns)
	fill(&l.MaxHeaderBytes, d.MaxHeaderBytes)
	fill(&l.CPUSeats, d.CPUSeats)
	fill(&l.ShareSearch, d.ShareSearch)
	fill(&l.ShareTTS, d.ShareTTS)
	fill(&l.ShareSTT, d.ShareSTT)
	if l.MaxBodyMemory <= 0 {
		l.MaxBodyMemory = d.MaxBodyMemory
	}
	l.MaxBodyMemory = max(l.MaxBodyMemory, l.MaxBodyBytes) // one body of the largest size always fits
	for _, p := range []struct{ v, def *Duration }{
		{&l.QueueWait, &d.QueueWait}, {&l.HeaderTimeout, &d.HeaderTimeout},
		{&l.BodyTimeout, &d.BodyTimeout}, {&l.IdleTimeout, &d.IdleTimeout},
		{&l.UnauthIdleTimeout, &d.UnauthIdleTimeout},
	} {
		if *p.v <= 0 {
			*p.v = *p.def
		}
	}
	if l.BodyMinRate <= 0 {
		l.BodyMinRate = d.BodyMinRate
	}
	return l
}

// DefaultPath is $XDG_CONFIG_HOME/hark/gateway.toml (or the OS
// equivalent of the user config directory).
func DefaultPath() (string, error) { return PathFrom(os.Getenv) }

// PathFrom is DefaultPath with the environment read through getenv.
func PathFrom(getenv func(string) string) (string, error) {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		var err error
		if dir, err = os.UserConfigDir(); err != nil {
			return "", fmt.Errorf("gateway config path: %w", err)
		}
	}
	return filepath.Join(dir, "hark", File), nil
}

// Load reads and validates a gateway.toml. Unknown keys are an error
// that names them, so a typo does not silently disable a limit.
func Load(path string) (*Config, error) {
	var c Config
	md, err := toml.DecodeFile(path, &c)
	if err != nil {
		return nil, fmt.Errorf("gateway config %s: %w", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("gateway config %s: unknown keys: %s", path, strings.Join(keys, ", "))
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("gateway config %s: %w", path, err)
	}
	return &c, nil
}

// Validate checks the config and names the first wrong field.
// Workspaces may also live in the database alone (hark serve workspaces
// add), so a file may declare none.
func (c *Config) Validate() error {
	if len(c.Voice) > 0 {
		return errors.New("voice: the top-level [voice.<code>] sections are the embedded gateway's (hark, hark tui); declare a workspace's providers under [workspace.voice.<code>]")
	}
	if err := CheckDatabaseURL(c.DatabaseURL); err != nil {
		return fmt.Errorf("database_url: %w", err)
	}
	names := map[string]bool{}
	hashes := map[string]string{}
	for i, w := range c.Workspaces {
		where := fmt.Sprintf("workspace[%d]", i)
		if w.Name == "" {
			return fmt.Errorf("%s.name: is required", where)
		}
		where = fmt.Sprintf("workspace %q", w.Name)
		if names[w.Name] {
			return fmt.Errorf("%s: name is declared twice", where)
		}
		names[w.Name] = true
		for j, h := range w.APIKeySHA256 {
			b, err := hex.DecodeString(h)
			if err != nil || len(b) != sha256.Size {
				return fmt.Errorf("%s.api_key_sha256[%d]: must be 64 hex digits (the SHA-256 of the key)", where, j)
			}
			if other, dup := hashes[strings.ToLower(h)]; dup {
				return fmt.Errorf("%s.api_key_sha256[%d]: the same key is already used by workspace %q", where, j, other)
			}
			hashes[strings.ToLower(h)] = w.Name
		}
		if err := w.Check(); err != nil {
			return fmt.Errorf("%s.%w", where, err)
		}
	}
	if h := c.Ops.TokenSHA256; h != "" {
		if b, err := hex.DecodeString(h); err != nil || len(b) != sha256.Size {
			return errors.New("ops.token_sha256: must be 64 hex digits (the SHA-256 of the token)")
		}
		if other, dup := hashes[strings.ToLower(h)]; dup {
			return fmt.Errorf("ops.token_sha256: is the hash of an API key of workspace %q; the operator token must be a secret of its own", other)
		}
	}
	if c.Ops.Listen != "" && c.Ops.Listen == c.Listen {
		return errors.New("ops.listen: must not be the gateway's own listen address")
	}
	if err := c.Model.Validate(); err != nil {
		return err
	}
	l := c.Limits
	if l.RatePerSecond < 0 || l.RateBurst < 0 || l.MaxBodyBytes < 0 || l.MaxTextChars < 0 ||
		l.MaxStreamTextChars < 0 || l.MaxAudioBytes < 0 || l.MaxStreamAudioBytes < 0 || l.MaxFrameBytes < 0 ||
		l.UpstreamTimeout < 0 || l.ResearchWait < 0 || l.StreamIdleTimeout < 0 || l.ShutdownGrace < 0 ||
		l.MaxInvoke < 0 || l.MaxFetch < 0 || l.MaxResearch < 0 || l.MaxVoice < 0 || l.MaxStreams < 0 || l.QueueLength < 0 ||
		l.QueueWait < 0 || l.StreamsPerKey < 0 || l.STTRecognisers < 0 || l.HeaderTimeout < 0 ||
		l.BodyTimeout < 0 || l.BodyMinRate < 0 || l.IdleTimeout < 0 || l.MaxConnsPerClient < 0 || l.MaxDBConns < 0 ||
		l.MaxConns < 0 || l.UnauthIdleTimeout < 0 || l.MaxHeaderBytes < 0 ||
		l.CPUSeats < 0 || l.ShareSearch < 0 || l.ShareTTS < 0 || l.ShareSTT < 0 || l.MaxBodyMemory < 0 {
		return errors.New("limits: values must not be negative (0 means the default)")
	}
	if l.ReservationLease != 0 && time.Duration(l.ReservationLease) < time.Second {
		return errors.New("limits.reservation_lease: must be at least 1s (0 means the default, 30s)")
	}
	return nil
}

// Check checks a workspace's own settings (quota, period, rates, search
// backend); its error starts with the field's name.
func (w Workspace) Check() error {
	if w.CreditQuota < 0 {
		return errors.New("credit_quota: must be 0 (unlimited) or more")
	}
	switch w.QuotaPeriod {
	case "", "day", "month":
	default:
		return errors.New("quota_period: must be day or month")
	}
	if w.RatePerSecond < 0 || w.RateBurst < 0 {
		return errors.New("rate_per_second, rate_burst: must not be negative (0 takes [limits]')")
	}
	for name, v := range w.Voice {
		if err := v.check(name); err != nil {
			return err
		}
	}
	if s := w.Search; s != nil {
		switch s.Backend {
		case "", BackendLocal, BackendSearXNG, BackendTavily:
		default:
			return errors.New("search.backend: must be local, searxng or tavily")
		}
		if s.Backend == BackendSearXNG && s.URL == "" {
			return errors.New("search.url: is required for the searxng backend")
		}
	}
	return nil
}

// LocalWorkspace is a workspace named "local" that uses the local search and
// voice engines, reachable with the key whose hash is keyHash.
func LocalWorkspace(keyHash string) Workspace {
	return Workspace{
		Name:         "local",
		APIKeySHA256: []string{keyHash},
		Search:       &Search{Backend: BackendLocal},
		Voice: map[string]Voice{
			"vendor_speech": {Enabled: true, Engine: BackendLocal},
		},
	}
}

// WriteNew creates path (mode 0600, directory 0700) holding a config
// with one local workspace reachable with the key whose SHA-256 is
// keyHash (gateway/auth makes keys). It refuses to overwrite an existing
// file.
func WriteNew(path, keyHash string) error {
	lim := DefaultLimits()
	// Sizes taken from the machine stay unwritten (0), so that the file
	// still fits when it moves to a bigger one.
	lim.MaxInvoke, lim.MaxFetch, lim.MaxResearch, lim.MaxVoice, lim.QueueLength, lim.STTRecognisers, lim.MaxDBConns = 0, 0, 0, 0, 0, 0, 0
	lim.CPUSeats = 0
	c := Config{Listen: DefaultListen, Limits: lim, Workspaces: []Workspace{LocalWorkspace(keyHash)}}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("write gateway config: %w", err)
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("write gateway config: %w", err)
	}
	defer f.Close()
	fmt.Fprintln(f, "# hark gateway config: see docs/gateway.md. API keys are stored as SHA-256 hashes;")
	io.WriteString(f, "# add a key: printf '%s' \"$KEY\" | sha256sum\n")
	if err := toml.NewEncoder(f).Encode(c); err != nil {
		return fmt.Errorf("write gateway config: %w", err)
	}
	return f.Close()
}

// IsPostgresURL reports whether a database URL names PostgreSQL.
func IsPostgresURL(u string) bool {
	return strings.HasPrefix(u, "postgres://") || strings.HasPrefix(u, "postgresql://")
}

// CheckDatabaseURL accepts an empty URL (gateway.db) or a postgres:// one;
// its error never quotes the URL, which may hold a password.
func CheckDatabaseURL(u string) error {
	if u == "" || IsPostgresURL(u) {
		return nil
	}
	return errors.New("must be a postgres:// (or postgresql://) URL, or empty for the embedded SQLite gateway.db")
}
