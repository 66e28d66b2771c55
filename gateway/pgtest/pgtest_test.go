package pgtest

import (
	"context"
	"fmt"
	"runtime"
	"strings"
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

// fatalRecorder catches a Fatalf, ending only the goroutine that called it.
type fatalRecorder struct {
	testing.TB
	msg string
}

func (f *fatalRecorder) Fatalf(format string, args ...any) {
	f.msg = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// Without the binaries the test fails and says how to install them: a
// silent skip would let CI pass without ever testing PostgreSQL.
func TestStartWithoutBinariesFails(t *testing.T) {
	old := BinDir
	BinDir = t.TempDir()
	defer func() { BinDir = old }()
	f := &fatalRecorder{TB: t}
	done := make(chan struct{})
	go func() {
		defer close(done)
		Start(f)
	}()
	<-done
	if !strings.Contains(f.msg, "PostgreSQL 15 is not installed") || !strings.Contains(f.msg, "run scripts/setup.sh") {
		t.Fatalf("message %q", f.msg)
	}
}
