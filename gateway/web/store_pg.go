package web

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"hark/gateway/store"
)

// pgStore is the index in PostgreSQL, which the replicas of a team
// gateway share: pages in web_pages, an inverted index in web_postings
// (each term's count in a page's title, body and URL, tokenized as FTS5
// does), and the totals bm25 needs (pages, tokens) in web_index_totals,
// kept in the transactions that change the pages. Its tables are
// Schema's (schema.go).
//
// Search scores are FTS5's bm25 computed over the same numbers in the
// same order (fts5_aux.c's fts5Bm25Function), so ranks agree with
// gateway.db's to the last bit of the sum; snippets are FTS5's too
// (ftsSnippet).
type pgStore struct {
	pool *pgxpool.Pool
}

// FTS5's bm25 constants.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

func newPGStore(ctx context.Context, db *store.DB) (*pgStore, error) {
	if err := store.Migrate(ctx, db, Schema); err != nil {
		return nil, fmt.Errorf("web: PostgreSQL index: %w", err)
	}
	return &pgStore{pool: db.Pool()}, nil
}

// pgTerm is a term as web_postings keys it: a term too long for a btree
// entry (a run of base64, say) is named by its hash.
func pgTerm(t string) string {
	if len(t) <= 200 {
		return t
	}
	h := sha256.Sum256([]byte(t))
	return "#" + hex.EncodeToString(h[:])
}

func (s *pgStore) put(ctx context.Context, r *pageRow) error {
	u, title, body := pgText(r.URL), pgText(r.Title), pgText(r.Body)
	cols := [3][]string{ftsTerms(title), ftsTerms(body), ftsTerms(u)}
	tokens := len(cols[0]) + len(cols[1]) + len(cols[2])
	at := map[string]int{}
	var terms []string
	var freq [3][]int32
	for c, toks := range cols {
		for _, t := range toks {
			t = pgTerm(t)
			i, ok := at[t]
			if !ok {
				i = len(terms)
				at[t] = i
				terms = append(terms, t)
				for k := range freq {
					freq[k] = append(freq[k], 0)
				}
			}
			freq[c][i]++
		}
	}
	args := []any{u, pgText(r.Host), title, pgText(r.Description), body, pgText(r.Images), pgText(r.Favicon),
		r.Published, r.Fetched, pgText(r.Topic), pgText(r.Markdown), pgText(r.Headings), tokens, pgText(r.Terms), pgText(r.HeadingTerms), nonNil(r.Passages), nonNil(r.Parsed)}
	// A new page is one statement, its postings and the totals with it
	// (one round trip, no transaction to hold open); the totals row is
	// locked only to its end.
	var id int64
	err := s.pool.QueryRow(ctx, `WITH p AS (
	INSERT INTO web_pages(url, host, title, description, body, images, favicon, published, fetched, topic, markdown, headings, tokens, terms, heading_terms, passages, parsed)
	VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17) ON CONFLICT (url) DO NOTHING RETURNING id
), x AS (
	INSERT INTO web_postings(term, page_id, in_title, in_body, in_url)
	SELECT t, p.id, a, b, c FROM p, unnest($18::text[], $19::int[], $20::int[], $21::int[]) AS x(t, a, b, c)
), u AS (
	UPDATE web_index_totals SET pages = pages + 1, tokens = tokens + $13 WHERE EXISTS (SELECT 1 FROM p)
)
SELECT id FROM p`, append(args, terms, freq[0], freq[1], freq[2])...).Scan(&id)
	if !errors.Is(err, pgx.ErrNoRows) {
		return err
	}
	// Held already: replace it, keeping its id.
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var old int64
		if err := tx.QueryRow(ctx, `SELECT id, tokens FROM web_pages WHERE url = $1 FOR UPDATE`, u).Scan(&id, &old); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `UPDATE web_pages SET host=$2, title=$3, description=$4, body=$5, images=$6, favicon=$7,
	published=$8, fetched=$9, topic=$10, markdown=$11, headings=$12, tokens=$13, terms=$14, heading_terms=$15, passages=$16, parsed=$17 WHERE url = $1`, args...); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM web_postings WHERE page_id = $1`, id); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `INSERT INTO web_postings(term, page_id, in_title, in_body, in_url)
SELECT t, $2, a, b, c FROM unnest($1::text[], $3::int[], $4::int[], $5::int[]) AS x(t, a, b, c)`,
			terms, id, freq[0], freq[1], freq[2]); err != nil {
			return err
		}
		// Last, so that the one totals row is locked only to the commit.
		_, err := tx.Exec(ctx, `UPDATE web_index_totals SET tokens = tokens + $1`, int64(tokens)-old)
		return err
	})
}

func (s *pgStore) count(ctx context.Context) (int, error) {
	var n int
	err := s.pool.QueryRow(ctx, `SELECT pages FROM web_index_totals`).Scan(&n)
	return n, err
}

func (s *pgStore) page(ctx context.Context, u string) (title, body, markdown string, parsed []byte, err error) {
	err = s.pool.QueryRow(ctx, `SELECT title, body, markdown, parsed FROM web_pages WHERE url = $1`, u).Scan(&title, &body, &markdown, &parsed)
	if errors.Is(err, pgx.ErrNoRows) {
		err = errNotIndexed
	}
	return title, body, markdown, parsed, err
}

// totals are FTS5's row count and average row length (xRowCount,
// xColumnTotalSize / xRowCount).
func (s *pgStore) totals(ctx context.Context) (rows int64, avgdl float64, err error) {
	var tokens int64
	if err := s.pool.QueryRow(ctx, `SELECT pages, tokens FROM web_index_totals`).Scan(&rows, &tokens); err != nil {
		return 0, 0, err
	}
	if rows > 0 {
		avgdl = float64(tokens) / float64(rows)
	}
	return rows, avgdl, nil
}

// idfRatio is what FTS5 takes the logarithm of for the IDF of a phrase
// that hit of rows rows hold.
func idfRatio(rows, hit int64) float64 {
	return (float64(rows-hit) + 0.5) / (float64(hit) + 0.5)
}

// placeholders numbers PostgreSQL's arguments from next on.
func placeholders(next int) func() string {
	return func() string {
		next++
		return fmt.Sprintf("$%d", next-1)
	}
}

func (s *pgStore) ranked(ctx context.Context, m *match, f *filters, pool int) ([]*candidate, error) {
	rows, avgdl, err := s.totals(ctx)
	if err != nil || rows == 0 {
		return nil, err
	}
	for _, ph := range m.phrases {
		if len(ph) > 1 {
			return s.rankedPhrases(ctx, m, f, pool, rows, avgdl)
		}
	}
	n := len(m.phrases)
	idx, terms := make([]int32, n), make([]string, n)
	for i, ph := range m.phrases {
		idx[i], terms[i] = int32(i), pgTerm(ph[0])
	}
	hits := map[string]int64{}
	res, err := s.pool.Query(ctx, `SELECT term, count(*) FROM web_postings WHERE term = ANY($1) GROUP BY term`, terms)
	if err != nil {
		return nil, err
	}
	for res.Next() {
		var t string
		var c int64
		if err := res.Scan(&t, &c); err != nil {
			res.Close()
			return nil, err
		}
		hits[t] = c
	}
	res.Close()
	if err := res.Err(); err != nil {
		return nil, err
	}
	ratios := make([]float64, n)
	for i, t := range terms {
		ratios[i] = idfRatio(rows, hits[t])
	}
	// Each term's postings are read through the index (the LATERAL
	// subquery, kept apart by OFFSET 0): a table not yet analysed would
	// otherwise be planned as a scan of every posting.
	// The sum runs over the phrases in order, as FTS5's does: the same
	// additions in the same order give the same double. The logarithm is
	// PostgreSQL's (the C library's, as SQLite's is), which can differ
	// from Go's in the last bit.
	freq := `($9::float8 * x.in_title + $10::float8 * x.in_body + $11::float8 * x.in_url)`
	args := []any{idx, terms, ratios, bm25K1 + 1.0, bm25K1, 1 - bm25B, bm25B, avgdl, bm25Weights[0], bm25Weights[1], bm25Weights[2]}
	where, wargs := f.where(placeholders(len(args) + 1))
	args = append(args, wargs...)
	cond := ""
	if len(where) > 0 {
		cond = "WHERE " + strings.Join(where, " AND ")
	}
	args = append(args, pool)
	q := fmt.Sprintf(`SELECT x.page_id, sum(q.idf * ((%[1]s * $4) / (%[1]s + $5 * ($6 + $7 * p.tokens::float8 / $8))) ORDER BY q.i) AS s
FROM (SELECT i, term, CASE WHEN ln(r) <= 0 THEN 1e-6::float8 ELSE ln(r) END FROM unnest($1::int[], $2::text[], $3::float8[]) AS u(i, term, r)) AS q(i, term, idf)
CROSS JOIN LATERAL (SELECT page_id, in_title, in_body, in_url FROM web_postings WHERE term = q.term OFFSET 0) AS x
JOIN web_pages p ON p.id = x.page_id
%[2]s
GROUP BY x.page_id
ORDER BY s DESC, x.page_id
LIMIT $%[3]d`, freq, cond, len(args))
	res, err = s.pool.Query(ctx, q, args...)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	var cands []*candidate
	for res.Next() {
		c := &candidate{}
		if err := res.Scan(&c.id, &c.raw); err != nil {
			return nil, err
		}
		cands = append(cands, c)
	}
	return cands, res.Err()
}

// rankedPhrases ranks a query with a phrase of several words
// (exact_match): the pages that hold all its words are read, and their
// phrase instances counted, as FTS5 matches them by position.
func (s *pgStore) rankedPhrases(ctx context.Context, m *match, f *filters, pool int, rows int64, avgdl float64) ([]*candidate, error) {
	var unions []string
	args := []any{}
	for _, ph := range m.phrases {
		uniq := map[string]bool{}
		var terms []string
		for _, t := range ph {
			if t = pgTerm(t); !uniq[t] {
				uniq[t] = true
				terms = append(terms, t)
			}
		}
		args = append(args, terms, len(terms))
		unions = append(unions, fmt.Sprintf(`SELECT page_id FROM web_postings WHERE term = ANY($%d) GROUP BY page_id HAVING count(*) = $%d`, len(args)-1, len(args)))
	}
	where, wargs := f.where(placeholders(len(args) + 1))
	args = append(args, wargs...)
	ok := "true"
	if len(where) > 0 {
		ok = strings.Join(where, " AND ")
	}
	// FTS5 counts a phrase's hits over the whole table, filters or not.
	res, err := s.pool.Query(ctx, fmt.Sprintf(`SELECT p.id, p.title, p.body, p.url, p.tokens, %s FROM web_pages p WHERE p.id IN (%s)`,
		ok, strings.Join(unions, " UNION ")), args...)
	if err != nil {
		return nil, err
	}
	type held struct {
		id     int64
		tokens int
		ok     bool
		freq   []float64
	}
	var pages []held
	hits := make([]int64, len(m.phrases))
	for res.Next() {
		var h held
		var title, body, u string
		if err := res.Scan(&h.id, &title, &body, &u, &h.tokens, &h.ok); err != nil {
			res.Close()
			return nil, err
		}
		cols := [3][]string{ftsTerms(title), ftsTerms(body), ftsTerms(u)}
		h.freq = make([]float64, len(m.phrases))
		any := false
		for i, ph := range m.phrases {
			for c, toks := range cols {
				h.freq[i] += bm25Weights[c] * float64(countPhrase(toks, ph))
			}
			if h.freq[i] > 0 {
				hits[i]++
				any = true
			}
		}
		if any {
			pages = append(pages, h)
		}
	}
	res.Close()
	if err := res.Err(); err != nil {
		return nil, err
	}
	ratios := make([]float64, len(m.phrases))
	for i := range ratios {
		ratios[i] = idfRatio(rows, hits[i])
	}
	var idfs []float64
	if err := s.pool.QueryRow(ctx, `SELECT array_agg(CASE WHEN ln(r) <= 0 THEN 1e-6::float8 ELSE ln(r) END ORDER BY i)
FROM unnest($1::float8[]) WITH ORDINALITY AS u(r, i)`, ratios).Scan(&idfs); err != nil {
		return nil, err
	}
	var cands []*candidate
	for _, h := range pages {
		if !h.ok {
			continue
		}
		// float64() rounds each step, so no step is fused (FMA) where C
		// rounds it.
		score := 0.0
		for i, fr := range h.freq {
			norm := float64(float64(1-bm25B) + float64(float64(bm25B*float64(h.tokens))/avgdl))
			score += float64(idfs[i] * float64(float64(fr*(bm25K1+1.0))/float64(fr+float64(bm25K1*norm))))
		}
		cands = append(cands, &candidate{id: h.id, raw: score})
	}
	sort.SliceStable(cands, func(i, j int) bool {
		if cands[i].raw != cands[j].raw {
			return cands[i].raw > cands[j].raw
		}
		return cands[i].id < cands[j].id
	})
	if len(cands) > pool {
		cands = cands[:pool]
	}
	return cands, nil
}

func (s *pgStore) columns(ctx context.Context, m *match, cands map[int64]*candidate, bodyRunes, cutStored int, snippets bool) error {
	if len(cands) == 0 {
		return nil
	}
	ids := make([]int64, 0, len(cands))
	for id := range cands {
		ids = append(ids, id)
	}
	bodyCol := "body"
	switch {
	case bodyRunes > 0 && !snippets:
		bodyCol = fmt.Sprintf("substr(body, 1, %d)", bodyRunes)
	case cutStored > 0 && !snippets:
		bodyCol = "CASE WHEN terms <> '' THEN '' ELSE body END"
	}
	res, err := s.pool.Query(ctx, `SELECT id, url, host, title, description, `+bodyCol+`, images, favicon, published, fetched, topic, headings, terms, heading_terms
FROM web_pages WHERE id = ANY($1)`, ids)
	if err != nil {
		return err
	}
	defer res.Close()
	for res.Next() {
		var d candidate
		if err := res.Scan(&d.id, &d.url, &d.host, &d.title, &d.desc, &d.body, &d.images, &d.favicon, &d.published, &d.fetched, &d.topic, &d.headings, &d.terms, &d.headingTerms); err != nil {
			return err
		}
		if snippets {
			d.snippet = ftsSnippet(d.body, m.phrases, "…", snippetTokens)
			if bodyRunes > 0 {
				d.body = firstRunes(d.body, bodyRunes)
			}
		}
		d.leadPending = cutStored > 0 && !snippets && bodyRunes == 0 && d.terms != ""
		if c := cands[d.id]; c != nil {
			d.raw = c.raw
			*c = d
		}
	}
	return res.Err()
}

func (s *pgStore) leads(ctx context.Context, ids []int64, n int) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	res, err := s.pool.Query(ctx, `SELECT id, substr(body, 1, $2) FROM web_pages WHERE id = ANY($1)`, ids, n)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	for res.Next() {
		var id int64
		var lead string
		if err := res.Scan(&id, &lead); err != nil {
			return nil, err
		}
		out[id] = lead
	}
	return out, res.Err()
}

func (s *pgStore) passages(ctx context.Context, ids []int64) (map[int64]string, error) {
	out := map[int64]string{}
	if len(ids) == 0 {
		return out, nil
	}
	res, err := s.pool.Query(ctx, `SELECT id, passages FROM web_pages WHERE id = ANY($1)`, ids)
	if err != nil {
		return nil, err
	}
	defer res.Close()
	for res.Next() {
		var id int64
		var b []byte
		if err := res.Scan(&id, &b); err != nil {
			return nil, err
		}
		out[id] = string(b)
	}
	return out, res.Err()
}

// firstRunes is SQL's substr(s, 1, n).
func firstRunes(s string, n int) string {
	i := 0
	for j := range s {
		if i == n {
			return s[:j]
		}
		i++
	}
	return s
}

func (s *pgStore) snippet(ctx context.Context, m *match, id int64) string {
	var body string
	if err := s.pool.QueryRow(ctx, `SELECT body FROM web_pages WHERE id = $1`, id).Scan(&body); err != nil {
		return ""
	}
	return ftsSnippet(body, m.phrases, "…", snippetTokens)
}

// deletePages deletes the pages the query in sel (a SELECT of URLs)
// names, keeping the totals, and returns how many it deleted.
func deletePages(ctx context.Context, tx pgx.Tx, sel string, args ...any) (int, error) {
	var n int
	err := tx.QueryRow(ctx, `WITH d AS (DELETE FROM web_pages WHERE url IN (`+sel+`) RETURNING tokens)
UPDATE web_index_totals SET pages = pages - (SELECT count(*) FROM d), tokens = tokens - (SELECT COALESCE(sum(tokens), 0) FROM d)
RETURNING (SELECT count(*) FROM d)`, args...).Scan(&n)
	return n, err
}

func (s *pgStore) recordSource(ctx context.Context, source string, urls []string, whole bool) error {
	for i, u := range urls {
		urls[i] = pgText(u)
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO web_sources(source, indexed) VALUES ($1, $2)
		ON CONFLICT (source) DO UPDATE SET indexed = excluded.indexed`, source, time.Now().Unix()); err != nil {
			return err
		}
		if whole {
			// Pages the source had and no longer has, unless another
			// source holds them.
			if _, err := deletePages(ctx, tx, `SELECT url FROM web_source_pages WHERE source = $1
				EXCEPT SELECT unnest($2::text[])
				EXCEPT SELECT url FROM web_source_pages WHERE source <> $1`, source, urls); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, `DELETE FROM web_source_pages WHERE source = $1`, source); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO web_source_pages(source, url) SELECT $1, unnest($2::text[]) ON CONFLICT DO NOTHING`, source, urls)
		return err
	})
}

func (s *pgStore) sources(ctx context.Context) ([]Source, error) {
	rows, err := s.pool.Query(ctx, sourcesQuery)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	return scanSources(rows)
}

func (s *pgStore) removeSource(ctx context.Context, source string) (int, error) {
	var n int
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM web_sources WHERE source = $1`, source).Scan(&one); errors.Is(err, pgx.ErrNoRows) {
			return fmt.Errorf("%s: %w", source, ErrNoSource)
		} else if err != nil {
			return err
		}
		var err error
		if n, err = deletePages(ctx, tx, `SELECT url FROM web_source_pages WHERE source = $1
			EXCEPT SELECT url FROM web_source_pages WHERE source <> $1`, source); err != nil {
			return err
		}
		if _, err := tx.Exec(ctx, `DELETE FROM web_source_pages WHERE source = $1`, source); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM web_sources WHERE source = $1`, source)
		return err
	})
	return n, err
}
