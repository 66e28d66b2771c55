// Package auth is the gateway's API keys: making them, hashing them (only
// a key's SHA-256 is ever kept), and keeping secrets out of what the
// gateway writes. It answers whether a key is one of a workspace's; it
// does not speak HTTP.
package auth
