package library

// Zotero, through its connector server: the local HTTP API that Zotero's
// browser connector uses (127.0.0.1:23119). /connector/ping says Zotero
// runs; /connector/saveItems saves items in the translator JSON format,
// notes as their children. The connector adds items and cannot change
// them, so the library records what it sent (table exported): exporting
// again sends a source never sent as a web page item with its highlights
// as notes, a highlight made since on a source already sent as a note
// that names and links the source, and nothing twice.

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"html"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ZoteroURL is where Zotero's connector server listens.
const ZoteroURL = "http://127.0.0.1:23119"

// zoteroAPIVersion is the connector API version hark speaks.
const zoteroAPIVersion = "3"

// ErrZoteroNotRunning is a connector port where nothing answers.
var ErrZoteroNotRunning = errors.New("Zotero is not running")

// Zotero is a client of Zotero's connector server.
type Zotero struct {
	URL    string       // ZoteroURL when ""
	Client *http.Client // a 10 s timeout when nil
}

func (z Zotero) base() string {
	if z.URL == "" {
		return ZoteroURL
	}
	return strings.TrimRight(z.URL, "/")
}

// Addr is the host and port of the connector asked.
func (z Zotero) Addr() string { return z.hostPort() }

func (z Zotero) hostPort() string {
	if u, err := url.Parse(z.base()); err == nil && u.Host != "" {
		return u.Host
	}
	return z.base()
}

func (z Zotero) client() *http.Client {
	if z.Client != nil {
		return z.Client
	}
	return &http.Client{Timeout: 10 * time.Second}
}

// notRunning says Zotero does not answer, naming the port.
func (z Zotero) notRunning(err error) error {
	return fmt.Errorf("%w: nothing answers on %s (Zotero's connector port; start Zotero, then export again); nothing was sent (%v)", ErrZoteroNotRunning, z.hostPort(), unwrapNet(err))
}

func unwrapNet(err error) error {
	var op *net.OpError
	if errors.As(err, &op) {
		return op.Err
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// Ping checks that Zotero's connector answers, and that it is Zotero.
func (z Zotero) Ping(ctx context.Context) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, z.base()+"/connector/ping", nil)
	if err != nil {
		return fmt.Errorf("zotero %s: %w", z.base(), err)
	}
	resp, err := z.client().Do(req)
	if err != nil {
		return z.notRunning(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), "Zotero is running") && resp.Header.Get("X-Zotero-Version") == "" {
		return fmt.Errorf("zotero: something answers on %s (HTTP %d) but not as Zotero's connector; nothing was sent", z.hostPort(), resp.StatusCode)
	}
	return nil
}

// zoteroItem is an item in the connector's translator JSON.
type zoteroItem struct {
	ID           string       `json:"id"`
	ItemType     string       `json:"itemType"`
	Title        string       `json:"title,omitempty"`
	URL          string       `json:"url,omitempty"`
	AccessDate   string       `json:"accessDate,omitempty"`
	WebsiteTitle string       `json:"websiteTitle,omitempty"`
	Note         string       `json:"note,omitempty"` // a standalone note's HTML
	Tags         []zoteroTag  `json:"tags,omitempty"`
	Notes        []zoteroNote `json:"notes,omitempty"`
	Attachments  []any        `json:"attachments"`
}

type zoteroTag struct {
	Tag string `json:"tag"`
}

type zoteroNote struct {
	Note string `json:"note"`
}

// ZoteroResult is what an export to Zotero did.
type ZoteroResult struct {
	Items int `json:"items"` // sources saved as new items
	Notes int `json:"notes"` // highlights sent as notes
	// Already counts highlights sent before and unchanged; Changed those
	// sent before and edited since, which the connector cannot update.
	Already int     `json:"already"`
	Changed []int64 `json:"changed,omitempty"`
}

// highlightHash is what a highlight said when it was sent.
func highlightHash(h Highlight) string {
	sum := sha256.Sum256([]byte(h.Quote + "\x00" + h.Note + "\x00" + strings.Join(h.Tags, " ")))
	return hex.EncodeToString(sum[:8])
}

// noteHTML is a highlight as a Zotero note: the quote as a blockquote,
// the note, its tags and a link back.
func noteHTML(src NoteSource, h Highlight, standalone bool) string {
	var b strings.Builder
	if standalone {
		fmt.Fprintf(&b, "<p>Highlight in <a href=\"%s\">%s</a></p>", html.EscapeString(srcLink(src)), html.EscapeString(src.Title))
	}
	fmt.Fprintf(&b, "<blockquote><p>%s</p></blockquote>", html.EscapeString(PlainQuote(h.Quote)))
	if h.Note != "" {
		fmt.Fprintf(&b, "<p>%s</p>", html.EscapeString(h.Note))
	}
	meta := fmt.Sprintf("<a href=\"%s\">open at the passage</a> · hark highlight %d", html.EscapeString(h.Link()), h.ID)
	if len(h.Tags) > 0 {
		meta += " · #" + html.EscapeString(strings.Join(h.Tags, " #"))
	}
	b.WriteString("<p>" + meta + "</p>")
	return b.String()
}

func srcLink(src NoteSource) string {
	if src.URL != "" {
		return src.URL
	}
	return src.Key
}

func zoteroTags(tags []string) []zoteroTag {
	out := make([]zoteroTag, len(tags))
	for i, t := range tags {
		out[i] = zoteroTag{Tag: t}
	}
	return out
}

// ExportZotero sends Zotero what it has not been sent of srcs, in one
// saveItems call, and records it once Zotero said it saved it: when
// Zotero is not running, or refuses, nothing is recorded and nothing is
// half-sent.
func (s *Store) ExportZotero(ctx context.Context, z Zotero, srcs []NoteSource) (ZoteroResult, error) {
	var res ZoteroResult
	if err := z.Ping(ctx); err != nil {
		return res, err
	}
	sent, err := s.exportedKeys(ctx, "zotero")
	if err != nil {
		return res, err
	}
	var items []zoteroItem
	record := map[string]string{}
	for i, src := range srcs {
		var fresh []Highlight
		for _, h := range src.Highlights {
			key := fmt.Sprintf("highlight:%d", h.ID)
			switch old, ok := sent[key]; {
			case !ok:
				fresh = append(fresh, h)
				record[key] = highlightHash(h)
			case old != highlightHash(h):
				res.Changed = append(res.Changed, h.ID)
			default:
				res.Already++
			}
		}
		srcKey := "source:" + src.Key
		if _, ok := sent[srcKey]; !ok {
			it := zoteroItem{ID: fmt.Sprintf("hark-%d", i+1), ItemType: "webpage", Title: src.Title, URL: src.URL,
				AccessDate: src.Accessed.UTC().Format("2006-01-02 15:04:05"), Tags: zoteroTags(src.Tags()), Attachments: []any{}}
			if src.URL == "" {
				it.ItemType = "report"
				it.URL = ""
			} else if u, err := url.Parse(src.URL); err == nil {
				it.WebsiteTitle = u.Host
			}
			for _, h := range fresh {
				it.Notes = append(it.Notes, zoteroNote{Note: noteHTML(src, h, false)})
			}
			items = append(items, it)
			record[srcKey] = ""
			res.Items++
			res.Notes += len(fresh)
			continue
		}
		for j, h := range fresh {
			items = append(items, zoteroItem{ID: fmt.Sprintf("hark-%d-%d", i+1, j+1), ItemType: "note", Note: noteHTML(src, h, true),
				Tags: zoteroTags(h.Tags), Attachments: []any{}})
			res.Notes++
		}
	}
	if len(items) == 0 {
		return res, nil
	}
	uri := "hark://notes"
	if len(srcs) == 1 && srcs[0].URL != "" {
		uri = srcs[0].URL
	}
	if err := z.saveItems(ctx, items, uri); err != nil {
		return ZoteroResult{Already: res.Already}, err
	}
	if err := s.recordExported(ctx, "zotero", record); err != nil {
		return res, fmt.Errorf("zotero saved the items, but the library could not record it (exporting again would send them again): %w", err)
	}
	return res, nil
}

func (z Zotero) saveItems(ctx context.Context, items []zoteroItem, uri string) error {
	var sid [8]byte
	rand.Read(sid[:])
	body, err := json.Marshal(map[string]any{"items": items, "uri": uri, "sessionID": "hark-" + hex.EncodeToString(sid[:])})
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, z.base()+"/connector/saveItems", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Zotero-Connector-API-Version", zoteroAPIVersion)
	resp, err := z.client().Do(req)
	if err != nil {
		return z.notRunning(err)
	}
	defer resp.Body.Close()
	msg, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
	switch {
	case resp.StatusCode == http.StatusCreated:
		return nil
	case resp.StatusCode == http.StatusInternalServerError && strings.Contains(string(msg), "libraryEditable"):
		return errors.New("zotero: the library selected in Zotero is read-only; select My Library (or an editable group) and export again; nothing was saved")
	case strings.Contains(string(msg), "CONNECTOR_VERSION_OUTDATED"):
		return errors.New("zotero: Zotero says this connector API version is outdated; nothing was saved")
	}
	return fmt.Errorf("zotero: saveItems answered HTTP %d (%s); nothing was recorded as sent", resp.StatusCode, strings.TrimSpace(string(msg)))
}

func (s *Store) exportedKeys(ctx context.Context, target string) (map[string]string, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT key, hash FROM exported WHERE target = ?`, target)
	if err != nil {
		return nil, s.fault(err)
	}
	defer rows.Close()
	out := map[string]string{}
	for rows.Next() {
		var k, h string
		if err := rows.Scan(&k, &h); err != nil {
			return nil, s.fault(err)
		}
		out[k] = h
	}
	return out, rows.Err()
}

func (s *Store) recordExported(ctx context.Context, target string, keys map[string]string) error {
	tx, err := s.db.BeginTx(ctx, nil)
	if err != nil {
		return s.fault(err)
	}
	defer tx.Rollback()
	now := time.Now().UnixMilli()
	for k, h := range keys {
		if _, err := tx.ExecContext(ctx, `INSERT INTO exported(target, key, hash, at) VALUES (?, ?, ?, ?)
			ON CONFLICT(target, key) DO UPDATE SET hash = excluded.hash, at = excluded.at`, target, k, h, now); err != nil {
			return s.fault(err)
		}
	}
	if err := tx.Commit(); err != nil {
		return s.fault(err)
	}
	return nil
}
