package gateway

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"

	"hark/api"
	"hark/gateway/engine"
)

// Engines builds a workspace's engines from its config. The gateway itself
// knows no engine; the hark command wires the local ones and the
// pass-through backends in here, tests wire their own.
type Engines struct {
	// Web returns the web tools of a workspace whose search backend is
	// configured. A nil member of the result marks that tool unavailable.
	Web func(workspace string, c SearchConfig) (engine.Web, error)
	// Voice returns the engine of an enabled, configured voice provider.
	Voice func(workspace, provider string, c VoiceConfig) (engine.VoiceProvider, error)
}

// Options are what New needs.
type Options struct {
	Config *Config
	DB     *sql.DB // credits and usage history; see OpenDB
	// Ledger, when set, keeps credits and usage instead of DB (see
	// OpenPGLedger); DB still holds everything else.
	Ledger  UsageLedger
	Engines Engines
	// Logger receives one line per request and per stream, each with its
	// trace_id. Nil discards.
	Logger *slog.Logger
	// Now is the clock of the rate limiter and quota periods; nil means
	// time.Now. Tests set it.
	Now func() time.Time
}

// KnownProviders are the voice provider codes this gateway knows of, whether
// or not a workspace enables them.
var KnownProviders = []string{api.DefaultProvider}

// workspace is a WorkspaceConfig with its engines built.
type workspace struct {
	name        string
	quota       int64
	quotaPeriod string
	// searchConfigured is false when the workspace has no search backend or
	// lacks its credentials; every web tool then answers
	// api.MsgCredentialsMissing.
	searchConfigured bool
	// localSearch: vendor_search runs on this machine's index (CPU and
	// SQLite), not at a remote backend (waiting on the network); the two
	// take different admission classes.
	localSearch bool
	web         engine.Web
	voice       map[string]*voiceProvider
	toolList    json.RawMessage // the encoded tool list, see handleTools
	credits     creditCounter
}

type voiceProvider struct {
	enabled, configured bool
	engine              engine.VoiceProvider
}

type keyEntry struct {
	hash [sha256.Size]byte
	ws   *workspace
}

// Server is the gateway: an http.Handler for the whole interface, and the
// lifecycle (Serve, Shutdown) that lets in-flight streams end cleanly.
type Server struct {
	limits   Limits
	keys     []keyEntry
	tools    []*tool
	toolMap  map[string]*tool
	known    map[string]bool
	secrets  []string
	usage    *usageStore
	limiter  *rateLimiter
	log      *slog.Logger
	now      func() time.Time
	upgrader websocket.Upgrader
	handler  http.Handler

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

	// Admission per route class; see admission.
	admitInvoke, admitFetch, admitResearch, admitVoice, admitStreams *admission
	streams                                                          *keyStreams

	mu sync.Mutex
	hs *http.Server
}

// New builds a gateway from its config, creating its tables in DB.
func New(opts Options) (*Server, error) {
	if opts.Config == nil {
		return nil, errors.New("gateway: Options.Config is nil")
	}
	if err := opts.Config.Validate(); err != nil {
		return nil, fmt.Errorf("gateway config: %w", err)
	}
	if opts.DB == nil {
		return nil, errors.New("gateway: Options.DB is nil (see OpenDB)")
	}
	s := &Server{
		limits:  opts.Config.Limits.withDefaults(),
		tools:   newRegistry(),
		toolMap: map[string]*tool{},
		known:   map[string]bool{},
		log:     opts.Logger,
		now:     opts.Now,
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
	for _, wc := range opts.Config.Workspaces {
		ws, err := s.buildWorkspace(wc, opts.Engines)
		if err != nil {
			return nil, err
		}
		if ws.toolList, err = s.toolList(ws); err != nil {
			return nil, fmt.Errorf("workspace %q: tool list: %w", wc.Name, err)
		}
		for _, h := range wc.APIKeySHA256 {
			var e keyEntry
			b, _ := hex.DecodeString(h) // checked by Validate
			copy(e.hash[:], b)
			e.ws = ws
			s.keys = append(s.keys, e)
		}
	}
	s.usage = &usageStore{ledger: opts.Ledger, now: s.now}
	if opts.Ledger == nil {
		s.usage.ledger = newSQLiteLedger(opts.DB)
	}
	if err := s.usage.init(context.Background()); err != nil {
		return nil, err
	}
	// Load every workspace's count now, so that no answer waits for it.
	for _, k := range s.keys {
		if k.ws.credits.period.IsZero() {
			if _, err := s.usage.load(context.Background(), k.ws); err != nil {
				return nil, err
			}
		}
	}
	l := s.limits
	wait := time.Duration(l.QueueWait)
	s.admitInvoke = newAdmission("invoke", l.MaxInvoke, l.QueueLength, wait)
	s.admitFetch = newAdmission("fetch", l.MaxFetch, l.QueueLength, wait)
	s.admitResearch = newAdmission("research", l.MaxResearch, l.QueueLength, wait)
	s.admitVoice = newAdmission("voice", l.MaxVoice, l.QueueLength, wait)
	s.admitStreams = newAdmission("stream", l.MaxStreams, l.QueueLength, wait)
	s.streams = &keyStreams{max: l.StreamsPerKey, open: map[string]int{}}
	s.limiter = newRateLimiter(s.limits.RatePerSecond, s.limits.RateBurst, s.now)
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
	s.handler = s.routes()
	return s, nil
}

func (s *Server) buildWorkspace(wc WorkspaceConfig, eng Engines) (*workspace, error) {
	ws := &workspace{name: wc.Name, quota: wc.CreditQuota, quotaPeriod: wc.QuotaPeriod, voice: map[string]*voiceProvider{}}
	if sc := wc.Search; sc != nil && sc.Backend != "" {
		if sc.APIKey != "" {
			s.secrets = append(s.secrets, sc.APIKey)
		}
		ws.searchConfigured = sc.Backend != BackendTavily || sc.APIKey != ""
		ws.localSearch = sc.Backend == BackendLocal
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
		s.known[name] = true
		if vc.APIKey != "" {
			s.secrets = append(s.secrets, vc.APIKey)
		}
		vp := &voiceProvider{enabled: vc.Enabled, configured: vc.Configured()}
		if vp.enabled && vp.configured && eng.Voice != nil {
			p, err := eng.Voice(wc.Name, name, vc)
			if err != nil {
				return nil, fmt.Errorf("workspace %q: voice provider %s: %w", wc.Name, name, err)
			}
			vp.engine = p
		}
		ws.voice[name] = vp
	}
	return ws, nil
}

// Limits are the limits in force: the config's, with defaults for the
// fields it leaves at zero.
func (s *Server) Limits() Limits { return s.limits }

// Handler is the gateway as an http.Handler.
func (s *Server) Handler() http.Handler { return s.handler }

// Serve answers requests on ln until Shutdown. It returns nil after a
// shutdown.
func (s *Server) Serve(ln net.Listener) error {
	ln = newClientListener(ln, s.limits.MaxConnsPerClient)
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: time.Duration(s.limits.HeaderTimeout),
		IdleTimeout:       time.Duration(s.limits.IdleTimeout),
		BaseContext:       func(net.Listener) context.Context { return s.baseCtx },
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelWarn),
	}
	s.mu.Lock()
	s.hs = hs
	s.mu.Unlock()
	err := hs.Serve(ln)
	if errors.Is(err, http.ErrServerClosed) {
		return nil
	}
	return err
}

// Shutdown stops accepting connections and lets in-flight requests and
// streams end: TTS streams finish their synthesis, STT streams take the
// shutdown as end of audio and send their final results. When ctx ends
// first, upstream calls are cancelled and every open stream ends with an
// error frame. It returns ctx's error in that case.
func (s *Server) Shutdown(ctx context.Context) error {
	s.mu.Lock()
	s.drain()
	hs := s.hs
	s.mu.Unlock()
	done := make(chan struct{})
	go func() {
		if hs != nil {
			_ = hs.Shutdown(ctx)
		}
		s.active.Wait()
		close(done)
	}()
	select {
	case <-done:
		s.hardCancel()
		return nil
	case <-ctx.Done():
	}
	s.hardCancel()
	// Calls and streams now end with their error envelope or frame; give
	// them a moment, then let those last answers leave before closing.
	select {
	case <-done:
	case <-time.After(5 * time.Second):
	}
	if hs != nil {
		fctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = hs.Shutdown(fctx) // closes each connection once its answer is written
		cancel()
		_ = hs.Close()
	}
	return ctx.Err()
}

// requestStart counts a request as active unless the gateway is draining;
// it is counted under the lock Shutdown takes to start draining, so
// Shutdown never misses one.
func (s *Server) requestStart() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.isDraining() {
		return false
	}
	s.active.Add(1)
	return true
}

func (s *Server) isDraining() bool {
	return s.drainCtx.Err() != nil
}

// scrub removes configured vendor secrets, and API keys wherever a
// request put them, from a message.
func (s *Server) scrub(msg string) string {
	for _, sec := range s.secrets {
		if len(sec) >= 4 {
			msg = strings.ReplaceAll(msg, sec, "[redacted]")
		}
	}
	return s.redactKeys(msg)
}

// maxEcho is the most of a path segment a message echoes: long enough to
// hold any key whole, so that scrub can recognise and redact it.
const maxEcho = 200

// minKeyLen is the shortest run of characters checked for being a key;
// hark's own keys are 69 long.
const minKeyLen = 16

// redactKeys replaces each run of token characters that is an API key of
// this gateway, or has the form of one of hark's keys, with [redacted]. A
// key sent in a path segment (/voice/<KEY>/voices) would otherwise reach
// the log and the 404 or 405 message that echoes the path.
func (s *Server) redactKeys(text string) string {
	var b strings.Builder
	last := 0
	for i := 0; i < len(text); {
		if !isTokenByte(text[i]) {
			i++
			continue
		}
		j := i
		for j < len(text) && isTokenByte(text[j]) {
			j++
		}
		if tok := text[i:j]; len(tok) >= minKeyLen && (looksLikeHarkKey(tok) || s.isKey(tok)) {
			b.WriteString(text[last:i])
			b.WriteString("[redacted]")
			last = j
		}
		i = j
	}
	if last == 0 {
		return text
	}
	b.WriteString(text[last:])
	return b.String()
}

func isTokenByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~", c) >= 0
}

// looksLikeHarkKey matches NewAPIKey's form, "hark_" and hex digits,
// anywhere in tok: another gateway's key is as secret as ours, and so is
// a key cut short. 16 digits tell it from a word.
func looksLikeHarkKey(tok string) bool {
	i := strings.Index(tok, "hark_")
	if i < 0 || len(tok)-i-5 < 16 {
		return false
	}
	for _, c := range tok[i+5 : i+5+16] {
		if !strings.ContainsRune("0123456789abcdef", c) {
			return false
		}
	}
	return true
}

func (s *Server) isKey(tok string) bool {
	ws, _ := s.lookupKey(tok)
	return ws != nil
}

// lookupKey finds the workspace of an API key and returns the key's hex
// SHA-256. Every stored hash is compared, in constant time, whatever
// matched.
func (s *Server) lookupKey(key string) (*workspace, string) {
	sum := sha256.Sum256([]byte(key))
	var found *workspace
	for i := range s.keys {
		if constantTimeEqual(s.keys[i].hash[:], sum[:]) {
			found = s.keys[i].ws
		}
	}
	if found == nil {
		return nil, ""
	}
	return found, hex.EncodeToString(sum[:])
}

// provider resolves a voice provider of the workspace, or says why not.
func (ws *workspace) provider(name string, known map[string]bool) (engine.VoiceProvider, error) {
	if strings.TrimSpace(name) == "" {
		return nil, &engine.InputError{Field: "provider", Rule: "is required"}
	}
	vp, ok := ws.voice[name]
	switch {
	case !ok && !known[name]:
		return nil, &httpError{status: http.StatusNotFound,
			msg: fmt.Sprintf("unknown voice provider %q (known: %s)", truncate(name, maxEcho), strings.Join(sortedKeys(known), ", "))}
	case !ok:
		return nil, &httpError{status: http.StatusForbidden,
			msg: fmt.Sprintf("voice provider %q is not enabled for this workspace", name)}
	case !vp.enabled:
		return nil, &httpError{status: http.StatusForbidden,
			msg: fmt.Sprintf("voice provider %q is disabled for this workspace", name)}
	case !vp.configured:
		return nil, &httpError{status: http.StatusForbidden,
			msg: fmt.Sprintf("voice provider %q has no credentials configured for this workspace", name)}
	case vp.engine == nil:
		return nil, &httpError{status: http.StatusServiceUnavailable,
			msg: fmt.Sprintf("voice provider %q has no engine in this gateway", name)}
	}
	return vp.engine, nil
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
