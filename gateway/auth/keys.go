package auth

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// HashKey returns the hex SHA-256 of an API key, the form gateway.toml
// and the database store.
func HashKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

// NewAPIKey returns a fresh random API key: "hark_" and 64 hex digits, so it
// is also a valid WebSocket subprotocol token ("bearer.hark_...").
func NewAPIKey() (string, error) {
	var b [32]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("generate API key: %w", err)
	}
	return "hark_" + hex.EncodeToString(b[:]), nil
}
