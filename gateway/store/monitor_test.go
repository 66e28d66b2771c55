package store

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a log sink safe for the monitor's goroutine.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// On gateway.db: a warning while the database answers is logged as it
// is; once the file cannot be opened, the outage is logged once and the
// warnings after it are held back and summed up; when the file is back,
// "recovered". (PostgreSQL's outage: TestPGOutageIsLoggedQuietly in
// package gateway.)
func TestMonitorOnSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	raw, err := OpenDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer raw.Close()
	raw.SetMaxIdleConns(0) // every ping opens the file anew
	var logs lockedBuffer
	m := NewMonitor(FromSQLite(raw), slog.New(slog.NewTextHandler(&logs, nil)))
	m.FirstSummary, m.PingEvery = 300*time.Millisecond, 50*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go m.Run(ctx)
	quiet := slog.New(m.Quiet(slog.NewTextHandler(&logs, nil)))

	quiet.Warn("a warning while the database answers")
	if !strings.Contains(logs.String(), "a warning while the database answers") || m.Down() {
		t.Fatalf("a warning was held back while the database answered:\n%s", logs.String())
	}
	path := filepath.Join(dir, DBFile)
	if err := os.Rename(path, path+".away"); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(path, 0o700); err != nil { // what opens now is no database
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond) // judged at most once a second
	for range 50 {
		quiet.Error("Error fetching jobs")
	}
	if !m.Down() {
		t.Fatalf("the monitor did not see the database go:\n%s", logs.String())
	}
	time.Sleep(500 * time.Millisecond)
	out := logs.String()
	if n := strings.Count(out, "database unavailable"); n != 1 || strings.Contains(out, "Error fetching jobs") {
		t.Fatalf("the outage logged %d times, or its errors got through:\n%s", n, out)
	}
	if !strings.Contains(out, "database still unavailable") {
		t.Errorf("no summary after 300 ms:\n%s", out)
	}
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(path+".away", path); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); m.Down(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("not recovered:\n%s", logs.String())
		}
	}
	if !strings.Contains(logs.String(), "database recovered") {
		t.Fatalf("no recovery line:\n%s", logs.String())
	}
	quiet.Warn("a warning after the recovery")
	if !strings.Contains(logs.String(), "a warning after the recovery") {
		t.Fatalf("warnings are still held back after the recovery:\n%s", logs.String())
	}
}
