package gateway

import (
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// DBFile is the name of the gateway's SQLite database inside the data
// directory. It holds credit usage and the usage history, and the local
// web engine keeps its index in the same file.
const DBFile = "gateway.db"

// OpenDB opens (creating if needed) dataDir/gateway.db in WAL mode with a
// busy timeout, so that the gateway, the local engines and `hark index`
// can share it from several goroutines and processes.
func OpenDB(dataDir string) (*sql.DB, error) {
	if dataDir == "" {
		return nil, fmt.Errorf("open gateway database: data directory is empty")
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("open gateway database: %w", err)
	}
	path := filepath.Join(dataDir, DBFile)
	// Create the file private first: SQLite gives its -wal and -shm files
	// the same mode, and the usage history is nobody else's business.
	if f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600); err == nil {
		f.Close()
	}
	q := url.Values{}
	q.Add("_pragma", "busy_timeout(10000)")
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Add("_pragma", "foreign_keys(ON)")
	q.Set("_txlock", "immediate")
	dsn := "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
	db, err := sql.Open("sqlite", dsn)
	if err != nil {
		return nil, fmt.Errorf("open gateway database %s: %w", path, err)
	}
	if err := db.Ping(); err != nil {
		db.Close()
		return nil, fmt.Errorf("open gateway database %s: %w", path, err)
	}
	return db, nil
}
