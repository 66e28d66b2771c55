package auth

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"hark/gateway/config"
)

// Keys is the set of API keys a gateway accepts: gateway.toml's, less
// those the database revoked, and the database's own. It is read whole
// and swapped in, so that a lookup never waits on the database.
type Keys struct {
	st  *Store
	cfg []config.Workspace
	has func(workspace string) bool
	set atomic.Pointer[[]entry]
}

type entry struct {
	hash      [sha256.Size]byte
	workspace string
	expires   time.Time // zero: never
}

// NewKeys is the key set of cfg's workspaces and st's keys; has says
// whether a workspace is one this gateway serves (a key of another is
// not accepted). Reload reads it; until then no key is accepted.
func NewKeys(st *Store, cfg []config.Workspace, has func(workspace string) bool) *Keys {
	k := &Keys{st: st, cfg: cfg, has: has}
	k.set.Store(&[]entry{})
	return k
}

// Poll is how often a serving gateway reads gateway_keys again, so that
// a key added or revoked by `hark serve keys` on any replica holds here
// within a second. The table is small (one row per key), so the whole of
// it is read; polling needs nothing of the database that SQLite lacks.
const Poll = 250 * time.Millisecond

// Reload reads the keys in force from the database and swaps them in.
func (k *Keys) Reload(ctx context.Context) error {
	rows, err := k.st.rows(ctx)
	if err != nil {
		return fmt.Errorf("read API keys: %w", err)
	}
	active := activeKeys(k.cfg, rows, k.has, time.Now())
	set := make([]entry, 0, len(active))
	for _, a := range active {
		var e entry
		b, err := hex.DecodeString(a.hash)
		if err != nil || len(b) != sha256.Size {
			continue // not written by hark: never matches a key
		}
		copy(e.hash[:], b)
		e.workspace, e.expires = a.Workspace, a.Expires
		set = append(set, e)
	}
	k.set.Store(&set)
	return nil
}

// Watch reloads the keys every Poll until ctx ends. A failed read keeps
// the keys in force and is logged once until a read succeeds; scrub
// cleans the message of anything secret.
func (k *Keys) Watch(ctx context.Context, log *slog.Logger, scrub func(string) string) {
	t := time.NewTicker(Poll)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := k.Reload(rctx)
		cancel()
		if err != nil && !failing && ctx.Err() == nil {
			log.Warn("API keys not re-read; the last ones read stay in force", "error", scrub(err.Error()))
		}
		failing = err != nil
	}
}

// Lookup finds the workspace of an API key and returns the key's hex
// SHA-256; both are "" for a key not accepted. Every stored hash is
// compared, in constant time, whatever matched.
func (k *Keys) Lookup(key string) (workspace, hash string) {
	sum := sha256.Sum256([]byte(key))
	found := ""
	now := time.Now()
	set := *k.set.Load()
	for i := range set {
		if subtle.ConstantTimeCompare(set[i].hash[:], sum[:]) == 1 && (set[i].expires.IsZero() || now.Before(set[i].expires)) {
			found = set[i].workspace
		}
	}
	if found == "" {
		return "", ""
	}
	return found, hex.EncodeToString(sum[:])
}
