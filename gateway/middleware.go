package gateway

import (
	"bufio"
	"context"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"runtime/debug"
	"strings"
	"time"

	"hark/gateway/limits"
)

// Subprotocol is the WebSocket subprotocol the gateway echoes. A browser
// that authenticates with a "bearer.<API_KEY>" subprotocol offers it too,
// so that the handshake selects a value that holds no secret.
const Subprotocol = "hark.v1"

// BearerProtocolPrefix starts the Sec-WebSocket-Protocol value that carries
// an API key: "bearer.<API_KEY>".
const BearerProtocolPrefix = "bearer."

// statusWriter records the status for the log and adds the credit
// headers of an authenticated workspace; it passes Hijack through for the
// WebSocket upgrade.
type statusWriter struct {
	http.ResponseWriter
	rs *requestState
	s  *Server
}

func (w *statusWriter) WriteHeader(code int) {
	if w.rs.status == 0 {
		w.rs.status = code
		w.s.setCreditHeaders(w.Header(), w.rs, true)
		// net/http reads an unread body before answering, without any
		// deadline: read it here at the body's minimum rate instead, and
		// close the connection after a body that is slow or big.
		if b := w.rs.body; b != nil && !b.Drain(64<<10) {
			w.Header().Set("Connection", "close")
		}
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.rs.status == 0 {
		w.WriteHeader(http.StatusOK)
	}
	return w.ResponseWriter.Write(b)
}

func (w *statusWriter) Hijack() (net.Conn, *bufio.ReadWriter, error) {
	hj, ok := w.ResponseWriter.(http.Hijacker)
	if !ok {
		return nil, nil, fmt.Errorf("response does not support hijacking")
	}
	w.rs.status = http.StatusSwitchingProtocols
	return hj.Hijack()
}

func (w *statusWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// traceAndLog gives the request a trace_id (response header and context)
// and logs one line when it ends. The query string is never logged.
func (s *Server) traceAndLog(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		if s.requestStart() {
			defer s.active.Done()
		}
		rs := &requestState{traceID: newTraceID()}
		w.Header().Set(TraceHeader, rs.traceID)
		if r.Body != nil && r.Body != http.NoBody {
			rs.body = limits.NewSlowBody(w, r, time.Duration(s.limits.BodyTimeout), s.limits.BodyMinRate)
			r.Body = rs.body
		}
		r = r.WithContext(context.WithValue(r.Context(), stateKey{}, rs))
		next.ServeHTTP(&statusWriter{ResponseWriter: w, rs: rs, s: s}, r)
		attrs := []slog.Attr{
			slog.String("trace_id", rs.traceID),
			// A key sent as the method or put in the path stays out of the log.
			slog.String("method", s.redact.RedactKeys(r.Method)),
			slog.String("path", s.redact.RedactKeys(r.URL.Path)),
			slog.Int("status", rs.status),
			slog.Int64("duration_ms", time.Since(start).Milliseconds()),
		}
		if rs.workspace != nil {
			attrs = append(attrs, slog.String("workspace", rs.workspace.name), slog.String("key_id", rs.keyID))
		}
		level := slog.LevelInfo
		if rs.errMsg != "" {
			attrs = append(attrs, slog.String("error", rs.errMsg))
			// A 5xx is a warning, but not one per request through a
			// database outage: the outage has its own lines (the
			// monitor's), and each request its access line.
			if rs.status >= 500 && !s.dbWatch.Outage(r.Context()) {
				level = slog.LevelWarn
			}
		}
		s.log.LogAttrs(context.Background(), level, "request", attrs...)
		s.metrics.request(rs.route, methodLabel(r.Method), rs.status, time.Since(start))
	})
}

// methodLabel is a request's method as the metrics count it: one of
// HTTP's, or "other", so that no method a client made up (a key sent as
// the method) becomes a label anyone scraping can read.
func methodLabel(m string) string {
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPost, http.MethodPut, http.MethodPatch,
		http.MethodDelete, http.MethodConnect, http.MethodOptions, http.MethodTrace:
		return m
	}
	return "other"
}

func (s *Server) recoverPanics(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				s.log.Error("panic", "trace_id", traceID(r), "panic", s.redact.Scrub(fmt.Sprint(v)), "stack", string(debug.Stack()))
				if rs := stateOf(r); rs != nil && rs.status == 0 {
					s.writeError(w, r, &httpError{status: http.StatusInternalServerError, msg: "internal error"})
				}
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// matchRoute answers unknown paths (404) and wrong methods (405) with an
// envelope before auth runs, so a typo is not reported as a bad key.
func (s *Server) matchRoute(mux *http.ServeMux, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h, pattern := mux.Handler(r)
		if pattern != "" {
			if rs := stateOf(r); rs != nil {
				rs.route = pattern
			}
			next.ServeHTTP(w, r)
			return
		}
		rec := &headerOnly{header: http.Header{}}
		h.ServeHTTP(rec, r)
		status := rec.status
		if status == 0 {
			status = http.StatusNotFound
		}
		msg := fmt.Sprintf("no route for %s %s", r.Method, r.URL.Path)
		if status == http.StatusMethodNotAllowed {
			w.Header().Set("Allow", rec.header.Get("Allow"))
			msg = fmt.Sprintf("method %s not allowed on %s (allowed: %s)", r.Method, r.URL.Path, rec.header.Get("Allow"))
		}
		s.writeError(w, r, &httpError{status: status, msg: msg})
	})
}

// headerOnly captures what the mux's 404/405 handler would write.
type headerOnly struct {
	header http.Header
	status int
}

func (h *headerOnly) Header() http.Header         { return h.header }
func (h *headerOnly) Write(b []byte) (int, error) { return len(b), nil }
func (h *headerOnly) WriteHeader(code int)        { h.status = code }

// credentialQueryParams are query parameters that would carry a key. The
// gateway refuses them outright: a key in a URL ends up in logs and
// browser history.
var credentialQueryParams = []string{"api_key", "apikey", "key", "token", "access_token", "authorization", "bearer"}

// authenticate resolves the API key to a workspace: from the
// Authorization header, or, on a WebSocket upgrade only, from a
// "bearer.<API_KEY>" Sec-WebSocket-Protocol value. Never from the query.
func (s *Server) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		for _, p := range credentialQueryParams {
			if q.Has(p) {
				s.writeError(w, r, &httpError{status: CodeUnauthorized, msg: fmt.Sprintf(
					"the API key is never accepted in the query string (parameter %q); send the header Authorization: Bearer <API_KEY>, or on WebSocket the subprotocol %s<API_KEY>", p, BearerProtocolPrefix)})
				return
			}
		}
		key, how := bearerKey(r)
		if key == "" {
			msg := "missing API key: send the header Authorization: Bearer <API_KEY>"
			if how != "" {
				msg = how
			}
			s.writeError(w, r, &httpError{status: CodeUnauthorized, msg: msg})
			return
		}
		name, keyHash := s.keys.Lookup(key)
		ws := s.workspace(name)
		if ws == nil {
			s.writeError(w, r, &httpError{status: CodeUnauthorized, msg: "invalid API key"})
			return
		}
		rs := stateOf(r)
		rs.workspace, rs.keyHash, rs.keyID = ws, keyHash, keyHash[:8]
		limits.Authenticated(r.Context()) // its connection keeps the ordinary idle timeout
		next.ServeHTTP(w, r)
	})
}

// bearerKey finds the key, or explains what was wrong with the header.
func bearerKey(r *http.Request) (key, problem string) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, rest, _ := strings.Cut(strings.TrimSpace(h), " ")
		if !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(rest) == "" {
			return "", "malformed Authorization header: want Bearer <API_KEY>"
		}
		return strings.TrimSpace(rest), ""
	}
	if websocketUpgrade(r) {
		for _, v := range r.Header.Values("Sec-WebSocket-Protocol") {
			for _, p := range strings.Split(v, ",") {
				p = strings.TrimSpace(p)
				if len(p) > len(BearerProtocolPrefix) && strings.EqualFold(p[:len(BearerProtocolPrefix)], BearerProtocolPrefix) {
					return p[len(BearerProtocolPrefix):], ""
				}
			}
		}
		return "", "missing API key: send the header Authorization: Bearer <API_KEY>, or the WebSocket subprotocol " + BearerProtocolPrefix + "<API_KEY>"
	}
	return "", ""
}

func websocketUpgrade(r *http.Request) bool {
	return strings.EqualFold(r.Header.Get("Upgrade"), "websocket")
}
