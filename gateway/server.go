package gateway

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/jobs"
	"hark/gateway/limits"
	"hark/gateway/store"
	"hark/gateway/usage"
	"hark/gateway/watch"
	"hark/gateway/workspaces"
)

// Engines builds a workspace's engines from its config. The gateway itself
// knows no engine; the hark command wires the local ones and the
// pass-through backends in here, tests wire their own.
type Engines struct {
	// Web returns the web tools of a workspace whose search backend is
	// configured. A nil member of the result marks that tool unavailable.
	Web func(workspace string, c config.Search) (engine.Web, error)
	// Voice returns the engine of an enabled, configured voice provider.
	Voice func(workspace, provider string, c config.Voice) (engine.VoiceProvider, error)
}

// OutageTiming shortens the database outage's summaries and pings for
// tests; zero keeps store.Monitor's defaults.
type OutageTiming struct{ FirstSummary, PingEvery time.Duration }

// Options are what New needs.
type Options struct {
	Config *config.Config
	// DB is the database the gateway keeps what replicas share in:
	// gateway.db (store.FromSQLite of store.OpenDB's), or a team's
	// PostgreSQL (store.OpenPostgres). New migrates the gateway's tables
	// (Schemas); the caller closes it after Shutdown.
	DB      *store.DB
	Engines Engines
	// Logger receives one line per request and per stream, each with its
	// trace_id. Nil discards.
	Logger *slog.Logger
	// JobTiming shortens the jobs' heartbeat (tests); zero: defaults.
	JobTiming JobTiming
	// OutageTiming shortens the database outage's summaries and pings
	// (tests); zero: defaults (store.Monitor).
	OutageTiming OutageTiming
	// WatchTiming shortens the watches' loop and sets their clock
	// (tests); zero: defaults.
	WatchTiming WatchTiming
	// LazyJobs starts the job workers at the first job call instead of
	// in New (the embedded gateway: a command that runs no job pays
	// nothing for them).
	LazyJobs bool
	// Now is the clock of the rate limiter and quota periods; nil means
	// time.Now. Tests set it.
	Now func() time.Time
	// AllowPrivate says this gateway's web engine reads private and
	// loopback addresses (the embedded gateway's --allow-private): its
	// jobs carry it (jobs.Meta), so that the hark process or replica
	// that runs one later reads them too, whatever its own setting.
	AllowPrivate bool
}

// Server is the gateway: an http.Handler for the whole interface, and the
// lifecycle (Serve, Shutdown) that lets in-flight streams end cleanly.
type Server struct {
	limits config.Limits
	// keys are the API keys in force (gateway.toml's and the database's),
	// re-read while the gateway serves; redact keeps them and the vendor
	// secrets out of every message.
	keys   *auth.Keys
	redact *auth.Redactor
	// workspaces are those in force (gateway.toml's with the database's
	// changes, and the database's own), built, by name; replaced whole
	// when the database's change (workspaces.go).
	workspaces atomic.Pointer[map[string]*workspace]
	engines    Engines
	config     *config.Config
	wsStore    *workspaces.Store
	tools      []*tool
	toolMap    map[string]*tool
	known      map[string]bool
	db         *store.DB
	// dbWatch notices the database going down and keeps the log quiet
	// through it; quietLog is s.log through it, for what logs the
	// database's errors from a loop (River's poll, the leases' sweep, the
	// keys' re-read).
	dbWatch  *store.Monitor
	quietLog *slog.Logger
	meter    *usage.Meter
	limiter  limits.RateLimiter
	metrics  *metrics
	// opsTokenHash is the operator token's SHA-256 ([ops] token_sha256),
	// which opens /readyz and /metrics on the gateway's address; nil
	// keeps them off it (ops.go).
	opsTokenHash []byte
	log          *slog.Logger
	now          func() time.Time
	upgrader     websocket.Upgrader
	allowPrivate bool // Options.AllowPrivate
	handler      http.Handler

	// baseCtx is the parent of every request and stream; cancelling it
	// (when the shutdown grace runs out) interrupts upstream calls.
	baseCtx    context.Context
	hardCancel context.CancelFunc
	// drainCtx ends when Shutdown starts.
	drainCtx context.Context
	drain    context.CancelFunc
	// active counts the requests admitted before the drain, REST calls and
	// streams alike (a stream's handler runs until the stream ends).
	active sync.WaitGroup

	// Admission per route class, and the CPU's seats that the classes
	// whose work is the CPU's share by weight (gateway/limits): a local
	// search for its whole call; TTS and STT for each sentence spoken or
	// piece of audio recognised (ttsTurns, sttTurns), whether the call
	// is REST or a stream.
	sched                                                      *limits.Scheduler
	admitSearch, admitFetch, admitResearch, admitTTS, admitSTT *limits.Admission
	admitStreams, ttsTurns, sttTurns                           *limits.Admission
	streams                                                    *limits.KeyStreams
	// bodies bounds the request bodies held in memory: each is read
	// whole before its call asks for a slot.
	bodies *limits.BodyBudget

	// jobs runs research and crawl (jobrun.go).
	jobs     *jobs.Queue
	stopJobs func() // at the end of Shutdown
	// watches are the watched pages (watches.go); stopWatches ends their
	// loop (SQLite).
	watches     *watch.Store
	stopWatches func()

	mu         sync.Mutex
	hs         *http.Server
	opsServers []*http.Server // ServeOps's
	opsStopped bool
	watchOnce  sync.Once
}

// Schemas are the tables the gateway itself keeps, for both databases:
// the usage ledger, API keys, the shared rate limiter. The jobs' are
// jobs.Migrate's, the engines' their own.
var Schemas = []store.Schema{usage.Schema, auth.Schema, limits.Schema, workspaces.Schema}

// New builds a gateway from its config, bringing its tables in DB up to
// date.
func New(opts Options) (*Server, error) {
	if opts.Config == nil {
		return nil, errors.New("gateway: Options.Config is nil")
	}
	if err := opts.Config.Validate(); err != nil {
		return nil, fmt.Errorf("gateway config: %w", err)
	}
	if opts.DB == nil {
		return nil, errors.New("gateway: Options.DB is nil (see store.OpenDB, store.OpenPostgres)")
	}
	s := &Server{
		limits:       opts.Config.Limits.WithDefaults(),
		tools:        newRegistry(),
		toolMap:      map[string]*tool{},
		known:        map[string]bool{},
		log:          opts.Logger,
		now:          opts.Now,
		engines:      opts.Engines,
		config:       opts.Config,
		db:           opts.DB,
		opsTokenHash: opsTokenHashOf(opts.Config.Ops.TokenSHA256),
		allowPrivate: opts.AllowPrivate,
	}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if s.now == nil {
		s.now = time.Now
	}
	for _, t := range s.tools {
		s.toolMap[t.slug] = t
	}
	for _, p := range KnownProviders {
		s.known[p] = true
	}
	s.dbWatch = store.NewMonitor(opts.DB, s.log)
	if t := opts.OutageTiming; t.FirstSummary > 0 {
		s.dbWatch.FirstSummary = t.FirstSummary
	}
	if t := opts.OutageTiming; t.PingEvery > 0 {
		s.dbWatch.PingEvery = t.PingEvery
	}
	s.quietLog = slog.New(s.dbWatch.Quiet(s.log.Handler()))
	ctx := context.Background()
	if err := store.Migrate(ctx, opts.DB, Schemas...); err != nil {
		return nil, err
	}
	s.wsStore = workspaces.NewStore(opts.DB)
	rows, err := s.wsStore.List(ctx)
	if err != nil {
		return nil, err
	}
	var secrets []string
	built := map[string]*workspace{}
	for _, wc := range workspaces.Effective(opts.Config, rows) {
		ws, err := s.buildWorkspace(wc, opts.Engines, &secrets)
		if err != nil {
			return nil, err
		}
		built[ws.name] = ws
	}
	s.workspaces.Store(&built)
	s.meter = usage.NewMeter(usage.NewLedger(opts.DB), s.now, time.Duration(s.limits.ReservationLease))
	if err := s.meter.Start(ctx); err != nil {
		return nil, err
	}
	s.keys = auth.NewKeys(auth.NewStore(opts.DB), opts.Config.Workspaces, func(name string) bool { return s.workspace(name) != nil })
	s.redact = auth.NewRedactor(secrets, s.keys)
	s.meter.RedactWith(s.redact.Scrub)
	if err := s.keys.Reload(ctx); err != nil {
		return nil, err
	}
	// Load every workspace's count now, so that no answer waits for it.
	for _, ws := range *s.workspaces.Load() {
		if _, err := s.meter.Load(ctx, ws.account); err != nil {
			return nil, err
		}
	}
	l := s.limits
	queued := func(running, weight int) limits.ClassOptions {
		return limits.ClassOptions{Running: running, Weight: weight, Queue: l.QueueLength, Wait: time.Duration(l.QueueWait)}
	}
	s.sched = limits.NewScheduler(l.CPUSeats)
	s.admitSearch = s.sched.Class("search", queued(l.MaxInvoke, l.ShareSearch))
	s.admitFetch = s.sched.Class("fetch", queued(l.MaxFetch, 0))
	s.admitResearch = s.sched.Class("research", queued(l.MaxResearch, 0))
	s.admitTTS = s.sched.Class("tts", queued(l.MaxVoice, 0))
	s.admitSTT = s.sched.Class("stt", queued(l.MaxVoice, 0))
	s.admitStreams = s.sched.Class("stream", queued(l.MaxStreams, 0))
	// A sentence or a piece of audio of a call already admitted waits
	// for its turn as long as its call may run.
	s.ttsTurns = s.sched.Class("tts_cpu", limits.ClassOptions{Running: l.CPUSeats, Weight: l.ShareTTS})
	s.sttTurns = s.sched.Class("stt_cpu", limits.ClassOptions{Running: l.CPUSeats, Weight: l.ShareSTT})
	s.bodies = limits.NewBodyBudget(l.MaxBodyMemory)
	s.streams = limits.NewKeyStreams(l.StreamsPerKey)
	s.limiter = limits.NewRateLimiter(opts.DB, s.now)
	s.baseCtx, s.hardCancel = context.WithCancel(context.Background())
	s.drainCtx, s.drain = context.WithCancel(context.Background())
	s.upgrader = websocket.Upgrader{
		HandshakeTimeout: 10 * time.Second,
		// Zero sizes reuse net/http's buffers for reading, and the pool
		// lends write buffers only while a frame is written, so an idle
		// stream holds no buffers of its own.
		WriteBufferPool: &sync.Pool{},
		// Only this safe value is ever echoed; a bearer.<key> offer is read
		// by auth and never selected.
		Subprotocols: []string{Subprotocol},
		// Keys, not cookies, authenticate, so a cross-origin page gains
		// nothing it does not already hold.
		CheckOrigin: func(*http.Request) bool { return true },
		Error: func(w http.ResponseWriter, r *http.Request, status int, reason error) {
			s.writeError(w, r, &httpError{status: status, msg: "websocket upgrade: " + reason.Error()})
		},
	}
	s.metrics = newMetrics(s, opts.DB)
	periodic, err := s.openWatches(opts.DB, opts.WatchTiming)
	if err != nil {
		return nil, err
	}
	if err := s.openJobs(opts.DB, opts.JobTiming, opts.LazyJobs, periodic); err != nil {
		return nil, err
	}
	s.handler = s.routes()
	// Reservations' leases are kept until the end of Shutdown, when every
	// call has settled.
	go s.meter.Run(s.baseCtx, s.quietLog)
	go s.dbWatch.Run(s.baseCtx)
	return s, nil
}

// buildWorkspace builds a workspace's engines, adding its vendor secrets
// to secrets.
func (s *Server) buildWorkspace(wc config.Workspace, eng Engines, secrets *[]string) (*workspace, error) {
	ws := &workspace{name: wc.Name, voice: map[string]*voiceProvider{},
		account: &usage.Account{Name: wc.Name, Quota: wc.CreditQuota, Period: wc.QuotaPeriod}}
	ws.setRate(wc, s.limits)
	if sc := wc.Search; sc != nil && sc.Backend != "" {
		if sc.APIKey != "" {
			*secrets = append(*secrets, sc.APIKey)
		}
		ws.searchConfigured = sc.Backend != config.BackendTavily || sc.APIKey != ""
		ws.localSearch = sc.Backend == config.BackendLocal
		if ws.searchConfigured && eng.Web != nil {
			web, err := eng.Web(wc.Name, *sc)
			if err != nil {
				return nil, fmt.Errorf("workspace %q: search backend %s: %w", wc.Name, sc.Backend, err)
			}
			ws.web = web
		}
	}
	names := make([]string, 0, len(wc.Voice))
	for name := range wc.Voice {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		vc := wc.Voice[name]
		if !s.known[name] { // read by handlers: written only while building at start
			s.known[name] = true
		}
		if vc.APIKey != "" {
			*secrets = append(*secrets, vc.APIKey)
		}
		vp := &voiceProvider{enabled: vc.Enabled, configured: vc.Configured(name), engineName: vc.EngineOf(name)}
		if vp.enabled && vp.configured && eng.Voice != nil {
			p, err := eng.Voice(wc.Name, name, vc)
			if err != nil {
				return nil, fmt.Errorf("workspace %q: voice provider %s: %w", wc.Name, name, err)
			}
			vp.engine = p
		}
		ws.voice[name] = vp
	}
	var err error
	if ws.toolList, err = s.toolList(ws); err != nil {
		return nil, fmt.Errorf("workspace %q: tool list: %w", wc.Name, err)
	}
	return ws, nil
}

// Limits are the limits in force: the config's, with defaults for the
// fields it leaves at zero.
func (s *Server) Limits() config.Limits { return s.limits }

// Handler is the gateway as an http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// routes builds the mux and wraps it: trace and log, recover, route match
// (unknown routes get an envelope 404/405), auth, rate limit.
func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	p := api.PathPrefix
	mux.HandleFunc("GET "+api.PathTools, s.handleTools)
	// A body is read whole, within its size and time limits, and the
	// call checked, before it asks for a slot: a slow body holds its
	// connection, never a slot.
	body := limits.ReadBody(s.limits.MaxBodyBytes, s.bodies, s.writeError)
	// Each tool runs in the admission class of the work it does: a search
	// of the local index is CPU and SQLite; extract, crawl, map and a
	// search at a remote backend wait on the network; research on both,
	// for minutes.
	search := s.admit(s.admitSearch, s.runInvoke)
	fetch := s.admit(s.admitFetch, s.runInvoke)
	research := s.admit(s.admitResearch, s.runInvoke)
	mux.Handle("POST "+p+"/"+api.SearchService+"/{tool}/invoke", body(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call, err := s.checkInvoke(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		stateOf(r).call = call
		switch t := call.tool; {
		case t.research:
			research.ServeHTTP(w, r)
		case t.slug != api.ToolSearch || !call.ws.localSearch:
			fetch.ServeHTTP(w, r)
		default:
			search.ServeHTTP(w, r)
		}
	})))
	// Jobs (a hark extension; jobs_http.go): submitting is quick work,
	// and a long poll of a log waits on nothing but the database.
	mux.Handle("POST "+api.PathJobs, body(s.admit(s.admitFetch, s.handleJobSubmit)))
	mux.HandleFunc("GET "+api.PathJobs, s.handleJobList)
	mux.HandleFunc("GET "+api.PathJobs+"/{id}", s.handleJob)
	mux.HandleFunc("DELETE "+api.PathJobs+"/{id}", s.handleJobCancel)
	mux.HandleFunc("GET "+api.PathJobs+"/{id}/events", s.handleJobEvents)
	// Watched pages (a hark extension; watches.go).
	mux.Handle("POST "+api.PathWatches, body(http.HandlerFunc(s.handleWatchAdd)))
	mux.HandleFunc("GET "+api.PathWatches, s.handleWatchList)
	mux.Handle("POST "+api.PathWatchesCheck, body(s.admit(s.admitFetch, s.handleWatchCheck)))
	mux.HandleFunc("GET "+api.PathWatches+"/{id}", s.handleWatch)
	mux.HandleFunc("DELETE "+api.PathWatches+"/{id}", s.handleWatchRemove)
	mux.Handle("POST "+api.PathWatches+"/{id}/check", body(s.admit(s.admitFetch, s.handleWatchCheck)))
	mux.Handle("POST "+api.PathWatches+"/{id}/seen", body(http.HandlerFunc(s.handleWatchSeen)))
	mux.HandleFunc("GET "+api.PathVoiceProviders, s.handleVoiceProviders)
	mux.HandleFunc("GET "+p+"/voice/{provider}/voices", s.handleVoices)
	mux.HandleFunc("GET "+p+"/voice/{provider}/tts/inputs", s.handleTTSInputs)
	mux.Handle("POST "+api.PathTTS, body(s.checked(s.checkTTS, s.admit(s.admitTTS, s.runTTS))))
	mux.Handle("POST "+api.PathSTT, body(s.checked(s.checkSTT, s.admit(s.admitSTT, s.runSTT))))
	perKey := s.streams.Limit(keyHashOf, s.writeError)
	mux.Handle("GET "+api.PathTTSStream, perKey(s.admit(s.admitStreams, s.handleTTSStream)))
	mux.Handle("GET "+api.PathSTTStream, perKey(s.admit(s.admitStreams, s.handleSTTStream)))

	var h http.Handler = mux
	h = limits.RateLimit(s.limiter, s.rateOf, s.writeError)(h)
	h = s.authenticate(h)
	h = s.matchRoute(mux, h)
	h = s.recoverPanics(h)
	h = s.traceAndLog(h)
	// The operator's routes stand apart from the interface's: no API key,
	// no log line per probe (ops.go).
	ops := s.opsRoutes(true)
	ops.Handle("/", h)
	return ops
}

// checked runs next once check has read and checked the request (the
// call it returns is the request state's), or answers check's error.
func (s *Server) checked(check func(*http.Request) (any, error), next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		call, err := check(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		stateOf(r).call = call
		next.ServeHTTP(w, r)
	})
}

// admissions are the classes of calls, for the metrics.
func (s *Server) admissions() []*limits.Admission {
	return []*limits.Admission{s.admitSearch, s.admitFetch, s.admitResearch, s.admitTTS, s.admitSTT, s.admitStreams, s.ttsTurns, s.sttTurns}
}

// admit runs h within a slot of a. A call refused a slot never ran: its
// rate-limit token goes back.
func (s *Server) admit(a *limits.Admission, h http.HandlerFunc) http.Handler {
	return limits.Admit(a, func(w http.ResponseWriter, r *http.Request, err error) {
		if key, rate := s.rateOf(r); key != "" {
			if gerr := s.limiter.GiveBack(context.WithoutCancel(r.Context()), key, rate.Burst); gerr != nil {
				s.quietLog.Warn("rate limit token not returned", "error", gerr)
			}
		}
		s.writeError(w, r, err)
	})(h)
}
