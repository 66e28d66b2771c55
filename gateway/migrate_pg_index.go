package gateway

import "github.com/jackc/pgx/v5/pgxpool"

// pgIndexMigration makes the search index's tables (gateway/web's
// pgStore): the pages, an inverted index of their terms tokenized as
// SQLite FTS5's "porter unicode61" does (each term's count in a page's
// title, body and URL), the totals bm25 needs, and the sources `hark
// index` added. With a postgres:// database every replica searches and
// feeds these, so a team has one index. See gateway.db's same tables in
// gateway/web/store_sqlite.go.
const pgIndexMigration = `CREATE TABLE web_pages (
		id          BIGSERIAL PRIMARY KEY,
		url         TEXT    NOT NULL UNIQUE,
		host        TEXT    NOT NULL,
		title       TEXT    NOT NULL DEFAULT '',
		description TEXT    NOT NULL DEFAULT '',
		body        TEXT    NOT NULL DEFAULT '',
		images      TEXT    NOT NULL DEFAULT '[]',
		favicon     TEXT    NOT NULL DEFAULT '',
		published   BIGINT  NOT NULL DEFAULT 0,
		fetched     BIGINT  NOT NULL,
		topic       TEXT    NOT NULL DEFAULT 'general',
		markdown    TEXT    NOT NULL DEFAULT '',
		headings    TEXT    NOT NULL DEFAULT '',
		tokens      INTEGER NOT NULL
	);
	CREATE INDEX web_pages_host ON web_pages(host);
	CREATE TABLE web_postings (
		term     TEXT    NOT NULL,
		page_id  BIGINT  NOT NULL REFERENCES web_pages(id) ON DELETE CASCADE,
		in_title INTEGER NOT NULL,
		in_body  INTEGER NOT NULL,
		in_url   INTEGER NOT NULL,
		PRIMARY KEY (term, page_id)
	);
	CREATE INDEX web_postings_page ON web_postings(page_id);
	CREATE TABLE web_index_totals (
		one    BOOLEAN PRIMARY KEY DEFAULT true CHECK (one),
		pages  BIGINT  NOT NULL,
		tokens BIGINT  NOT NULL
	);
	INSERT INTO web_index_totals(one, pages, tokens) VALUES (true, 0, 0);
	CREATE TABLE web_sources (
		source  TEXT   PRIMARY KEY,
		indexed BIGINT NOT NULL
	);
	CREATE TABLE web_source_pages (
		source TEXT NOT NULL,
		url    TEXT NOT NULL,
		PRIMARY KEY (source, url)
	);
	CREATE INDEX web_source_pages_url ON web_source_pages(url);`

// Pool is the ledger's connection pool, which the web engine's index
// shares (web.Config.Postgres) rather than opening its own.
func (l *PGLedger) Pool() *pgxpool.Pool { return l.pool }
