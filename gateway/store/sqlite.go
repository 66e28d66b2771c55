package store

import (
	"bytes"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"
)

// DBFile is the name of the gateway's SQLite database inside the data
// directory. It holds credit usage and the usage history, and the local
// web engine keeps its index in the same file.
const DBFile = "gateway.db"

// applicationID marks gateway.db as hark's ("hkgw") in SQLite's header,
// so that a foreign database put in its place is refused untouched.
const applicationID = 0x686b6777

// DBOptions bound the database's connections. Every connection of a
// SQLite file holds three descriptors (the file, -wal, -shm); without a
// bound each concurrent request opened its own, and a burst exhausted
// the process's descriptors.
type DBOptions struct {
	MaxConns int // open connections; default Limits.MaxDBConns's default
	// IdleTime closes a connection unused this long, so that the
	// descriptors of a burst are given back after it. Default 2 s.
	IdleTime time.Duration
}

// OpenDB opens (creating if needed) dataDir/gateway.db in WAL mode with a
// busy timeout and the default connection bound, so that the gateway, the
// local engines and `hark index` can share it from several goroutines and
// processes. A file that is not hark's gateway database is refused and
// left as it is.
func OpenDB(dataDir string) (*sql.DB, error) {
	return OpenDBWith(dataDir, DBOptions{})
}

// OpenDBWith is OpenDB with its connection bound set.
func OpenDBWith(dataDir string, o DBOptions) (*sql.DB, error) {
	if dataDir == "" {
		return nil, fmt.Errorf("open gateway database: data directory is empty")
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, fmt.Errorf("open gateway database: %w", err)
	}
	path := filepath.Join(dataDir, DBFile)
	if err := checkDBFile(path); err != nil {
		return nil, err
	}
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
	// Reads through a memory map, not a read(2) per page: a search reads
	// the rows of pages of 100 KB and more (their columns after the body
	// lie past its overflow pages), which cost a system call per 4 KB
	// page without it (issue #41). Address space, not memory: the kernel
	// pages it in and out as the file's cache.
	q.Add("_pragma", "mmap_size(268435456)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", sqliteDSN(path, q))
	if err != nil {
		return nil, fmt.Errorf("open gateway database %s: %w", path, err)
	}
	if o.MaxConns <= 0 {
		o.MaxConns = 4 * runtime.NumCPU()
	}
	if o.IdleTime <= 0 {
		o.IdleTime = 2 * time.Second
	}
	db.SetMaxOpenConns(o.MaxConns)
	db.SetMaxIdleConns(o.MaxConns)
	db.SetConnMaxIdleTime(o.IdleTime)
	var id int64
	err = db.QueryRow(`PRAGMA application_id`).Scan(&id)
	if err == nil && id != applicationID { // a new file, or an older hark's
		_, err = db.Exec(fmt.Sprintf(`PRAGMA application_id = %d`, applicationID))
	}
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("open gateway database %s: %w", path, err)
	}
	return db, nil
}

func sqliteDSN(path string, q url.Values) string {
	return "file:" + (&url.URL{Path: path}).EscapedPath() + "?" + q.Encode()
}

// Tables a gateway.db made before it carried applicationID may hold.
var legacyTables = []string{"gateway_", "web_", "sqlite_"}

// checkDBFile refuses, without writing to it, a file at path that is not
// a gateway database: not SQLite, another program's (application_id), or
// an unmarked database holding tables hark never made. A missing or empty
// file is a new database.
func checkDBFile(path string) error {
	f, err := os.Open(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("open gateway database %s: %w", path, err)
	}
	var head [100]byte
	n, err := io.ReadFull(f, head[:])
	f.Close()
	if n == 0 {
		return nil // made by an earlier open that stopped before writing
	}
	refuse := func(why string) error {
		return fmt.Errorf("open gateway database %s: %s; it is left as it is: move it away or choose another data directory", path, why)
	}
	if err != nil || !bytes.HasPrefix(head[:], []byte("SQLite format 3\x00")) {
		return refuse("not an SQLite database")
	}
	id := binary.BigEndian.Uint32(head[68:72])
	switch {
	case id == applicationID:
		return nil
	case id != 0:
		return refuse(fmt.Sprintf("another program's database (application id %#x)", id))
	}
	// Unmarked: an older hark's gateway.db, or a foreign one. Read its
	// tables read-only (WAL-aware, so changes not yet checkpointed count).
	ro, err := sql.Open("sqlite", sqliteDSN(path, url.Values{"mode": {"ro"}}))
	if err != nil {
		return fmt.Errorf("open gateway database %s: %w", path, err)
	}
	defer ro.Close()
	if err := ro.QueryRow(`PRAGMA application_id`).Scan(&id); err != nil {
		return refuse(err.Error())
	}
	if id == applicationID {
		return nil
	}
	if id != 0 {
		return refuse(fmt.Sprintf("another program's database (application id %#x)", id))
	}
	rows, err := ro.Query(`SELECT name FROM sqlite_master`)
	if err != nil {
		return refuse(err.Error())
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return refuse(err.Error())
		}
		known := false
		for _, p := range legacyTables {
			known = known || strings.HasPrefix(name, p)
		}
		if !known {
			return refuse(fmt.Sprintf("a database of another program (it holds %q)", name))
		}
	}
	return rows.Err()
}
