// Package embedded runs hark's gateway in-process with the local engines:
// on 127.0.0.1, on an ephemeral port, with a key made for this run. hark
// uses it when no gateway is configured, and tests anywhere in the tree
// use it to talk to a real gateway over real HTTP and WebSocket. It wires
// engines to the gateway and does nothing else.
package embedded

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"hark/api"
	"hark/gateway"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/jobs"
	"hark/gateway/model"
	"hark/gateway/research"
	"hark/gateway/research/doc"
	"hark/gateway/store"
	"hark/gateway/text/lexicon"
	"hark/gateway/voice"
	"hark/gateway/voice/relay"
	"hark/gateway/watch"
	"hark/gateway/web"
)

// LogFile is where the embedded gateway logs, inside the data directory
// (the TUI owns the terminal).
const LogFile = "gateway.log"

// Options tune Start. The zero value is what hark uses.
type Options struct {
	// AllowPrivate lets the local web engine fetch private and loopback
	// addresses (tests that serve pages on 127.0.0.1 need it).
	AllowPrivate bool
	// Limits overrides the gateway's limits; zero fields keep defaults.
	Limits config.Limits
	// Logger replaces the log file in the data directory.
	Logger *slog.Logger
	// Trace, when set, is told of the engines' one-time work as it ends
	// ("voice catalogue listed", "web engine opened"), for hark's start-up
	// log. It must be quick and safe for concurrent use.
	Trace func(event string)
	// Model, when set, writes research answers (docs/model.md).
	Model *model.Client
	// Voices are voice providers the workspace has beside vendor_speech
	// (gateway.toml's [voice.<code>], config.VoicesOf).
	Voices map[string]config.Voice
	// WatchTiming shortens the watches' loop and sets their clock
	// (tests that need a check to fall due in the background).
	WatchTiming gateway.WatchTiming
}

// Local is a data directory opened once: its database, the log and the
// local engines over them. The gateway it serves and hark's own index
// commands (`hark index`, the TUI's Index pane) share it, so that the
// database has one owner in the process and one web engine writes the
// index.
type Local struct {
	dataDir string
	opts    Options
	db      *sql.DB
	log     *slog.Logger
	eng     *Engines

	closeOnce sync.Once
	closers   []io.Closer
}

// Open opens dataDir's database and log and readies the local engines,
// which start when first used.
func Open(dataDir string, opts Options) (*Local, error) {
	db, err := store.OpenDB(dataDir)
	if err != nil {
		return nil, err
	}
	l := &Local{dataDir: dataDir, opts: opts, db: db, closers: []io.Closer{db}}
	l.log = opts.Logger
	if l.log == nil {
		f, err := os.OpenFile(filepath.Join(dataDir, LogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
		if err != nil {
			l.Close()
			return nil, fmt.Errorf("embedded gateway log: %w", err)
		}
		l.closers = append(l.closers, f)
		l.log = slog.New(slog.NewJSONHandler(f, nil))
	}
	l.eng = NewEngines(db, opts.AllowPrivate, l.log)
	// hark's own gateway lives as long as a TUI that may never listen:
	// the recogniser (about 90 MB) loads when first asked for.
	l.eng.VoiceWarmAfter = voice.WarmOnDemand
	l.eng.Trace = opts.Trace
	l.eng.Recognisers = opts.Limits.STTRecognisers
	if opts.Model != nil {
		l.eng.Writer = opts.Model
	}
	l.closers = append(l.closers, l.eng)
	return l, nil
}

// Web is the local web engine, the one the gateway's tools use, opened on
// first use: what it indexes, search finds at once.
func (l *Local) Web() (*web.Engine, error) {
	w, _, err := l.eng.localWeb()
	return w, err
}

// Close closes the engines, then the log and the database. Stop the
// gateways served from l first. It is safe to call more than once.
func (l *Local) Close() error {
	var errs []error
	l.closeOnce.Do(func() {
		for i := len(l.closers) - 1; i >= 0; i-- {
			errs = append(errs, l.closers[i].Close())
		}
	})
	return errors.Join(errs...)
}

// Gateway is a running embedded gateway.
type Gateway struct {
	URL    string // http://127.0.0.1:port
	APIKey string // valid for this run only; never print it
	Server *gateway.Server

	local *Local
	stop  sync.Once
	done  func()
}

// Web is the running gateway's local web engine (Local.Web).
func (g *Gateway) Web() (*web.Engine, error) { return g.local.Web() }

// Stop shuts the gateway down (in-flight streams get 5 seconds), and,
// when Start opened its Local, closes its engines and database. It is
// safe to call more than once.
func (g *Gateway) Stop() { g.stop.Do(g.done) }

// Start opens dataDir (Open) and serves the gateway over it (Serve); Stop
// closes both.
func Start(ctx context.Context, dataDir string, opts Options) (*Gateway, error) {
	l, err := Open(dataDir, opts)
	if err != nil {
		return nil, err
	}
	g, err := l.Serve()
	if err != nil {
		l.Close()
		return nil, err
	}
	stop := g.done
	g.done = func() { stop(); l.Close() }
	return g, nil
}

// The embedded gateway's admission queue: long and patient, since every
// call in it is the one user's.
const (
	embeddedQueueWait   = 30 * time.Second
	embeddedQueueLength = 64
)

// Serve runs the gateway with one workspace, "local", using l's engines,
// with a key made for this run. Its Stop leaves l open.
func (l *Local) Serve() (*Gateway, error) {
	key, err := auth.NewAPIKey()
	if err != nil {
		return nil, err
	}
	limits := l.opts.Limits
	// One person's own calls queue rather than shed: the TUI's first
	// calls all wait while the web engine opens, and refusing them after
	// hark serve's 20 ms would show an error for the user's own burst.
	if limits.QueueWait == 0 {
		limits.QueueWait = config.Duration(embeddedQueueWait)
	}
	if limits.QueueLength == 0 {
		limits.QueueLength = embeddedQueueLength
	}
	ws := config.LocalWorkspace(auth.HashKey(key))
	for code, v := range l.opts.Voices {
		if code != config.ProviderLocal {
			ws.Voice[code] = v
		}
	}
	cfg := &config.Config{Limits: limits, Workspaces: []config.Workspace{ws}}
	// The job workers start at the first job call: most commands run
	// none (a detached job left in gateway.db resumes when hark jobs,
	// the TUI or a research or crawl asks).
	srv, err := gateway.New(gateway.Options{Config: cfg, DB: store.FromSQLite(l.db), Engines: l.eng.Gateway(), Logger: l.log, LazyJobs: true, AllowPrivate: l.opts.AllowPrivate, WatchTiming: l.opts.WatchTiming})
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("embedded gateway: %w", err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil {
			l.log.Error("embedded gateway stopped", "error", err)
		}
	}()
	g := &Gateway{URL: "http://" + ln.Addr().String(), APIKey: key, Server: srv, local: l}
	g.done = func() {
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		<-served
	}
	return g, nil
}

// Engines builds the engines a gateway config asks for, sharing one local
// web engine and one local voice provider across workspaces, and closes
// them at the end.
type Engines struct {
	db           *sql.DB
	allowPrivate bool
	log          *slog.Logger
	// VoiceWarmAfter is the local voice engine's voice.Config.WarmAfter
	// (zero: its default, warm a second after the first voice call).
	VoiceWarmAfter time.Duration
	// Trace is Options.Trace; set it before Gateway is called.
	Trace func(event string)
	// Recognisers is the local recogniser count (Limits.STTRecognisers;
	// zero: one per core).
	Recognisers int
	// Postgres, when set before Gateway is called, holds the local web
	// engine's search index (web.Config.Postgres): the index a team's
	// replicas share. Research tasks stay in db.
	Postgres *store.DB
	// Writer, when set before Gateway is called, writes research answers
	// from the passages research selects (docs/model.md); nil keeps
	// research extractive. With an embedding model it is also the web
	// index's embedder (hybrid search).
	Writer *model.Client

	mu       sync.Mutex
	web      *web.Engine
	research *research.Engine
	voice    *voice.Local
	voiceErr error
}

// UserAgent is the local web engine's: hark's own name, as hark index
// always sent (docs/web.md).
var UserAgent = "hark/" + api.Version + " (+local web engine)"

// NewEngines returns engines that keep their data in db.
func NewEngines(db *sql.DB, allowPrivate bool, log *slog.Logger) *Engines {
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	lexicon.SetLogger(log) // research's vocabulary says there what it is missing
	return &Engines{db: db, allowPrivate: allowPrivate, log: log}
}

func (e *Engines) localWeb() (*web.Engine, *research.Engine, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.web == nil {
		// Each page is stored with research's reading of it, which
		// research then need not work out at every question.
		wc := web.Config{DB: e.db, Postgres: e.Postgres, AllowPrivate: e.allowPrivate, UserAgent: UserAgent, Parse: doc.Parse}
		if e.Writer != nil && e.Writer.Embeds() {
			// Its vectors, once hark index stored them, fuse with the
			// full-text rank in search and research (docs/model.md).
			wc.Embedder = e.Writer
		}
		w, err := web.New(wc)
		if err != nil {
			return nil, nil, err
		}
		cfg := research.Config{DB: e.db, Index: w}
		if e.Writer != nil {
			cfg.Writer = e.Writer
		}
		r, err := research.New(cfg)
		if err != nil {
			w.Close()
			return nil, nil, err
		}
		e.web, e.research = w, r
		e.trace("web engine opened")
	}
	return e.web, e.research, nil
}

func (e *Engines) trace(event string) {
	if e.Trace != nil {
		e.Trace(event)
	}
}

func (e *Engines) localVoice() (*voice.Local, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.voice == nil && e.voiceErr == nil {
		e.voice, e.voiceErr = voice.New(voice.Config{WarmAfter: e.VoiceWarmAfter, Trace: e.Trace, Decoders: e.Recognisers})
	}
	return e.voice, e.voiceErr
}

// Gateway is how the gateway turns its config into these engines.
func (e *Engines) Gateway() gateway.Engines {
	return gateway.Engines{
		Web: func(ws string, c config.Search) (engine.Web, error) {
			bc := web.BackendConfig{Kind: c.Backend, URL: c.URL, APIKey: c.APIKey}
			if c.Backend == config.BackendTavily {
				return web.NewBackend(bc, nil)
			}
			// Check the backend's settings now, so a mistake stops the
			// start; the local engine opens when a tool is first called.
			if c.Backend == config.BackendSearXNG {
				if _, err := web.NewBackend(bc, nil); err != nil {
					return engine.Web{}, err
				}
			}
			return lazyWeb(func() (engine.Web, error) {
				local, r, err := e.localWeb()
				if err != nil {
					return engine.Web{}, fmt.Errorf("local web engine: %w: %v", engine.ErrUnavailable, err)
				}
				w, err := web.NewBackend(bc, local)
				if err == nil && w.Research == nil {
					// Research searches the local index, or the backend's
					// search (SearXNG), and reads with the local fetcher.
					w.Research = r
					if w.Search != engine.Searcher(local) {
						w.Research = r.Via(w.Search)
					}
				}
				return w, err
			}), nil
		},
		Voice: func(ws, provider string, c config.Voice) (engine.VoiceProvider, error) {
			switch c.EngineOf(provider) {
			case config.EngineOpenAI, config.EngineElevenLabs:
				// A vendor's speech, relayed; the key stays in the
				// request header (gateway/voice/relay).
				return relay.New(relay.Config{Engine: c.EngineOf(provider), URL: c.URL, APIKey: c.APIKey,
					Model: c.Model, STTModel: c.STTModel, Voices: c.Voices, Lame: voice.FindLame()})
			case config.BackendLocal:
			default:
				e.log.Warn("voice engine not in this build", "workspace", ws, "provider", provider, "engine", c.Engine)
				return nil, nil
			}
			v, err := e.localVoice()
			if err != nil {
				// The gateway still starts; calls say why voice is missing.
				e.log.Warn("local voice engine unavailable", "error", err)
				return unavailableVoice{err}, nil
			}
			return v, nil
		},
	}
}

// Close closes the engines built.
func (e *Engines) Close() error {
	e.mu.Lock()
	defer e.mu.Unlock()
	var errs []error
	if e.research != nil {
		errs = append(errs, e.research.Close())
	}
	if e.web != nil {
		errs = append(errs, e.web.Close())
	}
	if e.voice != nil {
		errs = append(errs, e.voice.Close())
	}
	return errors.Join(errs...)
}

// unavailableVoice answers every call with the reason the local voice
// engine could not start (e.g. espeak-ng is not installed).
type unavailableVoice struct{ err error }

func (u unavailableVoice) fail() error {
	return fmt.Errorf("local voice engine: %w: %v", engine.ErrUnavailable, u.err)
}

func (u unavailableVoice) Voices(context.Context) ([]api.Voice, error) { return nil, u.fail() }

func (u unavailableVoice) Synthesize(context.Context, api.TTSRequest, engine.AudioSink) (engine.Synthesis, error) {
	return engine.Synthesis{}, u.fail()
}

func (u unavailableVoice) Recognize(context.Context, api.STTRequest, io.Reader, func(engine.Transcript) error) error {
	return u.fail()
}

// lazyWeb is a workspace's five web tools, built by build when one is first
// called: the local engine's index schema, its ranking and the sweep of
// research tasks an earlier process left running (research.New) then run once,
// before that call reads anything, instead of at every start of hark. A
// build that fails is tried again by the next call.
func lazyWeb(build func() (engine.Web, error)) engine.Web {
	l := &lazyTools{build: build}
	return engine.Web{Search: lazySearch{l}, Extract: lazyExtract{l}, Crawl: lazyCrawl{l}, Map: lazyMap{l}, Research: lazyResearch{l}}
}

type lazyTools struct {
	build func() (engine.Web, error)
	mu    sync.Mutex
	built *engine.Web
}

func (l *lazyTools) get() (engine.Web, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.built == nil {
		w, err := l.build()
		if err != nil {
			return engine.Web{}, err
		}
		l.built = &w
	}
	return *l.built, nil
}

// unavailableTool is the error of a tool the built backend lacks (none of
// hark's backends lacks one when it has a local engine).
func unavailableTool(name string) error {
	return fmt.Errorf("%s: %w in this workspace", name, engine.ErrUnavailable)
}

type (
	lazySearch   struct{ *lazyTools }
	lazyExtract  struct{ *lazyTools }
	lazyCrawl    struct{ *lazyTools }
	lazyMap      struct{ *lazyTools }
	lazyResearch struct{ *lazyTools }
)

// Recheck reads a watched page again through the built backend's
// extractor, when it can (the local web engine can).
func (l lazyExtract) Recheck(ctx context.Context, url, etag, lastModified string) (*engine.Rechecked, error) {
	w, err := l.get()
	if err != nil {
		return nil, err
	}
	rc, ok := w.Extract.(engine.Rechecker)
	if !ok {
		return nil, fmt.Errorf("recheck: %w in this workspace", engine.ErrUnavailable)
	}
	return rc.Recheck(ctx, url, etag, lastModified)
}

func (l lazySearch) Search(ctx context.Context, in api.SearchInput) (*api.SearchOutput, error) {
	w, err := l.get()
	if err != nil {
		return nil, err
	}
	if w.Search == nil {
		return nil, unavailableTool("search")
	}
	return w.Search.Search(ctx, in)
}

func (l lazyExtract) Extract(ctx context.Context, in api.ExtractInput) (*api.ExtractOutput, error) {
	w, err := l.get()
	if err != nil {
		return nil, err
	}
	if w.Extract == nil {
		return nil, unavailableTool("extract")
	}
	return w.Extract.Extract(ctx, in)
}

func (l lazyCrawl) Crawl(ctx context.Context, in api.CrawlInput) (*api.CrawlOutput, error) {
	w, err := l.get()
	if err != nil {
		return nil, err
	}
	if w.Crawl == nil {
		return nil, unavailableTool("crawl")
	}
	return w.Crawl.Crawl(ctx, in)
}

func (l lazyMap) Map(ctx context.Context, in api.MapInput) (*api.MapOutput, error) {
	w, err := l.get()
	if err != nil {
		return nil, err
	}
	if w.Map == nil {
		return nil, unavailableTool("map")
	}
	return w.Map.Map(ctx, in)
}

func (l lazyResearch) Research(ctx context.Context, in api.ResearchInput) (*api.ResearchOutput, error) {
	w, err := l.get()
	if err != nil {
		return nil, err
	}
	if w.Research == nil {
		return nil, unavailableTool("research")
	}
	return w.Research.Research(ctx, in)
}

// Schemas are the tables a gateway keeps in db, each owner's: the
// gateway's own (usage, keys, the shared rate limiter), the jobs', the
// search index's and, in gateway.db, research's.
func Schemas(db *store.DB) []store.Schema {
	out := append(append([]store.Schema(nil), gateway.Schemas...), jobs.Schema, web.Schema, watch.Schema)
	if !db.Postgres() {
		out = append(out, research.Schema) // research runs beside gateway.db's index
	}
	return out
}

// Migrate brings every table of Schemas up to date, River's with the
// jobs' (`hark serve` does it before it starts, --migrate-only and the
// commands that open the database alone).
func Migrate(ctx context.Context, db *store.DB) error {
	if err := jobs.Migrate(ctx, db); err != nil {
		return err
	}
	return store.Migrate(ctx, db, Schemas(db)...)
}
