package gateway

import (
	"path/filepath"
	"testing"
)

func TestOpenDBUsesWAL(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data dir")
	db, err := OpenDB(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	var mode string
	if err := db.QueryRow("PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" {
		t.Fatalf("journal_mode = %q, want wal", mode)
	}
	var busy int
	if err := db.QueryRow("PRAGMA busy_timeout").Scan(&busy); err != nil {
		t.Fatal(err)
	}
	if busy < 1000 {
		t.Fatalf("busy_timeout = %d, want >= 1000", busy)
	}
	if _, err := OpenDB(""); err == nil {
		t.Fatal("OpenDB(\"\") succeeded, want error")
	}
}
