// Package gateway is hark's embedded gateway's HTTP: an HTTP and WebSocket
// server that speaks the whole gateway interface
// (../shared/spec/gateway-interface.md) in front of engines registered per
// workspace. It holds the routes, the middleware, the handlers and the
// streams, and maps every error to its response in one place; each other
// concern is a package of its own: settings (gateway/config), the
// database and its migrations (gateway/store), keys (gateway/auth),
// credits and usage (gateway/usage), rate limits and admission
// (gateway/limits), durable jobs (gateway/jobs). It does no searching or
// speech itself, and it never logs or returns a secret.
package gateway
