package gateway

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net"
	"net/http"
	"strings"
	"time"

	"hark/gateway/jobs"
	"hark/gateway/limits"
	"hark/gateway/store"
)

// The operator's routes (docs/gateway.md, *Operating*): /healthz says
// the process is up; /readyz that it can take calls (the database
// answers, its tables are this hark's, the node is not draining);
// /metrics is Prometheus's. /healthz is open on the gateway's address;
// /readyz and /metrics there need the operator token ([ops] token_sha256),
// and all three are open on the operator address ([ops] listen), which
// is meant for a private network or loopback.

const (
	PathHealthz = "/healthz"
	PathReadyz  = "/readyz"
	PathMetrics = "/metrics"
)

// opsRoutes are the operator's routes; guarded, /readyz and /metrics ask
// for the operator token.
func (s *Server) opsRoutes(guarded bool) *http.ServeMux {
	mux := http.NewServeMux()
	mux.HandleFunc("GET "+PathHealthz, s.handleHealthz)
	ready := http.Handler(http.HandlerFunc(s.handleReadyz))
	metrics := s.metrics.handler(s.log.Warn)
	if guarded {
		ready, metrics = s.opsToken(ready), s.opsToken(metrics)
	}
	mux.Handle("GET "+PathReadyz, ready)
	mux.Handle("GET "+PathMetrics, metrics)
	return mux
}

// opsToken lets a request with the operator token through; without a
// token configured these routes are only on the operator address.
func (s *Server) opsToken(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if s.opsTokenHash == nil {
			opsJSON(w, http.StatusForbidden, map[string]any{"status": "forbidden",
				"error": r.URL.Path + " is served on the operator address ([ops] listen, --ops-listen), or here with the operator token ([ops] token_sha256)"})
			return
		}
		scheme, tok, _ := strings.Cut(strings.TrimSpace(r.Header.Get("Authorization")), " ")
		sum := sha256.Sum256([]byte(strings.TrimSpace(tok)))
		if !strings.EqualFold(scheme, "Bearer") || subtle.ConstantTimeCompare(sum[:], s.opsTokenHash) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="hark operator"`)
			opsJSON(w, http.StatusUnauthorized, map[string]any{"status": "unauthorized",
				"error": "send the operator token: Authorization: Bearer <token> ([ops] token_sha256 holds its SHA-256)"})
			return
		}
		next.ServeHTTP(w, r)
	})
}

func (s *Server) handleHealthz(w http.ResponseWriter, r *http.Request) {
	opsJSON(w, http.StatusOK, map[string]any{"status": "ok"})
}

// handleReadyz answers 200 when the node can take calls, else 503 with
// what is wrong; each check is bounded, so a database that hangs makes a
// prompt 503, not a probe that times out.
func (s *Server) handleReadyz(w http.ResponseWriter, r *http.Request) {
	checks := map[string]string{"database": "ok", "migrations": "ok", "draining": "no"}
	ready := true
	if s.isDraining() {
		checks["draining"] = "yes: shutting down"
		ready = false
	}
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	if err := s.db.SQL().PingContext(ctx); err != nil {
		checks["database"] = "does not answer: " + s.redact.Scrub(err.Error())
		checks["migrations"] = "unknown"
		ready = false
	} else if err := store.Check(ctx, s.db, append(Schemas, jobs.Schema)...); err != nil {
		checks["migrations"] = s.redact.Scrub(err.Error())
		ready = false
	}
	status, word := http.StatusOK, "ready"
	if !ready {
		status, word = http.StatusServiceUnavailable, "not ready"
	}
	opsJSON(w, status, map[string]any{"status": word, "checks": checks})
}

func opsJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	w.Write(append(b, '\n'))
}

// ServeOps serves the operator's routes, open to whoever reaches ln, until
// Shutdown: a load balancer's probes and Prometheus's scrapes on a
// private address. It outlives the gateway's own listener through the
// drain, so that /readyz can say "draining".
func (s *Server) ServeOps(ln net.Listener) error {
	cl := limits.Listen(ln, limits.ConnLimits{Max: opsMaxConns, UnauthIdle: time.Duration(s.limits.UnauthIdleTimeout),
		MaxHeaderBytes: s.limits.MaxHeaderBytes})
	ln = cl
	hs := &http.Server{Handler: s.opsRoutes(false), ReadHeaderTimeout: 10 * time.Second, IdleTimeout: time.Minute,
		MaxHeaderBytes: s.limits.MaxHeaderBytes, ConnState: cl.ConnState}
	s.mu.Lock()
	if s.opsStopped {
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.opsServers = append(s.opsServers, hs)
	s.mu.Unlock()
	if err := hs.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// stopOps closes the operator listeners, at the end of Shutdown.
func (s *Server) stopOps() {
	s.mu.Lock()
	s.opsStopped = true
	servers := s.opsServers
	s.mu.Unlock()
	for _, hs := range servers {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		hs.Shutdown(ctx)
		cancel()
		hs.Close()
	}
}

// opsTokenHashOf decodes the operator token's configured SHA-256, or nil.
func opsTokenHashOf(hexHash string) []byte {
	b, err := hex.DecodeString(strings.ToLower(hexHash))
	if err != nil || len(b) != sha256.Size {
		return nil
	}
	return b
}
