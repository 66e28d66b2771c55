package web

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"hark/gateway/text"
	"net/url"
	"strings"
	"sync"
	"time"
)

// store is the engine's part of the gateway database: the page index
// (web_pages plus its FTS5 index web_fts) and research tasks.
type store struct {
	db *sql.DB
	mu sync.Mutex // one writer at a time: SQLite would answer SQLITE_BUSY
}

const schema = `
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

func openStore(db *sql.DB) (*store, error) {
	for _, stmt := range splitSQL(schema) {
		if _, err := db.Exec(stmt); err != nil {
			return nil, fmt.Errorf("web: create tables: %w", err)
		}
	}
	// Indexes made before research read pages' structure lack the
	// markdown and headings columns; their pages read as plain text, and
	// rank without headings, until they are read again.
	for _, col := range []string{"markdown", "headings"} {
		if err := addColumn(db, "web_pages", col, `TEXT NOT NULL DEFAULT ''`); err != nil {
			return nil, fmt.Errorf("web: add web_pages.%s: %w", col, err)
		}
	}
	// Title weighs 5, body 1, URL 2 in the rank FTS5 orders by.
	if _, err := db.Exec(`INSERT INTO web_fts(web_fts, rank) VALUES ('rank', 'bm25(5.0, 1.0, 2.0)')`); err != nil {
		return nil, fmt.Errorf("web: configure ranking: %w", err)
	}
	return &store{db: db}, nil
}

// addColumn adds a column to table unless it has it.
func addColumn(db *sql.DB, table, column, decl string) error {
	rows, err := db.Query(`SELECT name FROM pragma_table_info(?)`, table)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			return err
		}
		if name == column {
			return nil
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	rows.Close()
	_, err = db.Exec(`ALTER TABLE ` + table + ` ADD COLUMN ` + column + ` ` + decl)
	return err
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

type storedImage struct {
	URL         string `json:"url"`
	Description string `json:"description,omitempty"`
}

// put adds or replaces a page in the index.
func (s *store) put(ctx context.Context, p *page) error {
	if strings.TrimSpace(p.Text) == "" && p.Title == "" {
		return nil
	}
	imgs := make([]storedImage, 0, len(p.Images))
	for _, im := range p.Images {
		imgs = append(imgs, storedImage{im.URL, im.Description})
	}
	ij, _ := json.Marshal(imgs)
	var pub int64
	if !p.Published.IsZero() {
		pub = p.Published.Unix()
	}
	fetched := p.Fetched
	if fetched.IsZero() {
		fetched = time.Now()
	}
	host := hostOf(p.URL)
	s.mu.Lock()
	defer s.mu.Unlock()
	_, err := s.db.ExecContext(ctx, `
INSERT INTO web_pages(url, host, title, description, body, images, favicon, published, fetched, topic, markdown, headings)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT(url) DO UPDATE SET host=excluded.host, title=excluded.title, description=excluded.description,
	body=excluded.body, images=excluded.images, favicon=excluded.favicon, published=excluded.published,
	fetched=excluded.fetched, topic=excluded.topic, markdown=excluded.markdown, headings=excluded.headings`,
		p.URL, host, p.Title, p.Description, p.Text, string(ij), p.Favicon, pub, fetched.Unix(), classifyTopic(p), p.Markdown, markdownHeadings(p.Markdown))
	if err == nil {
		if r, ok := ctx.Value(indexRunKey{}).(*indexRun); ok {
			r.add(p.URL)
		}
	}
	return err
}

// markdownHeadings is the headings of markdown, one a line, as text:
// search weighs a query's words in a page's headings.
func markdownHeadings(md string) string {
	var out []string
	fence := ""
	for _, l := range strings.Split(md, "\n") {
		t := strings.TrimSpace(l)
		switch {
		case fence != "":
			if strings.HasPrefix(t, fence) {
				fence = ""
			}
		case strings.HasPrefix(t, "```") || strings.HasPrefix(t, "~~~"):
			fence = t[:3]
		case strings.HasPrefix(t, "#"):
			h := strings.TrimSpace(strings.TrimLeft(t, "#"))
			h = strings.NewReplacer("\\", "", "*", "", "`", "", "_", " ").Replace(h)
			if h != "" {
				out = append(out, h)
			}
		}
	}
	return strings.Join(out, "\n")
}

// count returns how many pages the index holds.
func (s *store) count(ctx context.Context) (int, error) {
	var n int
	err := s.db.QueryRowContext(ctx, `SELECT count(*) FROM web_pages`).Scan(&n)
	return n, err
}

var financeTerms = map[string]bool{}

func init() {
	for _, w := range strings.Fields(`stock stocks share shares market markets earnings revenue profit dividend dividends
nasdaq nyse dow index inflation interest rate rates bond bonds yield investor investors investment fund funds
price prices trading trader equity equities ipo quarterly fiscal bank banks currency forex crypto bitcoin
valuation portfolio hedge etf gdp recession central treasury`) {
		financeTerms[text.Stem(w)] = true
	}
}

// classifyTopic files a page under news (article markup, a publication
// date with a news-like path, or /news/ in the path), finance (at least
// 2% of its words are finance terms) or general.
func classifyTopic(p *page) string {
	path := ""
	if u, err := url.Parse(p.URL); err == nil {
		path = strings.ToLower(u.Path)
		if strings.Contains(strings.ToLower(u.Hostname()), "news") {
			path = "/news/" + path
		}
	}
	if p.ArticleType || strings.Contains(path, "/news") || (!p.Published.IsZero() && (strings.Contains(path, "/20") || strings.Contains(path, "/article") || strings.Contains(path, "/blog"))) {
		return "news"
	}
	toks := text.Terms(p.Title + " " + text.TruncateRunes(p.Text, 20000))
	hits := 0
	for _, t := range toks {
		if financeTerms[t] {
			hits++
		}
	}
	if len(toks) > 0 && hits >= 3 && float64(hits)/float64(len(toks)) >= 0.02 {
		return "finance"
	}
	return "general"
}
