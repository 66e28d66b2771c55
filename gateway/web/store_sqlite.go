package web

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"modernc.org/sqlite"

	"hark/gateway/store"
)

// sqliteStore is the index in the gateway database, gateway.db: the
// pages in web_pages, their full-text index in the FTS5 table web_fts
// that triggers keep in step.
type sqliteStore struct {
	db *sql.DB
	mu sync.Mutex // one writer at a time: SQLite would answer SQLITE_BUSY
}

// sqliteTables are gateway.db's index tables (Schema).
const sqliteTables = `
CREATE TABLE IF NOT EXISTS web_pages (
	id          INTEGER PRIMARY KEY,
	url         TEXT NOT NULL UNIQUE,
	host        TEXT NOT NULL,
	title       TEXT NOT NULL DEFAULT '',
	description TEXT NOT NULL DEFAULT '',
	body        TEXT NOT NULL DEFAULT '',
	images      TEXT NOT NULL DEFAULT '[]',
	favicon     TEXT NOT NULL DEFAULT '',
	published   INTEGER NOT NULL DEFAULT 0,
	fetched     INTEGER NOT NULL,
	topic       TEXT NOT NULL DEFAULT 'general',
	markdown    TEXT NOT NULL DEFAULT '',
	headings    TEXT NOT NULL DEFAULT ''
);
CREATE INDEX IF NOT EXISTS web_pages_host ON web_pages(host);
CREATE VIRTUAL TABLE IF NOT EXISTS web_fts USING fts5(
	title, body, url,
	content='web_pages', content_rowid='id',
	tokenize='porter unicode61 remove_diacritics 2'
);
CREATE TRIGGER IF NOT EXISTS web_pages_ai AFTER INSERT ON web_pages BEGIN
	INSERT INTO web_fts(rowid, title, body, url) VALUES (new.id, new.title, new.body, new.url);
END;
CREATE TRIGGER IF NOT EXISTS web_pages_ad AFTER DELETE ON web_pages BEGIN
	INSERT INTO web_fts(web_fts, rowid, title, body, url) VALUES ('delete', old.id, old.title, old.body, old.url);
END;
CREATE TRIGGER IF NOT EXISTS web_pages_au AFTER UPDATE ON web_pages BEGIN
	INSERT INTO web_fts(web_fts, rowid, title, body, url) VALUES ('delete', old.id, old.title, old.body, old.url);
	INSERT INTO web_fts(rowid, title, body, url) VALUES (new.id, new.title, new.body, new.url);
END;
CREATE TABLE IF NOT EXISTS web_sources (
	source  TEXT PRIMARY KEY,
	indexed INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS web_source_pages (
	source TEXT NOT NULL,
	url    TEXT NOT NULL,
	PRIMARY KEY (source, url)
);
CREATE INDEX IF NOT EXISTS web_source_pages_url ON web_source_pages(url);
`

func openStore(ctx context.Context, db *sql.DB) (*sqliteStore, error) {
	if err := store.Migrate(ctx, store.FromSQLite(db), Schema); err != nil {
		return nil, fmt.Errorf("web: %w", err)
	}
	// The rank FTS5 orders by: bm25Weights.
	rank := fmt.Sprintf("bm25(%.1f, %.1f, %.1f)", bm25Weights[0], bm25Weights[1], bm25Weights[2])
	if _, err := db.ExecContext(ctx, `INSERT INTO web_fts(web_fts, rank) VALUES ('rank', ?)`, rank); err != nil {
		return nil, fmt.Errorf("web: configure ranking: %w", err)
	}
	return &sqliteStore{db: db}, nil
}

// splitSQL splits the schema into statements, keeping trigger bodies whole.
func splitSQL(s string) []string {
	var out []string
	var cur strings.Builder
	inTrigger := false
	for _, line := range strings.Split(s, "\n") {
		t := strings.TrimSpace(line)
		if t == "" {
			continue
		}
		cur.WriteString(line)
		cur.WriteByte('\n')
		if strings.HasPrefix(t, "CREATE TRIGGER") {
			inTrigger = true
		}
		if (inTrigger && t == "END;") || (!inTrigger && strings.HasSuffix(t, ";")) {
			out = append(out, cur.String())
			cur.Reset()
			inTrigger = false
		}
	}
	return out
}

func (s *sqliteStore) put(ctx context.Context, r *pageRow) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return retrySchema(func() error { return s.putRow(ctx, r) })
}

func (s *sqliteStore) putRow(ctx context.Context, r *pageRow) error {
	_, err := s.db.ExecContext(ctx, `
INSERT INTO web_pages(url, host, title, description, body, images, favicon, published, fetched, topic, markdown, headings, terms, heading_terms, passages, parsed)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(url) DO UPDATE SET host=excluded.host, title=excluded.title, description=excluded.description,
	body=excluded.body, images=excluded.images, favicon=excluded.favicon, published=excluded.published,
	fetched=excluded.fetched, topic=excluded.topic, markdown=excluded.markdown, headings=excluded.headings,
	terms=excluded.terms, heading_terms=excluded.heading_terms, passages=excluded.passages, parsed=excluded.parsed`,
		r.URL, r.Host, r.Title, r.Description, r.Body, r.Images, r.Favicon, r.Published, r.Fetched, r.Topic, r.Markdown, r.Headings,
		r.Terms, r.HeadingTerms, nonNil(r.Passages), nonNil(r.Parsed))
	return err
}

func (s *sqliteStore) count(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM web_pages`).Scan(&n)
	return n, err
}

func (s *sqliteStore) page(ctx context.Context, u string) (title, body, markdown string, parsed []byte, err error) {
	err = s.db.QueryRowContext(ctx, `SELECT title, body, markdown, parsed FROM web_pages WHERE url = ?`, u).Scan(&title, &body, &markdown, &parsed)
	if errors.Is(err, sql.ErrNoRows) {
		err = errNotIndexed
	}
	return title, body, markdown, parsed, err
}

const snippetExpr = `snippet(web_fts, 1, '', '', '…', 40)`

// ranked asks FTS5 for ids only: its "ORDER BY rank LIMIT n" path keeps
// the n best without computing columns for every matching page.
func (s *sqliteStore) ranked(ctx context.Context, m *match, f *filters, pool int) (cands []*candidate, err error) {
	err = retrySchema(func() error {
		cands, err = s.rankedOnce(ctx, m, f, pool)
		return err
	})
	return cands, err
}

func (s *sqliteStore) rankedOnce(ctx context.Context, m *match, f *filters, pool int) ([]*candidate, error) {
	where, args := f.where(func() string { return "?" })
	args = append([]any{m.expr}, args...)
	var q string
	if len(where) == 0 {
		q = `SELECT rowid, -rank FROM web_fts WHERE web_fts MATCH ? ORDER BY rank LIMIT ?`
	} else {
		q = `SELECT f.rowid, -f.rank FROM web_fts f JOIN web_pages p ON p.id = f.rowid WHERE web_fts MATCH ? AND ` +
			strings.Join(where, " AND ") + ` ORDER BY f.rank LIMIT ?`
	}
	args = append(args, pool)
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var cands []*candidate
	for rows.Next() {
		c := &candidate{}
		if err := rows.Scan(&c.id, &c.raw); err != nil {
			return nil, err
		}
		cands = append(cands, c)
	}
	return cands, rows.Err()
}

func (s *sqliteStore) columns(ctx context.Context, m *match, cands map[int64]*candidate, bodyRunes, cutStored int, snippets bool) error {
	return retrySchema(func() error { return s.columnsOnce(ctx, m, cands, bodyRunes, cutStored, snippets) })
}

func (s *sqliteStore) columnsOnce(ctx context.Context, m *match, cands map[int64]*candidate, bodyRunes, cutStored int, snippets bool) error {
	if len(cands) == 0 {
		return nil
	}
	ids := make([]string, 0, len(cands))
	for id := range cands {
		ids = append(ids, fmt.Sprint(id))
	}
	bodyCol := "p.body"
	switch {
	case bodyRunes > 0:
		bodyCol = fmt.Sprintf("substr(p.body, 1, %d)", bodyRunes)
	case cutStored > 0:
		bodyCol = "CASE WHEN p.terms <> '' THEN '' ELSE p.body END"
	}
	snip := "''"
	if snippets {
		snip = snippetExpr
	}
	// Only a snippet needs the match again (FTS5's snippet() reads it):
	// without one the pages are read by id, and FTS5 is not asked to find
	// the query's terms a second time.
	q := fmt.Sprintf(`SELECT p.id, p.url, p.host, p.title, p.description, %s, p.images, p.favicon, p.published, p.fetched, p.topic, p.headings, p.terms, p.heading_terms, %s
FROM web_pages p WHERE p.id IN (%s)`, bodyCol, snip, strings.Join(ids, ","))
	var args []any
	if snippets {
		q = fmt.Sprintf(`SELECT p.id, p.url, p.host, p.title, p.description, %s, p.images, p.favicon, p.published, p.fetched, p.topic, p.headings, p.terms, p.heading_terms, %s
FROM web_fts JOIN web_pages p ON p.id = web_fts.rowid
WHERE web_fts MATCH ? AND web_fts.rowid IN (%s)`, bodyCol, snip, strings.Join(ids, ","))
		args = append(args, m.expr)
	}
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var d candidate
		if err := rows.Scan(&d.id, &d.url, &d.host, &d.title, &d.desc, &d.body, &d.images, &d.favicon, &d.published, &d.fetched, &d.topic, &d.headings, &d.terms, &d.headingTerms, &d.snippet); err != nil {
			return err
		}
		d.leadPending = cutStored > 0 && bodyRunes == 0 && d.terms != ""
		if c := cands[d.id]; c != nil {
			d.raw = c.raw
			*c = d
		}
	}
	return rows.Err()
}

func (s *sqliteStore) leads(ctx context.Context, ids []int64, n int) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	err := retrySchema(func() error {
		rows, err := s.db.QueryContext(ctx, fmt.Sprintf(`SELECT id, substr(body, 1, %d) FROM web_pages WHERE id IN (%s)`, n, joinIDs(ids)))
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var lead string
			if err := rows.Scan(&id, &lead); err != nil {
				return err
			}
			out[id] = lead
		}
		return rows.Err()
	})
	return out, err
}

func (s *sqliteStore) passages(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	err := retrySchema(func() error {
		rows, err := s.db.QueryContext(ctx, `SELECT id, passages FROM web_pages WHERE id IN (`+joinIDs(ids)+`)`)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var id int64
			var b string // a blob scanned into a string is copied once, not twice
			if err := rows.Scan(&id, &b); err != nil {
				return err
			}
			out[id] = b
		}
		return rows.Err()
	})
	return out, err
}

// joinIDs is ids as SQL's list: they are numbers, never a caller's text.
func joinIDs(ids []int64) string {
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = fmt.Sprint(id)
	}
	return strings.Join(s, ",")
}

// nonNil is b, or an empty slice for nil: the column is NOT NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

func (s *sqliteStore) snippet(ctx context.Context, m *match, id int64) string {
	var out string
	_ = retrySchema(func() error {
		return s.db.QueryRowContext(ctx, `SELECT `+snippetExpr+` FROM web_fts WHERE web_fts MATCH ? AND rowid = ?`, m.expr, id).Scan(&out)
	})
	return out
}

// retrySchema runs f again, a few times, while SQLite answers
// SQLITE_SCHEMA. Another connection to gateway.db may change its schema
// while a search runs (the job workers' first migration, the research
// store's tables, both made when first needed), and a statement on the
// FTS5 table that SQLite prepares again then can fail to reopen the
// table; run again once the changes are made (a migration is a burst of
// statements: it waits 1, 2, 4, … 32 ms between tries), it reads the new
// schema.
func retrySchema(f func() error) error {
	var err error
	for i := range 7 {
		var se *sqlite.Error
		if err = f(); !errors.As(err, &se) || se.Code()&0xff != sqliteSchema {
			return err
		}
		if i < 6 {
			time.Sleep(time.Millisecond << i)
		}
	}
	return err
}

// sqliteSchema is SQLITE_SCHEMA, SQLite's "the database schema has
// changed".
const sqliteSchema = 17

func (s *sqliteStore) recordSource(ctx context.Context, source string, urls []string, whole bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO web_sources(source, indexed) VALUES (?, ?)
		ON CONFLICT(source) DO UPDATE SET indexed = excluded.indexed`, source, time.Now().Unix()); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `CREATE TEMP TABLE IF NOT EXISTS run_urls(url TEXT PRIMARY KEY)`); err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM run_urls`); err != nil {
		return err
	}
	for _, u := range urls {
		if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO run_urls(url) VALUES (?)`, u); err != nil {
			return err
		}
	}
	if whole {
		// Pages the source had and no longer has (a file deleted, a page
		// gone from the sitemap), unless another source holds them.
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_pages WHERE url IN (
			SELECT url FROM web_source_pages WHERE source = ?
			EXCEPT SELECT url FROM run_urls
			EXCEPT SELECT url FROM web_source_pages WHERE source <> ?)`, source, source); err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM web_source_pages WHERE source = ?`, source); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx, `INSERT OR IGNORE INTO web_source_pages(source, url) SELECT ?, url FROM run_urls`, source); err != nil {
		return err
	}
	if err := tx.Commit(); err != nil {
		return err
	}
	if len(urls) == 0 {
		return nil
	}
	// Each page stored is a transaction of its own, and each leaves FTS5
	// a segment; its automerge keeps a dozen or more of them, and every
	// query term is then looked up in each (on the manuals, a third of a
	// search's time). One segment answers the same ranks, since bm25
	// reads the same counts, in fewer seeks.
	_, err = s.db.ExecContext(ctx, `INSERT INTO web_fts(web_fts) VALUES ('optimize')`)
	return err
}

func (s *sqliteStore) sources(ctx context.Context) ([]Source, error) {
	rows, err := s.db.QueryContext(ctx, sourcesQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanSources(rows)
}

func (s *sqliteStore) removeSource(ctx context.Context, source string) (n int, err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	err = retrySchema(func() error {
		n, err = s.removeSourceOnce(ctx, source)
		return err
	})
	return n, err
}

func (s *sqliteStore) removeSourceOnce(ctx context.Context, source string) (int, error) {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM web_sources WHERE source = ?`, source).Scan(&one); errors.Is(err, sql.ErrNoRows) {
		return 0, fmt.Errorf("%s: %w", source, ErrNoSource)
	} else if err != nil {
		return 0, err
	}
	res, err := tx.ExecContext(ctx, `DELETE FROM web_pages WHERE url IN (
		SELECT url FROM web_source_pages WHERE source = ?
		EXCEPT SELECT url FROM web_source_pages WHERE source <> ?)`, source, source)
	if err != nil {
		return 0, err
	}
	n, _ := res.RowsAffected()
	if _, err := tx.ExecContext(ctx, `DELETE FROM web_source_pages WHERE source = ?`, source); err != nil {
		return 0, err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM web_sources WHERE source = ?`, source); err != nil {
		return 0, err
	}
	return int(n), tx.Commit()
}
