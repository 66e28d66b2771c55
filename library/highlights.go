package library

// Highlights: a passage of a kept page or report that the researcher
// marked, with a note and tags. Each is anchored as a report's quote is
// (api.Anchor: the quote, the words around it, its offsets in the kept
// text), so that after the page is read again it is found where it went,
// or said to be gone, by the same code that verifies reports.

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"hark/api"
)

// Highlight is one marked passage, with its note and tags.
type Highlight struct {
	ID int64 `json:"id"`
	// ItemID is the kept copy it was made in (a page or a report); its
	// text is what Start and End count in.
	ItemID int64  `json:"item_id"`
	Kind   string `json:"kind"`          // the item's kind: page or research
	URL    string `json:"url,omitempty"` // the page's URL; "" for a report
	Title  string `json:"title"`
	api.Anchor
	Note    string    `json:"note,omitempty"`
	Tags    []string  `json:"tags,omitempty"`
	Created time.Time `json:"created"`
	Updated time.Time `json:"updated"`
	// State is how the passage stands in the newest kept copy of its page
	// (api.PassageStands, Moved, Gone), "" until checked (Check); Now is
	// its place there.
	State   string `json:"state,omitempty"`
	NowFrom int    `json:"now_start,omitempty"`
	NowTo   int    `json:"now_end,omitempty"`
	NowItem int64  `json:"now_item,omitempty"`
}

// Link is where a highlight can be opened again: the page's URL with a
// text fragment (browsers scroll to and mark the quote), or for a report
// hark://library/ID, the kept item.
func (h Highlight) Link() string {
	if h.URL == "" {
		return fmt.Sprintf("hark://library/%d", h.ItemID)
	}
	base, _, _ := strings.Cut(h.URL, "#")
	return base + "#:~:text=" + TextFragment(h.Quote)
}

// TextFragment is a quote as a URL text fragment's textStart[,textEnd]:
// a long quote by its first and last words, so that the link stays short
// and still finds it. Characters the fragment syntax uses are escaped.
func TextFragment(quote string) string {
	w := strings.Fields(quote)
	if len(w) > 10 {
		return fragEscape(strings.Join(w[:5], " ")) + "," + fragEscape(strings.Join(w[len(w)-5:], " "))
	}
	return fragEscape(strings.Join(w, " "))
}

func fragEscape(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte(".*_~'()!", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

const highlightSchema = `
CREATE TABLE IF NOT EXISTS highlights (
	id       INTEGER PRIMARY KEY,
	item_id  INTEGER NOT NULL,
	kind     TEXT NOT NULL,
	url      TEXT NOT NULL DEFAULT '',
	title    TEXT NOT NULL DEFAULT '',
	quote    TEXT NOT NULL,
	prefix   TEXT NOT NULL DEFAULT '',
	suffix   TEXT NOT NULL DEFAULT '',
	start_at INTEGER NOT NULL,
	end_at   INTEGER NOT NULL,
	note     TEXT NOT NULL DEFAULT '',
	tags     TEXT NOT NULL DEFAULT '',
	created  INTEGER NOT NULL,
	updated  INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS highlights_url ON highlights(url);
CREATE INDEX IF NOT EXISTS highlights_item ON highlights(item_id);
CREATE VIRTUAL TABLE IF NOT EXISTS highlights_fts USING fts5(
	quote, note, tags, title, content='highlights', content_rowid='id', tokenize='unicode61 remove_diacritics 2', prefix='2 3 4'
);
CREATE TRIGGER IF NOT EXISTS highlights_ai AFTER INSERT ON highlights BEGIN
	INSERT INTO highlights_fts(rowid, quote, note, tags, title) VALUES (new.id, new.quote, new.note, new.tags, new.title);
END;
CREATE TRIGGER IF NOT EXISTS highlights_ad AFTER DELETE ON highlights BEGIN
	INSERT INTO highlights_fts(highlights_fts, rowid, quote, note, tags, title) VALUES ('delete', old.id, old.quote, old.note, old.tags, old.title);
END;
CREATE TRIGGER IF NOT EXISTS highlights_au AFTER UPDATE ON highlights BEGIN
	INSERT INTO highlights_fts(highlights_fts, rowid, quote, note, tags, title) VALUES ('delete', old.id, old.quote, old.note, old.tags, old.title);
	INSERT INTO highlights_fts(rowid, quote, note, tags, title) VALUES (new.id, new.quote, new.note, new.tags, new.title);
END;
-- What each export target was sent, so that exporting again sends only
-- what is new (Zotero's connector adds items; it cannot change them).
CREATE TABLE IF NOT EXISTS exported (
	target   TEXT NOT NULL,
	key      TEXT NOT NULL,
	hash     TEXT NOT NULL,
	at       INTEGER NOT NULL,
	PRIMARY KEY (target, key)
);
`

// Highlight input limits.
const (
	MaxNote  = 10000
	MaxTags  = 20
	MaxTag   = 40
	MaxQuote = 4000
)

// CleanTags checks tags and returns them lower-cased, without a leading
// #, each once, in order; a tag is one word of letters, digits, - _ / .
func CleanTags(tags []string) ([]string, error) {
	var out []string
	for _, t := range tags {
		t = strings.ToLower(strings.TrimPrefix(strings.TrimSpace(t), "#"))
		if t == "" {
			continue
		}
		if utf8.RuneCountInString(t) > MaxTag {
			return nil, fmt.Errorf("invalid tag %q: at most %d characters", t, MaxTag)
		}
		for _, r := range t {
			if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !strings.ContainsRune("-_/.", r) {
				return nil, fmt.Errorf("invalid tag %q: letters, digits and - _ / . only (no spaces)", t)
			}
		}
		if !slices.Contains(out, t) {
			out = append(out, t)
		}
	}
	if len(out) > MaxTags {
		return nil, fmt.Errorf("invalid tags: at most %d, got %d", MaxTags, len(out))
	}
	return out, nil
}

// SplitNote reads what is typed on the reader's note line: the words
// that start with # are tags, the rest is the note.
func SplitNote(line string) (note string, tags []string) {
	var words []string
	for _, w := range strings.Fields(line) {
		if len(w) > 1 && w[0] == '#' {
			tags = append(tags, w[1:])
			continue
		}
		words = append(words, w)
	}
	return strings.Join(words, " "), tags
}

// ErrNoHighlight is an ID the library holds no highlight for.
var ErrNoHighlight = errors.New("no such highlight")

// AddHighlight keeps a highlight of the passage text[start:end] of item
// it (text is the item's body, as the reader showed it), and sets its ID.
func (s *Store) AddHighlight(ctx context.Context, it Item, start, end int, note string, tags []string) (Highlight, error) {
	if it.Kind != KindPage && it.Kind != KindResearch {
		return Highlight{}, fmt.Errorf("highlight: item %d is a %s; highlights are made in pages and reports", it.ID, it.Kind)
	}
	if start < 0 || end > len(it.Body) || start >= end {
		return Highlight{}, fmt.Errorf("highlight: invalid span %d–%d: must lie inside the item's %d bytes of text", start, end, len(it.Body))
	}
	a := api.AnchorAt(it.Body, start, end)
	if a.Quote == "" {
		return Highlight{}, errors.New("highlight: invalid span: it holds no words")
	}
	if utf8.RuneCountInString(a.Quote) > MaxQuote {
		return Highlight{}, fmt.Errorf("highlight: invalid quote: at most %d characters, got %d", MaxQuote, utf8.RuneCountInString(a.Quote))
	}
	if utf8.RuneCountInString(note) > MaxNote {
		return Highlight{}, fmt.Errorf("highlight: invalid note: at most %d characters", MaxNote)
	}
	tags, err := CleanTags(tags)
	if err != nil {
		return Highlight{}, fmt.Errorf("highlight: %w", err)
	}
	now := time.Now()
	h := Highlight{ItemID: it.ID, Kind: it.Kind, URL: it.URL, Title: it.Title, Anchor: a, Note: strings.TrimSpace(note), Tags: tags, Created: now, Updated: now}
	res, err := s.db.ExecContext(ctx, `INSERT INTO highlights(item_id, kind, url, title, quote, prefix, suffix, start_at, end_at, note, tags, created, updated)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		h.ItemID, h.Kind, h.URL, h.Title, a.Quote, a.Prefix, a.Suffix, a.Start, a.End, h.Note, strings.Join(tags, " "), now.UnixMilli(), now.UnixMilli())
	if err != nil {
		return Highlight{}, s.fault(err)
	}
	h.ID, _ = res.LastInsertId()
	return h, nil
}

// FindPassage is where quote sits in the item's text (by its words, as
// Locate finds a report's quote), searched from byte offset from.
func FindPassage(it Item, quote string, from int) (start, end int, ok bool) {
	return api.Locate(it.Body, quote, from)
}

// SetNote changes a highlight's note and tags.
func (s *Store) SetNote(ctx context.Context, id int64, note string, tags []string) error {
	if utf8.RuneCountInString(note) > MaxNote {
		return fmt.Errorf("highlight: invalid note: at most %d characters", MaxNote)
	}
	tags, err := CleanTags(tags)
	if err != nil {
		return fmt.Errorf("highlight: %w", err)
	}
	res, err := s.db.ExecContext(ctx, `UPDATE highlights SET note = ?, tags = ?, updated = ? WHERE id = ?`,
		strings.TrimSpace(note), strings.Join(tags, " "), time.Now().UnixMilli(), id)
	if err != nil {
		return s.fault(err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("highlight %d: %w", id, ErrNoHighlight)
	}
	return nil
}

const highlightColumns = `h.id, h.item_id, h.kind, h.url, h.title, h.quote, h.prefix, h.suffix, h.start_at, h.end_at, h.note, h.tags, h.created, h.updated`

func scanHighlight(sc interface{ Scan(...any) error }) (Highlight, error) {
	var h Highlight
	var tags string
	var c, u int64
	err := sc.Scan(&h.ID, &h.ItemID, &h.Kind, &h.URL, &h.Title, &h.Quote, &h.Prefix, &h.Suffix, &h.Start, &h.End, &h.Note, &tags, &c, &u)
	h.Tags = strings.Fields(tags)
	h.Created, h.Updated = time.UnixMilli(c), time.UnixMilli(u)
	return h, err
}

func (s *Store) queryHighlights(ctx context.Context, q string, args ...any) ([]Highlight, error) {
	rows, err := s.db.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	var out []Highlight
	for rows.Next() {
		h, err := scanHighlight(rows)
		if err != nil {
			return nil, s.fault(err)
		}
		out = append(out, h)
	}
	return out, rows.Err()
}

// GetHighlight returns one highlight.
func (s *Store) GetHighlight(ctx context.Context, id int64) (Highlight, error) {
	h, err := scanHighlight(s.db.QueryRowContext(ctx, `SELECT `+highlightColumns+` FROM highlights h WHERE h.id = ?`, id))
	if errors.Is(err, sql.ErrNoRows) {
		return Highlight{}, fmt.Errorf("highlight %d: %w", id, ErrNoHighlight)
	}
	if err != nil {
		return Highlight{}, s.fault(err)
	}
	return h, nil
}

// Highlights lists highlights newest first; with query, those whose
// quote, note, tags or title hold every word typed (the last as a
// prefix, as Search reads it), best first. limit <= 0 means no limit.
func (s *Store) Highlights(ctx context.Context, query string, limit int) ([]Highlight, error) {
	lim := ""
	if limit > 0 {
		lim = fmt.Sprintf(" LIMIT %d", limit)
	}
	m := matchExpr(query)
	if m == "" && strings.TrimSpace(query) != "" {
		return nil, ErrNoWords
	}
	if m != "" {
		return s.queryHighlights(ctx, `SELECT `+highlightColumns+` FROM highlights_fts JOIN highlights h ON h.id = highlights_fts.rowid
			WHERE highlights_fts MATCH ? ORDER BY bm25(highlights_fts, 3.0, 2.0, 2.0, 1.0), h.id DESC`+lim, m)
	}
	return s.queryHighlights(ctx, `SELECT `+highlightColumns+` FROM highlights h ORDER BY h.created DESC, h.id DESC`+lim)
}

// HighlightsOf lists the highlights of one source: those made in item id
// and, for a page, in any kept copy of its URL; in the order they sit.
func (s *Store) HighlightsOf(ctx context.Context, id int64, url string) ([]Highlight, error) {
	return s.queryHighlights(ctx, `SELECT `+highlightColumns+` FROM highlights h WHERE h.item_id = ? OR (? <> '' AND h.url = ?) ORDER BY h.start_at, h.id`, id, url, url)
}

// DeleteHighlights removes highlights, all or none (see DeleteIDs).
func (s *Store) DeleteHighlights(ctx context.Context, ids []int64) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fault(err)
	}
	defer tx.Rollback()
	var unknown []string
	for _, id := range ids {
		res, err := tx.ExecContext(ctx, `DELETE FROM highlights WHERE id = ?`, id)
		if err != nil {
			return s.fault(err)
		}
		if n, _ := res.RowsAffected(); n == 0 && !slices.Contains(unknown, fmt.Sprint(id)) {
			unknown = append(unknown, fmt.Sprint(id))
		}
	}
	if len(unknown) > 0 {
		return fmt.Errorf("highlight %s: %w", strings.Join(unknown, ", "), ErrNoHighlight)
	}
	if err := tx.Commit(); err != nil {
		return s.fault(err)
	}
	return nil
}

// newestPage is the newest kept copy of the page at url.
func (s *Store) newestPage(ctx context.Context, url string) (Item, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM items WHERE kind = ? AND url = ? ORDER BY created DESC, id DESC LIMIT 1`, KindPage, url).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, fmt.Errorf("page %s: %w", url, ErrNotFound)
	}
	if err != nil {
		return Item{}, s.fault(err)
	}
	return s.Get(ctx, id)
}

// Check finds each highlight in the newest kept copy of its page (its
// own item for a report): it stands, moved, or is gone from it, as
// verify says of a report's quotes.
func (s *Store) Check(ctx context.Context, hs []Highlight) error {
	bodies := map[int64]Item{}
	for i := range hs {
		h := &hs[i]
		var it Item
		var err error
		if h.URL != "" {
			it, err = s.newestPage(ctx, h.URL)
		}
		if h.URL == "" || errors.Is(err, ErrNotFound) {
			if c, ok := bodies[h.ItemID]; ok {
				it, err = c, nil
			} else {
				it, err = s.Get(ctx, h.ItemID)
			}
		}
		if errors.Is(err, ErrNotFound) {
			h.State = "" // no copy kept: nothing to check it against
			continue
		}
		if err != nil {
			return err
		}
		bodies[it.ID] = it
		h.NowItem = it.ID
		a := h.Anchor
		if it.ID != h.ItemID {
			// Another copy's offsets are not this one's: found by words.
			a.Start, a.End = -1, -1
		}
		h.State, h.NowFrom, h.NowTo = a.Verify(it.Body)
		if it.ID != h.ItemID && h.State == api.PassageMoved && h.NowFrom == h.Start {
			h.State = api.PassageStands
		}
	}
	return nil
}

// SourceOf is the kept copy a highlight opens in: the item it was made in,
// else (removed since) the newest copy of its page. ok is false when
// neither is kept: the quote is all there is.
func (s *Store) SourceOf(ctx context.Context, h Highlight) (Item, bool, error) {
	it, err := s.Get(ctx, h.ItemID)
	if errors.Is(err, ErrNotFound) && h.URL != "" {
		it, err = s.newestPage(ctx, h.URL)
	}
	if errors.Is(err, ErrNotFound) {
		return Item{}, false, nil
	}
	return it, err == nil, err
}

// PageFor is the kept copy of the page at url whose text is body, else
// the newest copy of it.
func (s *Store) PageFor(ctx context.Context, url, body string) (Item, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM items WHERE kind = ? AND url = ? AND body = ? ORDER BY created DESC, id DESC LIMIT 1`, KindPage, url, body).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return s.newestPage(ctx, url)
	}
	if err != nil {
		return Item{}, s.fault(err)
	}
	return s.Get(ctx, id)
}

// ReportFor is the newest kept report of question.
func (s *Store) ReportFor(ctx context.Context, question string) (Item, error) {
	var id int64
	err := s.db.QueryRowContext(ctx, `SELECT id FROM items WHERE kind = ? AND query = ? ORDER BY created DESC, id DESC LIMIT 1`, KindResearch, question).Scan(&id)
	if errors.Is(err, sql.ErrNoRows) {
		return Item{}, fmt.Errorf("report %q: %w", question, ErrNotFound)
	}
	if err != nil {
		return Item{}, s.fault(err)
	}
	return s.Get(ctx, id)
}
