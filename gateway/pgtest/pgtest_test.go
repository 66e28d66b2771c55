package pgtest

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// TestStart starts a cluster and talks to it over loopback TCP.
func TestStart(t *testing.T) {
	c := Start(t)
	ctx := context.Background()
	conn, err := pgx.Connect(ctx, c.URL())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var user string
	var n int
	if err := conn.QueryRow(ctx, `SELECT current_user, 40 + 2`).Scan(&user, &n); err != nil {
		t.Fatal(err)
	}
	if user != Superuser || n != 42 {
		t.Fatalf("got %q %d, want %q 42", user, n, Superuser)
	}
}
