// Package library keeps what a researcher found: every research report,
// search, extracted page, crawl and map that came back from a gateway,
// with the time, the gateway and the trace_id, in one SQLite file of the
// client's data directory. It is the client's, not the embedded
// gateway's: a remote gateway's results are kept the same way. Full-text
// search (FTS5) runs over titles, queries and bodies, offline.
package library

import (
	"bytes"
	"cmp"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	_ "modernc.org/sqlite" // pure-Go SQLite driver, registered as "sqlite"

	"hark/api"
)

// File is the library's file name inside the data directory.
const File = "library.db"

// Kinds of item.
const (
	KindResearch = "research"
	KindSearch   = "search"
	KindPage     = "page"
	KindCrawl    = "crawl"
	KindMap      = "map"
)

// Kinds lists the kinds, in the order filters offer them.
var Kinds = []string{KindResearch, KindSearch, KindPage, KindCrawl, KindMap}

// busyTimeout is how long a write waits for another process's lock.
var busyTimeout = 5 * time.Second

// applicationID marks a SQLite file as a hark library ("hark").
const applicationID = 0x6861726b

// Item is one thing kept.
type Item struct {
	ID      int64     `json:"id"`
	Kind    string    `json:"kind"`
	Tool    string    `json:"tool"`
	Title   string    `json:"title"`
	Query   string    `json:"query,omitempty"` // the question, query or URL asked
	URL     string    `json:"url,omitempty"`   // a page's or a crawl's URL
	Body    string    `json:"body,omitempty"`  // markdown: the report, the page, the results
	Inputs  string    `json:"inputs,omitempty"`
	Output  string    `json:"output,omitempty"` // the tool's output, JSON as received
	Gateway string    `json:"gateway"`
	TraceID string    `json:"trace_id,omitempty"`
	Created time.Time `json:"created"`
	// Snippet is, in search hits, the matching words in their context;
	// in lists, the start of the body.
	Snippet string `json:"snippet,omitempty"`
}

// ErrNotFound is returned for an ID the library does not hold.
var ErrNotFound = errors.New("no such item in the library")

// ErrNoWords is a search query that is not blank yet holds no word (no
// letter or digit: "?", "--", "…"): it would match nothing, and searching
// for nothing is not listing everything.
var ErrNoWords = errors.New("query: has no words: a search matches words (letters or digits), and punctuation alone matches nothing")

// Store is an open library.
type Store struct {
	db   *sql.DB
	path string

	keyMu sync.Mutex
	keys  []string // the client's own API keys, kept out of what is written
}

// RedactKey keeps key (the client's API key) out of every item Add
// writes, in any case, with or without its "hark_" prefix; anything with
// the shape of a hark key is kept out without being named
// (api.RedactKeys). Keys shorter than 8 characters are not taken: they
// would blank out ordinary words.
func (s *Store) RedactKey(key string) {
	if len(key) < 8 {
		return
	}
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	s.keys = append(s.keys, strings.ToLower(key))
}

func (s *Store) isKey(tok string) bool {
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	for _, k := range s.keys {
		if strings.EqualFold(tok, k) || strings.EqualFold("hark_"+tok, k) {
			return true
		}
	}
	return false
}

// redact keeps API keys out of an item's text before it is written: a
// key in a URL the user crawled, in a query, or in a page's content.
func (s *Store) redact(it *Item) {
	for _, f := range []*string{&it.Title, &it.Query, &it.URL, &it.Body, &it.Inputs, &it.Output} {
		*f = api.RedactKeys(*f, s.isKey)
	}
}

const schema = `
CREATE TABLE IF NOT EXISTS items (
	id       INTEGER PRIMARY KEY,
	kind     TEXT NOT NULL,
	tool     TEXT NOT NULL,
	title    TEXT NOT NULL,
	query    TEXT NOT NULL DEFAULT '',
	url      TEXT NOT NULL DEFAULT '',
	body     TEXT NOT NULL DEFAULT '',
	inputs   TEXT NOT NULL DEFAULT '',
	output   TEXT NOT NULL DEFAULT '',
	gateway  TEXT NOT NULL DEFAULT '',
	trace_id TEXT NOT NULL DEFAULT '',
	created  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS items_created ON items(created);
CREATE INDEX IF NOT EXISTS items_kind ON items(kind, created);
-- What Add looks up to replace an older copy: a search by its query, a
-- page by its URL (without them, every keep scanned the table).
CREATE INDEX IF NOT EXISTS items_kind_query ON items(kind, query);
CREATE INDEX IF NOT EXISTS items_kind_url ON items(kind, url);
CREATE VIRTUAL TABLE IF NOT EXISTS items_fts USING fts5(
	title, query, body, content='items', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3 4'
);
CREATE TRIGGER IF NOT EXISTS items_ai AFTER INSERT ON items BEGIN
	INSERT INTO items_fts(rowid, title, query, body) VALUES (new.id, new.title, new.query, new.body);
END;
CREATE TRIGGER IF NOT EXISTS items_ad AFTER DELETE ON items BEGIN
	INSERT INTO items_fts(items_fts, rowid, title, query, body) VALUES ('delete', old.id, old.title, old.query, old.body);
END;
`

// Open opens the library in dir, creating it when the file does not
// exist. A file that is not a hark library (corrupted, or something
// else) is an error naming it: it is never recreated or overwritten. Two
// processes may use one library at once (WAL, a busy timeout); a lock
// held past the timeout is reported.
func Open(dir string) (*Store, error) {
	if dir == "" {
		return nil, errors.New("library: data directory is empty")
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("library: %w", err)
	}
	path := filepath.Join(dir, File)
	fresh := false
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		fresh = true
		if f, err := os.OpenFile(path, os.O_RDONLY|os.O_CREATE, 0o600); err == nil {
			f.Close()
		}
	case err != nil:
		return nil, fmt.Errorf("library %s: %w", path, err)
	case fi.Size() == 0 && !hasWAL(path):
		// An empty file with no log beside it held a library once, or
		// never did; either way making a new one here would hide the loss.
		return nil, fmt.Errorf("library %s is empty (0 bytes): whatever it held is lost; it is left as it is: move it away to start a new library", path)
	default:
		// Check the file before the connection's pragmas switch it to WAL.
		if err := checkLibraryFile(path); err != nil {
			return nil, err
		}
	}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeout.Milliseconds()))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?"+q.Encode())
	if err != nil {
		return nil, fmt.Errorf("library %s: %w", path, err)
	}
	s := &Store{db: db, path: path}
	if err := s.init(fresh); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// hasWAL reports a non-empty write-ahead log beside path: a library whose
// writes were never checkpointed into its (still empty) main file.
func hasWAL(path string) bool {
	fi, err := os.Stat(path + "-wal")
	return err == nil && fi.Size() > 0
}

// checkLibraryFile refuses, reading only, a file that is not SQLite or is
// another program's database (its header's application_id). An unmarked
// database is looked at by init, once open.
func checkLibraryFile(path string) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("library %s: %w", path, err)
	}
	defer f.Close()
	var head [100]byte
	n, _ := io.ReadFull(f, head[:])
	if n == 0 && hasWAL(path) {
		return nil
	}
	if n < len(head) || !bytes.HasPrefix(head[:], []byte("SQLite format 3\x00")) {
		return fmt.Errorf("library %s is damaged (not an SQLite database); it is left as it is: move it away to start a new one, or set library = false", path)
	}
	if id := binary.BigEndian.Uint32(head[68:72]); id != 0 && id != applicationID {
		return fmt.Errorf("library %s is not a hark library (application id %#x); it is left as it is: move it away to start a new one", path, id)
	}
	if id := binary.BigEndian.Uint32(head[68:72]); id == 0 {
		// Unmarked in the file: read it without changing it (WAL-aware).
		ro, err := sql.Open("sqlite", "file:"+(&url.URL{Path: path}).EscapedPath()+"?mode=ro")
		if err != nil {
			return fmt.Errorf("library %s: %w", path, err)
		}
		defer ro.Close()
		var id, tables int64
		if err := ro.QueryRow(`PRAGMA application_id`).Scan(&id); err != nil {
			return fmt.Errorf("library %s is damaged (%v); it is left as it is: move it away to start a new one, or set library = false", path, err)
		}
		ro.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&tables)
		if id != applicationID && tables > 0 {
			return fmt.Errorf("library %s is not a hark library (application id %#x); it is left as it is: move it away to start a new one", path, id)
		}
	}
	return nil
}

// schemaVersion is user_version once the schema is made; an open of a
// library at this version skips the CREATE statements. Version 2 added
// the indexes Add's replacing looks up; a version 1 library gets them on
// its next open (the statements are all IF NOT EXISTS). Version 3 added
// highlights (highlights.go) and what exports sent.
const schemaVersion = 3

func (s *Store) init(fresh bool) error {
	var id, version int64
	if err := s.db.QueryRow(`PRAGMA application_id`).Scan(&id); err != nil {
		return s.fault(err)
	}
	if err := s.db.QueryRow(`PRAGMA user_version`).Scan(&version); err != nil {
		return s.fault(err)
	}
	switch {
	case id == applicationID && version >= schemaVersion:
		// A newer hark's library keeps its version: its schema holds ours.
		return nil
	case id == applicationID:
	case fresh || id == 0 && s.empty():
		if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA application_id = %d`, applicationID)); err != nil {
			return s.fault(err)
		}
	default:
		return fmt.Errorf("library %s is not a hark library (application id %#x); it is left as it is: move it away to start a new one", s.path, id)
	}
	if _, err := s.db.Exec(schema + highlightSchema); err != nil {
		return s.fault(err)
	}
	if _, err := s.db.Exec(fmt.Sprintf(`PRAGMA user_version = %d`, schemaVersion)); err != nil {
		return s.fault(err)
	}
	return nil
}

// empty reports whether the database has no tables (a file made but never
// initialised).
func (s *Store) empty() bool {
	var n int
	return s.db.QueryRow(`SELECT count(*) FROM sqlite_master`).Scan(&n) == nil && n == 0
}

// fault says what went wrong with the file, and what to do.
func (s *Store) fault(err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "not a database") || strings.Contains(msg, "malformed") || strings.Contains(msg, "corrupt"):
		return fmt.Errorf("library %s is damaged (%v); it is left as it is: move it away to start a new one, or set library = false", s.path, err)
	case strings.Contains(msg, "locked") || strings.Contains(msg, "busy"):
		return fmt.Errorf("library %s is locked by another process and stayed locked for %v (%v)", s.path, busyTimeout, err)
	}
	return fmt.Errorf("library %s: %w", s.path, err)
}

// Path is the library's file.
func (s *Store) Path() string { return s.path }

// Close closes the library.
func (s *Store) Close() error { return s.db.Close() }

// The older copies Add replaces, found through items_kind_url and
// items_kind_query; and the search a page opened from a result's text
// came from (a search's body lists each result as [title](url)), among
// the newest searches.
const (
	searchTraceOf = `SELECT trace_id FROM (SELECT trace_id, body FROM items WHERE kind = ? AND gateway = ? ORDER BY created DESC, id DESC LIMIT 50)
		WHERE instr(body, ?) > 0 LIMIT 1`
	deleteSameCopy = `DELETE FROM items WHERE kind = ? AND url = ? AND body = ?`
	// A job's result already kept: attached to again, or kept by the
	// background run that ran it and then by an attach.
	sameJobResult    = `SELECT id FROM items WHERE kind = ? AND trace_id = ? AND gateway = ? AND url = ? LIMIT 1`
	deleteSearchCopy = `DELETE FROM items WHERE kind = ? AND query = ? AND inputs = ? AND gateway = ?`
	// The gateway's newest search, when it is of the same query and was
	// kept at most searchRunGap before.
	deleteSearchRun = `DELETE FROM items WHERE id = (SELECT id FROM items WHERE kind = ? AND gateway = ? ORDER BY created DESC, id DESC LIMIT 1)
		AND query = ? AND created >= ?`
)

// searchRunGap bounds a run of changes to one query: searches of the same
// query, one after another with no other search between, each within
// this time of the one before.
const searchRunGap = 10 * time.Minute

// Add keeps items and sets their IDs (and Created, when zero). A page, a
// map or a crawl kept again (same URL and body) replaces its older copy,
// and so does a search run again with the same query and options on the
// same gateway, so reopening and re-running do not pile up duplicates. A
// run of changes to one query (the Search pane's + - a: the same query
// searched again with other options, no other search between, each
// within searchRunGap of the last) keeps its last step alone.
func (s *Store) Add(ctx context.Context, items ...*Item) error {
	if len(items) == 0 {
		return nil
	}
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fault(err)
	}
	defer tx.Rollback()
	for _, it := range items {
		if it.Created.IsZero() {
			it.Created = time.Now()
		}
		s.redact(it)
		if strings.HasPrefix(it.TraceID, api.JobTracePrefix) {
			// One job, one item: kept again, it keeps its ID (and the
			// highlights made on it).
			err := tx.QueryRowContext(ctx, sameJobResult, it.Kind, it.TraceID, it.Gateway, it.URL).Scan(&it.ID)
			if err == nil {
				continue
			}
			if !errors.Is(err, sql.ErrNoRows) {
				return s.fault(err)
			}
		}
		switch it.Kind {
		case KindPage, KindMap, KindCrawl:
			if _, err := tx.ExecContext(ctx, deleteSameCopy, it.Kind, it.URL, it.Body); err != nil {
				return s.fault(err)
			}
		case KindSearch:
			// The same query with the same options, run again (the
			// Search pane re-runs as options change back and forth),
			// and the step before in a run of changes to the query.
			if _, err := tx.ExecContext(ctx, deleteSearchCopy, KindSearch, it.Query, it.Inputs, it.Gateway); err != nil {
				return s.fault(err)
			}
			since := it.Created.Add(-searchRunGap).UnixMilli()
			if _, err := tx.ExecContext(ctx, deleteSearchRun, KindSearch, it.Gateway, it.Query, since); err != nil {
				return s.fault(err)
			}
		}
		if it.Kind == KindPage && it.Tool == api.ToolSearch && it.TraceID == "" && it.URL != "" {
			// A page opened from a search result's text came with no
			// call of its own: it carries the trace_id of the search
			// that brought it, the newest of this gateway's that lists it.
			var trace string
			err := tx.QueryRowContext(ctx, searchTraceOf, KindSearch, it.Gateway, "("+it.URL+")").Scan(&trace)
			if err != nil && !errors.Is(err, sql.ErrNoRows) {
				return s.fault(err)
			}
			it.TraceID = trace
		}
		res, err := tx.ExecContext(ctx, `INSERT INTO items(kind, tool, title, query, url, body, inputs, output, gateway, trace_id, created)
			VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			it.Kind, it.Tool, it.Title, it.Query, it.URL, it.Body, it.Inputs, it.Output, it.Gateway, it.TraceID, it.Created.UnixMilli())
		if err != nil {
			return s.fault(err)
		}
		if it.ID, err = res.LastInsertId(); err != nil {
			return s.fault(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fault(err)
	}
	return nil
}

const listColumns = `id, kind, tool, title, query, url, gateway, trace_id, created`

func scanListed(rows *sql.Rows, extra ...any) (Item, error) {
	var it Item
	var ms int64
	err := rows.Scan(append([]any{&it.ID, &it.Kind, &it.Tool, &it.Title, &it.Query, &it.URL, &it.Gateway, &it.TraceID, &ms}, extra...)...)
	it.Created = time.UnixMilli(ms)
	return it, err
}

// Get returns one item whole (body, inputs and output included).
func (s *Store) Get(ctx context.Context, id int64) (Item, error) {
	var it Item
	var ms int64
	err := s.db.QueryRowContext(ctx, `SELECT id, kind, tool, title, query, url, body, inputs, output, gateway, trace_id, created FROM items WHERE id = ?`, id).
		Scan(&it.ID, &it.Kind, &it.Tool, &it.Title, &it.Query, &it.URL, &it.Body, &it.Inputs, &it.Output, &it.Gateway, &it.TraceID, &ms)
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, fmt.Errorf("item %d: %w", id, ErrNotFound)
	}
	if err != nil {
		return Item{}, s.fault(err)
	}
	it.Created = time.UnixMilli(ms)
	return it, nil
}

// List returns items newest first, without their bodies and outputs;
// kind "" lists every kind, limit <= 0 means no limit.
func (s *Store) List(ctx context.Context, kind string, limit int) ([]Item, error) {
	q := `SELECT ` + listColumns + `, substr(body, 1, 600) FROM items`
	var args []any
	if kind != "" {
		q += ` WHERE kind = ?`
		args = append(args, kind)
	}
	q += ` ORDER BY created DESC, id DESC`
	if limit > 0 {
		q += ` LIMIT ?`
		args = append(args, limit)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	var out []Item
	for rows.Next() {
		var head string
		it, err := scanListed(rows, &head)
		if err != nil {
			return nil, s.fault(err)
		}
		it.Snippet = preview(head)
		out = append(out, it)
	}
	return out, rows.Err()
}

// preview is the start of a body as one line of text, headings left
// out (the first repeats the title), for a list.
func preview(body string) string {
	var keep []string
	for _, l := range strings.Split(body, "\n") {
		if t := strings.TrimSpace(l); t != "" && !strings.HasPrefix(t, "#") && !strings.HasPrefix(t, "<!--") {
			keep = append(keep, t)
		}
	}
	s := PlainText(strings.Join(keep, "\n"))
	if r := []rune(s); len(r) > 160 {
		s = string(r[:160]) + "…"
	}
	return s
}

// Search finds items whose title, query or body holds every word of
// query, the last word as a prefix (so it works as you type), best match
// first; kind "" searches every kind. Hits carry a Snippet. A blank
// query lists the newest items; one of punctuation alone is ErrNoWords.
//
// The best match is looked for among the newest searchCandidates items
// that match: FTS5 walks matches newest first and stops there, so a word
// in nearly every item costs no more than a rare one (ranking every match
// of a common word in 10,000 items took 70 ms; see BENCHMARKS.md).
func (s *Store) Search(ctx context.Context, query, kind string, limit int) ([]Item, error) {
	match := matchExpr(query)
	if match == "" {
		if strings.TrimSpace(query) != "" {
			return nil, ErrNoWords
		}
		return s.List(ctx, kind, limit)
	}
	q := `SELECT ` + prefixed(listColumns, "items.") + `, bm25(items_fts, 5.0, 3.0, 1.0)
		FROM items_fts JOIN items ON items.id = items_fts.rowid WHERE items_fts MATCH ?`
	args := []any{match}
	if kind != "" {
		q += ` AND items.kind = ?`
		args = append(args, kind)
	}
	q += ` ORDER BY items_fts.rowid DESC LIMIT ?`
	args = append(args, searchCandidates)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.fault(err)
	}
	type hit struct {
		Item
		score float64
	}
	var hits []hit
	for rows.Next() {
		var score float64
		it, err := scanListed(rows, &score)
		if err != nil {
			rows.Close()
			return nil, s.fault(err)
		}
		hits = append(hits, hit{it, score})
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, s.fault(err)
	}
	// bm25 is lower for better matches; ties go to the newer item.
	slices.SortStableFunc(hits, func(a, b hit) int { return cmp.Compare(a.score, b.score) })
	if limit > 0 && len(hits) > limit {
		hits = hits[:limit]
	}
	// Snippets are made here, for the hits returned only: FTS5's
	// snippet() for every candidate cost more than the search.
	out := make([]Item, len(hits))
	ids := make([]string, len(hits))
	at := map[int64]int{}
	for i, h := range hits {
		out[i], ids[i], at[h.ID] = h.Item, strconv.FormatInt(h.ID, 10), i
	}
	if len(ids) == 0 {
		return out, nil
	}
	brows, err := s.db.QueryContext(ctx, `SELECT id, body FROM items WHERE id IN (`+strings.Join(ids, ",")+`)`)
	if err != nil {
		return nil, s.fault(err)
	}
	defer brows.Close()
	words := queryWords(query)
	for brows.Next() {
		var id int64
		var body string
		if err := brows.Scan(&id, &body); err != nil {
			return nil, s.fault(err)
		}
		out[at[id]].Snippet = snippet(PlainText(body), words, 12)
	}
	return out, brows.Err()
}

// queryWords are the lower-cased words of a query.
func queryWords(q string) []string {
	return strings.FieldsFunc(strings.ToLower(q), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// snippet is about n words of text around the first word that starts
// with one of words, with … where text was cut.
func snippet(text string, words []string, n int) string {
	fields := strings.Fields(text)
	at := 0
	for i, f := range fields {
		f = strings.ToLower(strings.TrimFunc(f, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }))
		if slices.ContainsFunc(words, func(w string) bool { return strings.HasPrefix(f, w) }) {
			at = i
			break
		}
	}
	from := max(0, at-n/3)
	to := min(len(fields), from+n)
	s := strings.Join(fields[from:to], " ")
	if from > 0 {
		s = "…" + s
	}
	if to < len(fields) {
		s += "…"
	}
	return s
}

// searchCandidates bounds the matches Search ranks.
const searchCandidates = 200

func prefixed(cols, p string) string {
	parts := strings.Split(cols, ", ")
	for i := range parts {
		parts[i] = p + parts[i]
	}
	return strings.Join(parts, ", ")
}

// matchExpr turns what the user typed into an FTS5 query: every word
// must appear, each quoted (so punctuation and FTS5 operators are just
// text), the last one as a prefix when it has two letters or more (a
// one-letter prefix matches nearly every word, and costs seconds on a
// large library; the prefix indexes cover two to four letters).
func matchExpr(query string) string {
	words := strings.FieldsFunc(query, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
	for i, w := range words {
		words[i] = `"` + w + `"`
		if i == len(words)-1 && utf8.RuneCountInString(w) >= 2 {
			words[i] += "*"
		}
	}
	return strings.Join(words, " ")
}

// Delete removes one item.
func (s *Store) Delete(ctx context.Context, id int64) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM items WHERE id = ?`, id)
	if err != nil {
		return s.fault(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("item %d: %w", id, ErrNotFound)
	}
	return nil
}

// NotFoundError names the IDs a call asked for that the library does not
// hold; it is an ErrNotFound.
type NotFoundError struct{ IDs []int64 }

func (e *NotFoundError) Error() string {
	ids := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		ids[i] = strconv.FormatInt(id, 10)
	}
	return fmt.Sprintf("item %s: %v", strings.Join(ids, ", "), ErrNotFound)
}

func (e *NotFoundError) Is(target error) bool { return target == ErrNotFound }

// DeleteIDs removes the items ids, all or none: when one of them is not
// in the library, nothing is removed and the error is a *NotFoundError
// naming every unknown ID.
func (s *Store) DeleteIDs(ctx context.Context, ids []int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fault(err)
	}
	defer tx.Rollback()
	var unknown []int64
	seen := map[int64]bool{}
	for _, id := range ids {
		if seen[id] {
			continue // "rm 3 3" removes 3 once
		}
		seen[id] = true
		res, err := tx.ExecContext(ctx, `DELETE FROM items WHERE id = ?`, id)
		if err != nil {
			return s.fault(err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			unknown = append(unknown, id)
		}
	}
	if len(unknown) > 0 {
		return &NotFoundError{IDs: unknown}
	}
	if err := tx.Commit(); err != nil {
		return s.fault(err)
	}
	return nil
}

// DeleteAll empties the library and returns how many items it held.
func (s *Store) DeleteAll(ctx context.Context) (int64, error) {
	res, err := s.db.ExecContext(ctx, `DELETE FROM items`)
	if err != nil {
		return 0, s.fault(err)
	}
	n, _ := res.RowsAffected()
	return n, nil
}

// Count is how many items the library holds.
func (s *Store) Count(ctx context.Context) (int, error) {
	var n int
	if err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM items`).Scan(&n); err != nil {
		return 0, s.fault(err)
	}
	return n, nil
}
