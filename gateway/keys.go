package gateway

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
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
