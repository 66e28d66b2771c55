package gateway

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/store"
)

// On gateway.db too, a key added by another process (`hark serve keys`
// opens the file itself) works within a second, and stops within a second
// of its revocation; list shows no secret, and bad input names its field.
func TestSQLiteKeysAddRevoke(t *testing.T) {
	dir := t.TempDir()
	g := startGatewayIn(t, dir)
	db, err := store.OpenDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	admin := auth.NewStore(store.FromSQLite(db)) // what `hark serve keys` opens
	ctx := context.Background()
	cfg := g.cfg
	if _, _, err := admin.Add(ctx, cfg, names(cfg), auth.New{Workspace: "nosuch"}, time.Now()); err == nil || !strings.Contains(err.Error(), `workspace: "nosuch" is not a workspace of gateway.toml or the database`) {
		t.Fatalf("unknown workspace: %v", err)
	}
	if _, _, err := admin.Add(ctx, cfg, names(cfg), auth.New{Workspace: "partial", Name: "bob\tand\nalice"}, time.Now()); err == nil || !strings.Contains(err.Error(), "name: must be text without control characters") {
		t.Fatalf("a name with a tab: %v", err)
	}
	key, info, err := admin.Add(ctx, cfg, names(cfg), auth.New{Workspace: "partial", Name: "bob"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	waitStatus(t, g.testGW, key, 200, time.Second)
	keys, err := admin.List(ctx, cfg)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range keys {
		found = found || (k.ID == info.ID && k.Name == "bob" && k.Workspace == "partial" && k.Revoked.IsZero())
	}
	if !found || len(keys) != 6 {
		t.Fatalf("ListKeys = %+v", keys)
	}
	if _, err := admin.Revoke(ctx, cfg, "0000beef", time.Now()); err == nil || !strings.Contains(err.Error(), `key ID: no key "0000beef"`) {
		t.Fatalf("unknown ID: %v", err)
	}
	if _, err := admin.Revoke(ctx, cfg, info.ID, time.Now()); err != nil {
		t.Fatal(err)
	}
	waitStatus(t, g.testGW, key, http.StatusUnauthorized, time.Second)
	// The other keys still work.
	if status, _, _ := g.call(t, "POST", invokePath("vendor_search"), g.key, `{"inputs":{"query":"q"}}`); status != 200 {
		t.Fatalf("the local key answers %d", status)
	}
}

// gwIn is a test gateway whose gateway.db is in a known directory.
type gwIn struct {
	*testGW
	cfg *config.Config
}

func startGatewayIn(t *testing.T, dir string) gwIn {
	var cfg *config.Config
	g := startGatewayWith(t, dir, func(c *config.Config) { cfg = c })
	return gwIn{g, cfg}
}

// names are the workspaces of cfg.
func names(cfg *config.Config) []string {
	var out []string
	for _, w := range cfg.Workspaces {
		out = append(out, w.Name)
	}
	return out
}
