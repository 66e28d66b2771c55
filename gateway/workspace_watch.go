package gateway

import (
	"context"
	"sort"
	"time"

	"hark/gateway/auth"
	"hark/gateway/workspaces"
)

// The workspaces in force change while the gateway runs: `hark serve
// workspaces add|set|rm` writes the database, and every gateway on it
// reads the table again every auth.Poll, with the keys. A quota, a period
// or a rate changes in place (the next call sees it); a workspace added
// is built with its engines, one removed is dropped (its keys stop
// working at the keys' next read).

// reloadWorkspaces reads the database's workspaces and applies them.
func (s *Server) reloadWorkspaces(ctx context.Context) error {
	rows, err := s.wsStore.List(ctx)
	if err != nil {
		return err
	}
	cur := *s.workspaces.Load()
	next := make(map[string]*workspace, len(cur))
	changed := false
	for _, wc := range workspaces.Effective(s.config, rows) {
		if ws := cur[wc.Name]; ws != nil {
			ws.account.SetLimits(wc.CreditQuota, wc.QuotaPeriod)
			ws.setRate(wc, s.limits)
			next[wc.Name] = ws
			continue
		}
		var secrets []string // the database keeps none
		ws, err := s.buildWorkspace(wc, s.engines, &secrets)
		if err != nil {
			s.log.Warn("workspace of the database not built; retried at the next read", "workspace", wc.Name, "error", s.redact.Scrub(err.Error()))
			continue
		}
		s.log.Info("workspace added", "workspace", wc.Name)
		next[wc.Name] = ws
		changed = true
	}
	for name := range cur {
		if next[name] == nil {
			s.log.Info("workspace removed", "workspace", name)
			changed = true
		}
	}
	if changed {
		s.workspaces.Store(&next)
	}
	return nil
}

// watchWorkspaces reloads the workspaces every auth.Poll until ctx ends;
// a failed read keeps the ones in force.
func (s *Server) watchWorkspaces(ctx context.Context) {
	t := time.NewTicker(auth.Poll)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := s.reloadWorkspaces(rctx)
		cancel()
		if err != nil && !failing && ctx.Err() == nil {
			s.quietLog.Warn("workspaces not re-read; the last ones read stay in force", "error", s.redact.Scrub(err.Error()))
		}
		failing = err != nil
	}
}

// Workspaces are the names of the workspaces in force.
func (s *Server) Workspaces() []string {
	var out []string
	for name := range *s.workspaces.Load() {
		out = append(out, name)
	}
	sort.Strings(out)
	return out
}
