package store

import (
	"bytes"
	"database/sql"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestOpenDBUsesWAL(t *testing.T) {
	t.Parallel()
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

// Files that are not hark's gateway database are refused and left as they
// were; an older hark's unmarked gateway.db is taken and marked.
func TestOpenDBRefusesForeignFiles(t *testing.T) {
	t.Parallel()
	write := func(t *testing.T, setup string) string {
		dir := t.TempDir()
		db, err := sql.Open("sqlite", filepath.Join(dir, DBFile))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := db.Exec(setup); err != nil {
			t.Fatal(err)
		}
		db.Close()
		return dir
	}
	for name, setup := range map[string]string{
		"another program's tables": `CREATE TABLE accounts(x); INSERT INTO accounts VALUES(1)`,
		"another application id":   `PRAGMA application_id = 42; CREATE TABLE gateway_usage(x)`,
	} {
		t.Run(name, func(t *testing.T) {
			dir := write(t, setup)
			path := filepath.Join(dir, DBFile)
			before, _ := os.ReadFile(path)
			if db, err := OpenDB(dir); err == nil || !strings.Contains(err.Error(), "left as it is") {
				if db != nil {
					db.Close()
				}
				t.Fatalf("OpenDB = %v, want a refusal", err)
			}
			if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
				t.Error("the file was changed")
			}
			if _, err := os.Stat(path + "-wal"); err == nil {
				t.Error("the file was switched to WAL")
			}
		})
	}
	t.Run("not SQLite", func(t *testing.T) {
		dir := t.TempDir()
		junk := []byte(strings.Repeat("not a database ", 100))
		os.WriteFile(filepath.Join(dir, DBFile), junk, 0o600)
		if _, err := OpenDB(dir); err == nil || !strings.Contains(err.Error(), "not an SQLite database") {
			t.Fatalf("OpenDB = %v", err)
		}
	})
	t.Run("older hark", func(t *testing.T) {
		dir := write(t, `CREATE TABLE gateway_usage(x); CREATE TABLE web_pages(y)`)
		db, err := OpenDB(dir)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		var id int64
		db.QueryRow(`PRAGMA application_id`).Scan(&id)
		if id != applicationID {
			t.Errorf("application_id %#x, want %#x", id, applicationID)
		}
	})
}
