package gateway

import (
	"context"
	"fmt"
	"net/http"
	"strconv"
	"time"

	"hark/gateway/usage"
)

// Billing: a call's credits are reserved before it runs and settled when
// it ends (gateway/usage keeps the counts), and every response to an
// authenticated workspace carries the credit headers.

// billed runs call with the workspace's credits reserved, and settles them:
// kept on success, refunded on failure. final, when set, turns the result
// into the credits finally owed (STT bills by audio duration).
func (s *Server) billed(r *http.Request, op string, cost int64, final func(any) int64, call func(context.Context) (any, error)) (any, error) {
	rs := stateOf(r)
	id, err := s.meter.Reserve(r.Context(), rs.workspace.account, rs.keyID, rs.traceID, op, cost)
	if err != nil {
		return nil, err
	}
	start := time.Now()
	out, err := call(r.Context())
	credits := cost
	switch {
	case err != nil:
		credits = 0
	case final != nil:
		credits = final(out)
	}
	s.settle(rs, id, credits, err, time.Since(start))
	return out, err
}

// settle records a finished billable call; the response reports its
// credits in X-Credits-Charged. A usage write that fails is logged: the
// call's answer stands.
func (s *Server) settle(rs *requestState, res *usage.Reservation, credits int64, callErr error, d time.Duration) {
	if err := s.meter.Settle(res, credits, callErr, d); err != nil {
		s.quietLog.Error("usage history", "trace_id", rs.traceID, "workspace", rs.workspace.name, "error", err.Error())
		return
	}
	rs.charged = credits
}

// Credit headers on every response to an authenticated workspace.
const (
	HeaderCreditsUsed    = "X-Credits-Used"    // credits used this quota period, after the call
	HeaderCreditsLimit   = "X-Credits-Limit"   // the quota; absent when unlimited
	HeaderCreditsCharged = "X-Credits-Charged" // what the call cost; 0 for free and failed calls
)

// setCreditHeaders adds the credit headers of rs's workspace, if any:
// Used from the in-memory count (no query on the hot path), Charged only
// when charged is set (a stream's handshake does not know its cost yet).
func (s *Server) setCreditHeaders(h http.Header, rs *requestState, charged bool) {
	ws := rs.workspace
	if ws == nil {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	used, err := s.meter.CreditsUsed(ctx, ws.account)
	if rs.quotaUsed != nil {
		used, err = *rs.quotaUsed, nil
	}
	if err != nil {
		s.quietLog.Warn("credit count", "trace_id", rs.traceID, "workspace", ws.name, "error", err.Error())
	} else {
		h.Set(HeaderCreditsUsed, strconv.FormatInt(used, 10))
	}
	if q, _ := ws.account.Limits(); q > 0 {
		h.Set(HeaderCreditsLimit, strconv.FormatInt(q, 10))
	}
	if charged {
		h.Set(HeaderCreditsCharged, strconv.FormatInt(rs.charged, 10))
	}
}

// Usage returns the newest usage records of a workspace, newest first.
func (s *Server) Usage(ctx context.Context, workspace string, limit int) ([]usage.Record, error) {
	if limit <= 0 {
		limit = 100
	}
	return s.meter.Ledger().Recent(ctx, workspace, limit)
}

// CreditsUsed is a workspace's credits in its current quota period, read
// from the database.
func (s *Server) CreditsUsed(ctx context.Context, workspace string) (int64, error) {
	if ws := s.workspace(workspace); ws != nil {
		return s.meter.Used(ctx, ws.account)
	}
	return 0, fmt.Errorf("unknown workspace %q", workspace)
}
