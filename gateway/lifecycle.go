package gateway

import (
	"context"
	"errors"
	"log"
	"net"
	"net/http"
	"strings"
	"time"

	"hark/gateway/limits"
)

// The server's lifecycle: Serve, and a Shutdown that lets admitted calls
// and streams end before the connections close.

// Serve answers requests on ln until Shutdown. It returns nil after a
// shutdown.
func (s *Server) Serve(ln net.Listener) error {
	cl := limits.Listen(ln, limits.ConnLimits{Max: s.MaxConns(), PerClient: s.limits.MaxConnsPerClient,
		UnauthIdle: time.Duration(s.limits.UnauthIdleTimeout), MaxHeaderBytes: s.limits.MaxHeaderBytes})
	hs := &http.Server{
		Handler:           s.handler,
		ReadHeaderTimeout: time.Duration(s.limits.HeaderTimeout),
		IdleTimeout:       time.Duration(s.limits.IdleTimeout),
		MaxHeaderBytes:    s.limits.MaxHeaderBytes,
		ConnState:         cl.ConnState,
		ConnContext:       limits.ConnContext,
		BaseContext:       func(net.Listener) context.Context { return s.baseCtx },
		ErrorLog:          log.New(scrubbedLog{s}, "", 0),
	}
	ln = cl
	s.mu.Lock()
	if s.isDraining() {
		// Shutdown came first (a Stop right after Start): it found no
		// server to stop, so this one must not start.
		s.mu.Unlock()
		ln.Close()
		return nil
	}
	s.hs = hs
	s.mu.Unlock()
	// A serving gateway re-reads its keys until Shutdown ends, so that
	// keys added or revoked in the database reach it.
	s.watchOnce.Do(func() {
		go s.watchWorkspaces(s.baseCtx)
		go s.keys.Watch(s.baseCtx, s.quietLog, s.redact.Scrub)
	})
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
	// The jobs stop last: a synchronous call waits on its job to the end;
	// the operator address is open until then, so that /readyz says the
	// node is draining.
	defer s.stopOps()
	if s.stopWatches != nil {
		defer s.stopWatches()
	}
	if s.stopJobs != nil {
		defer s.stopJobs()
	}
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

// scrubbedLog passes net/http's own log lines to the gateway's log at
// warning level, with any key or secret in them redacted.
type scrubbedLog struct{ s *Server }

func (l scrubbedLog) Write(p []byte) (int, error) {
	l.s.log.Warn(l.s.redact.Scrub(strings.TrimSuffix(string(p), "\n")))
	return len(p), nil
}

// opsMaxConns caps the operator address's connections: probes and
// scrapes, a few at a time; the gateway's headroom holds them.
const opsMaxConns = 64

// MaxConns is the cap on the gateway's open connections: max_conns, or
// the process's descriptor limit less the headroom the database and the
// engines need (limits.FDHeadroom), whichever is lower; 0 when neither
// is known.
func (s *Server) MaxConns() int {
	auto := 0
	if fds := limits.FDLimit(); fds > 0 {
		auto = max(1, fds-limits.FDHeadroom(fds, s.limits.MaxDBConns)-opsMaxConns)
	}
	switch m := s.limits.MaxConns; {
	case m > 0 && (auto == 0 || m < auto):
		return m
	default:
		return auto
	}
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
