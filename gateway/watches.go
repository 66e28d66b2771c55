package gateway

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/jobs"
	"hark/gateway/store"
	"hark/gateway/watch"
)

// Watched pages (a hark extension; api/watch.go is the client): the
// gateway reads each again when it falls due, through its workspace's
// web engine (robots.txt, the host's pace, a conditional request), and
// keeps its extracted text before and after the last change. On
// PostgreSQL (a team's replicas) the checks are a River periodic job,
// run once a minute by one replica; on SQLite (the embedded gateway,
// one node) a loop of this process runs them at start and as they fall
// due.

// watchPeriod is how often a team's periodic job looks for due watches.
const watchPeriod = time.Minute

// WatchTiming shortens the embedded loop's longest sleep and sets the
// watches' clock, for tests that need a check to fall due in the
// background; zero keeps a minute and time.Now.
type WatchTiming struct {
	Period time.Duration
	Now    func() time.Time
}

// openWatches brings the watches' table up to date and, on SQLite,
// starts the loop that checks them; on PostgreSQL it returns the
// periodic job to give the job queue.
func (s *Server) openWatches(db *store.DB, timing WatchTiming) ([]jobs.Periodic, error) {
	st, err := watch.Open(context.Background(), db)
	if err != nil {
		return nil, err
	}
	if timing.Now != nil {
		st.Now = timing.Now
	}
	s.watches = st
	if db.Postgres() {
		return []jobs.Periodic{{Name: "watches", Every: watchPeriod, Run: func(ctx context.Context) error {
			_, _, err := st.RunDue(ctx, s.rechecker, "")
			return err
		}}}, nil
	}
	loopCtx, cancel := context.WithCancel(s.baseCtx)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		s.watchLoop(loopCtx, cmp.Or(timing.Period, watchPeriod))
	}()
	s.stopWatches = func() { cancel(); wg.Wait() }
	return nil, nil
}

// watchLoop checks the watches due now, then sleeps until the next falls
// due (at most period, a minute: a watch added meanwhile is due at once).
func (s *Server) watchLoop(ctx context.Context, period time.Duration) {
	for {
		_, next, err := s.watches.RunDue(ctx, s.rechecker, "")
		if err != nil && ctx.Err() == nil {
			s.quietLog.Warn("watches: check", "error", err.Error())
		}
		wait := period
		if !next.IsZero() {
			wait = min(wait, max(time.Second, next.Sub(s.watches.Now())))
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}

// rechecker is a workspace's page re-reader, nil when it has none.
func (s *Server) rechecker(workspace string) engine.Rechecker {
	ws := s.workspace(workspace)
	if ws == nil || ws.web.Extract == nil {
		return nil
	}
	rc, _ := ws.web.Extract.(engine.Rechecker)
	return rc
}

// watchID is the form of a watch's ID.
var watchID = regexp.MustCompile(`^[0-9a-f]{16}$`)

func (s *Server) watchOf(r *http.Request) (string, error) {
	id := r.PathValue("id")
	if !watchID.MatchString(id) {
		return "", &httpError{status: CodeInvalidInput, msg: fmt.Sprintf("invalid id: a watch ID is 16 hexadecimal digits (hark watch list shows them), got %q", truncate(id, maxEcho))}
	}
	return id, nil
}

func (s *Server) watchError(err error) error {
	switch {
	case errors.Is(err, watch.ErrNotFound):
		return &httpError{status: CodeNotFound, msg: "no watch has this id"}
	case errors.Is(err, watch.ErrTooMany):
		return &httpError{status: CodeInvalidInput, msg: err.Error()}
	}
	return err
}

// privateHost reports a URL whose host is, or resolves to, a private,
// loopback or link-local address.
func privateHost(ctx context.Context, host string) bool {
	if a, err := netip.ParseAddr(strings.Trim(host, "[]")); err == nil {
		return !publicAddr(a)
	}
	if strings.EqualFold(host, "localhost") || strings.HasSuffix(strings.ToLower(host), ".localhost") {
		return true
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(ctx, "ip", host)
	if err != nil {
		return false // the check says it cannot be reached
	}
	for _, a := range addrs {
		if !publicAddr(a) {
			return true
		}
	}
	return false
}

func publicAddr(a netip.Addr) bool {
	a = a.Unmap()
	return a.IsGlobalUnicast() && !a.IsPrivate() && !a.IsLoopback() && !a.IsLinkLocalUnicast()
}

func (s *Server) handleWatchAdd(w http.ResponseWriter, r *http.Request) {
	var in api.WatchAdd
	if err := s.decodeBody(w, r, &in); err != nil {
		s.writeError(w, r, err)
		return
	}
	bad := func(format string, a ...any) {
		s.writeError(w, r, &httpError{status: CodeInvalidInput, msg: fmt.Sprintf(format, a...)})
	}
	in.URL = strings.TrimSpace(in.URL)
	u, err := url.Parse(in.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		bad("invalid url: must be an http:// or https:// URL with a host, got %q", truncate(in.URL, maxEcho))
		return
	}
	every, err := api.ParseEvery(in.Every)
	if err != nil {
		bad("%v", err)
		return
	}
	if utf8.RuneCountInString(in.Label) > api.MaxWatchLabel {
		bad("invalid label: at most %d characters", api.MaxWatchLabel)
		return
	}
	if !in.AllowPrivate && privateHost(r.Context(), u.Hostname()) {
		bad("invalid url: %s is a private, loopback or link-local address; watching it needs allow_private (hark watch add --allow-private)", u.Hostname())
		return
	}
	ws := stateOf(r).workspace.name
	if s.rechecker(ws) == nil {
		s.writeError(w, r, &httpError{status: CodeNotFound, msg: "watches: this workspace's web engine cannot read pages again (it needs the local web engine)"})
		return
	}
	out, err := s.watches.Add(r.Context(), ws, in, every, s.allowPrivate)
	if err != nil {
		s.writeError(w, r, s.watchError(err))
		return
	}
	s.writeData(w, r, out)
}

func (s *Server) handleWatchList(w http.ResponseWriter, r *http.Request) {
	out, err := s.watches.List(r.Context(), stateOf(r).workspace.name)
	if err != nil {
		s.writeError(w, r, err)
		return
	}
	s.writeData(w, r, out)
}

func (s *Server) handleWatch(w http.ResponseWriter, r *http.Request) {
	id, err := s.watchOf(r)
	if err == nil {
		var out *api.WatchTexts
		if out, err = s.watches.Texts(r.Context(), stateOf(r).workspace.name, id); err == nil {
			s.writeData(w, r, out)
			return
		}
	}
	s.writeError(w, r, s.watchError(err))
}

func (s *Server) handleWatchRemove(w http.ResponseWriter, r *http.Request) {
	id, err := s.watchOf(r)
	if err == nil {
		if err = s.watches.Remove(r.Context(), stateOf(r).workspace.name, id); err == nil {
			s.writeData(w, r, map[string]any{"removed": id})
			return
		}
	}
	s.writeError(w, r, s.watchError(err))
}

func (s *Server) handleWatchSeen(w http.ResponseWriter, r *http.Request) {
	id, err := s.watchOf(r)
	if err == nil {
		if err = s.watches.Seen(r.Context(), stateOf(r).workspace.name, id); err == nil {
			s.writeData(w, r, map[string]any{"seen": id})
			return
		}
	}
	s.writeError(w, r, s.watchError(err))
}

// handleWatchCheck checks one watch now, or (no id) every one due.
func (s *Server) handleWatchCheck(w http.ResponseWriter, r *http.Request) {
	ws := stateOf(r).workspace.name
	if r.PathValue("id") != "" {
		id, err := s.watchOf(r)
		if err == nil {
			err = s.watches.CheckOne(r.Context(), s.rechecker, ws, id)
		}
		if err != nil {
			s.writeError(w, r, s.watchError(err))
			return
		}
	} else if _, _, err := s.watches.RunDue(r.Context(), s.rechecker, ws); err != nil {
		s.writeError(w, r, err)
		return
	}
	s.handleWatchList(w, r)
}
