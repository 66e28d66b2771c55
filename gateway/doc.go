// Package gateway is hark's embedded gateway: an HTTP and WebSocket server
// that speaks the whole gateway interface (../shared/spec/gateway-interface.md)
// in front of engines registered per workspace. It owns authentication,
// input validation, rate limits, credit quotas and usage history; it does
// no searching or speech itself, and it never logs or returns a secret.
package gateway
