// Package gatewaytest starts hark's own gateway on loopback for the tests
// of its clients (ui, cli), with the real engines they are given. Tests
// that need a scripted gateway use api/apitest instead.
package gatewaytest

import (
	"context"
	"database/sql"
	"net"
	"testing"
	"time"

	"hark/gateway"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/store"
)

// Serve starts a gateway over db and engines with one local workspace
// whose API key is key, on 127.0.0.1, and returns its base URL. It shuts
// down when the test ends.
func Serve(tb testing.TB, db *sql.DB, key string, engines gateway.Engines) string {
	tb.Helper()
	return ServeWorkspace(tb, db, config.LocalWorkspace(auth.HashKey(key)), engines)
}

// ServeWorkspace is Serve with the workspace given (its keys, its voice
// providers), as config.LocalWorkspace's changed by a test.
func ServeWorkspace(tb testing.TB, db *sql.DB, ws config.Workspace, engines gateway.Engines) string {
	tb.Helper()
	srv, err := gateway.New(gateway.Options{
		Config:  &config.Config{Workspaces: []config.Workspace{ws}},
		DB:      store.FromSQLite(db),
		Engines: engines,
	})
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	go srv.Serve(ln)
	tb.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		srv.Shutdown(ctx)
	})
	return "http://" + ln.Addr().String()
}
