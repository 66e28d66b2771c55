package web

import (
	"context"
	"fmt"
	"strings"

	"hark/gateway/store"
)

// Schema is the search index's tables, for both databases: on SQLite the
// pages and their FTS5 index (sqliteTables), on PostgreSQL the pages and
// an inverted index that ranks as FTS5 does (pgSchema); on both, the
// pages' passages' vectors from an embedding model (vectors.go), which go with
// their page (a trigger on SQLite, where a connection may not enforce
// foreign keys).
var Schema = store.Schema{Owner: "web", Migrations: []store.Migration{
	{Name: "search index pages, their full-text index and the sources hark index added",
		Postgres: pgSchema, Func: createSQLiteTables},
	{Name: "each page's terms and sentences, worked out when it is indexed (passages.go)",
		Postgres: `ALTER TABLE web_pages ADD COLUMN terms TEXT NOT NULL DEFAULT '';
		ALTER TABLE web_pages ADD COLUMN heading_terms TEXT NOT NULL DEFAULT '';
		ALTER TABLE web_pages ADD COLUMN passages BYTEA NOT NULL DEFAULT ''`,
		Func: addSQLitePassages},
	{Name: "each page's passages' vectors from the configured embedding model, with the model's name and the vector's dimension (vectors.go)",
		SQLite: `CREATE TABLE web_vectors (
		page_id   INTEGER NOT NULL REFERENCES web_pages(id) ON DELETE CASCADE,
		passage   INTEGER NOT NULL,
		model     TEXT    NOT NULL,
		dims      INTEGER NOT NULL,
		text_hash TEXT    NOT NULL,
		embedded  INTEGER NOT NULL,
		vector    BLOB    NOT NULL,
		PRIMARY KEY (page_id, passage)
	);
	CREATE INDEX web_vectors_model ON web_vectors(model, embedded);
	CREATE TRIGGER web_pages_vectors_ad AFTER DELETE ON web_pages BEGIN
		DELETE FROM web_vectors WHERE page_id = old.id;
	END`,
		Postgres: `CREATE TABLE web_vectors (
		page_id   BIGINT  NOT NULL REFERENCES web_pages(id) ON DELETE CASCADE,
		passage   INTEGER NOT NULL,
		model     TEXT    NOT NULL,
		dims      INTEGER NOT NULL,
		text_hash TEXT    NOT NULL,
		embedded  BIGINT  NOT NULL,
		vector    BYTEA   NOT NULL,
		PRIMARY KEY (page_id, passage)
	);
	CREATE INDEX web_vectors_model ON web_vectors(model, embedded)`},
	{Name: "each page as a report reads it (passages, blocks, sentences), worked out when it is indexed (Config.Parse)",
		SQLite:   `ALTER TABLE web_pages ADD COLUMN parsed BLOB NOT NULL DEFAULT x''`,
		Postgres: `ALTER TABLE web_pages ADD COLUMN parsed BYTEA NOT NULL DEFAULT ''`},
}}

// addSQLitePassages adds gateway.db's columns of passages.go. Its pages
// keep them empty, and are read from their body, until indexed again.
func addSQLitePassages(ctx context.Context, tx *store.Tx) error {
	if tx.Dialect() != store.SQLite {
		return nil
	}
	for _, col := range []string{"terms TEXT NOT NULL DEFAULT ''", "heading_terms TEXT NOT NULL DEFAULT ''", "passages BLOB NOT NULL DEFAULT x''"} {
		if _, err := tx.Exec(ctx, `ALTER TABLE web_pages ADD COLUMN `+col); err != nil {
			return fmt.Errorf("add web_pages.%s: %w", strings.Fields(col)[0], err)
		}
	}
	return nil
}

// createSQLiteTables makes gateway.db's index tables: IF NOT EXISTS, since
// the engine made them itself before they had a version, and with the
// columns an index of before research read pages' structure lacks (its
// pages read as plain text, and rank without headings, until they are
// read again).
func createSQLiteTables(ctx context.Context, tx *store.Tx) error {
	if tx.Dialect() != store.SQLite {
		return nil
	}
	for _, stmt := range splitSQL(sqliteTables) {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			return err
		}
	}
	for _, col := range []string{"markdown", "headings"} {
		var n int
		if err := tx.QueryRow(ctx, `SELECT count(*) FROM pragma_table_info('web_pages') WHERE name = ?`, col).Scan(&n); err != nil {
			return err
		}
		if n == 0 {
			if _, err := tx.Exec(ctx, `ALTER TABLE web_pages ADD COLUMN `+col+` TEXT NOT NULL DEFAULT ''`); err != nil {
				return fmt.Errorf("add web_pages.%s: %w", col, err)
			}
		}
	}
	return nil
}

// pgSchema makes the search index's tables (pgStore): the pages, an inverted index of their terms tokenized as
// SQLite FTS5's "porter unicode61" does (each term's count in a page's
// title, body and URL), the totals bm25 needs, and the sources `hark
// index` added. With a postgres:// database every replica searches and
// feeds these, so a team has one index. See gateway.db's same tables in
// sqliteTables.
const pgSchema = `CREATE TABLE web_pages (
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
