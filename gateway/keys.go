package gateway

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"
)

// API keys: looking a key up, and keeping keys and vendor secrets out of
// every message the gateway writes or logs.

type keyEntry struct {
	hash [sha256.Size]byte
	ws   *workspace
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

// looksLikeHarkKey matches auth.NewAPIKey's form, "hark_" and hex digits,
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
	keys := *s.keys.Load()
	for i := range keys {
		if constantTimeEqual(keys[i].hash[:], sum[:]) {
			found = keys[i].ws
		}
	}
	if found == nil {
		return nil, ""
	}
	return found, hex.EncodeToString(sum[:])
}

// keyPoll is how often a gateway reads gateway_keys again, so that a key
// added or revoked by `hark serve keys` on any replica holds here within
// a second. The table is small (one row per key), so the whole of it is
// read; polling needs nothing of the database that SQLite lacks.
const keyPoll = 250 * time.Millisecond

// reloadKeys reads the keys in force from the database and swaps them in.
func (s *Server) reloadKeys(ctx context.Context) error {
	rows, err := s.keyStore.keyRows(ctx)
	if err != nil {
		return fmt.Errorf("read API keys: %w", err)
	}
	active := activeKeys(s.cfgWorkspaces, rows, func(name string) bool { return s.workspaces[name] != nil })
	keys := make([]keyEntry, 0, len(active))
	for _, k := range active {
		var e keyEntry
		b, err := hex.DecodeString(k.hash)
		if err != nil || len(b) != sha256.Size {
			continue // not written by hark: never matches a key
		}
		copy(e.hash[:], b)
		e.ws = s.workspaces[k.Workspace]
		keys = append(keys, e)
	}
	s.keys.Store(&keys)
	return nil
}

// watchKeys reloads the keys every keyPoll until ctx ends. A failed read
// keeps the keys in force and is logged once until a read succeeds.
func (s *Server) watchKeys(ctx context.Context) {
	t := time.NewTicker(keyPoll)
	defer t.Stop()
	failing := false
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
		err := s.reloadKeys(rctx)
		cancel()
		if err != nil && !failing && ctx.Err() == nil {
			s.log.Warn("API keys not re-read; the last ones read stay in force", "error", s.scrub(err.Error()))
		}
		failing = err != nil
	}
}
