// Package zoterotest is a fake of Zotero's connector server for tests: it
// speaks the requests and answers of the local HTTP API that Zotero's
// browser connector uses (GET /connector/ping, POST /connector/saveItems
// with translator JSON), on loopback, and keeps what it was sent. It
// checks what the real server checks (a session ID used once, the
// connector API version, an editable library) and answers as it does.
package zoterotest

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
)

// Item is a saved item as the connector received it.
type Item struct {
	ID       string `json:"id"`
	ItemType string `json:"itemType"`
	Title    string `json:"title"`
	URL      string `json:"url"`
	Note     string `json:"note"`
	Tags     []struct {
		Tag string `json:"tag"`
	} `json:"tags"`
	Notes []struct {
		Note string `json:"note"`
	} `json:"notes"`
}

// Zotero is the fake's state.
type Zotero struct {
	mu       sync.Mutex
	items    []Item
	sessions map[string]bool
	// ReadOnly answers saves as Zotero does when the selected library is
	// not editable.
	ReadOnly bool
}

// New returns an empty fake.
func New() *Zotero { return &Zotero{sessions: map[string]bool{}} }

// Items are the items saved so far, in order.
func (z *Zotero) Items() []Item {
	z.mu.Lock()
	defer z.mu.Unlock()
	return append([]Item(nil), z.items...)
}

// Start serves the fake on a loopback port until the test ends.
func Start(t interface{ Cleanup(func()) }) (*Zotero, string) {
	z := New()
	srv := httptest.NewServer(z)
	t.Cleanup(srv.Close)
	return z, srv.URL
}

// ServeHTTP answers as Zotero's connector server does.
func (z *Zotero) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("X-Zotero-Version", "7.0.11")
	w.Header().Set("X-Zotero-Connector-API-Version", "3")
	switch r.URL.Path {
	case "/connector/ping":
		if r.Method == http.MethodGet {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, "<!DOCTYPE html><html><body>Zotero is running</body></html>")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"prefs":{"automaticSnapshots":true}}`)
	case "/connector/saveItems":
		z.saveItems(w, r)
	case "/hark-fake/items":
		// The fake's own route: what it was sent, for scripts to read.
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(z.Items())
	default:
		http.Error(w, "No endpoint found", http.StatusNotFound)
	}
}

func (z *Zotero) saveItems(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		http.Error(w, "Method not allowed", http.StatusBadRequest)
		return
	}
	if r.Header.Get("Content-Type") != "application/json" {
		http.Error(w, "Content-Type not supported", http.StatusBadRequest)
		return
	}
	if v := r.Header.Get("X-Zotero-Connector-API-Version"); v != "" {
		if n, err := strconv.Atoi(v); err == nil && n < 3 {
			w.WriteHeader(http.StatusBadRequest)
			fmt.Fprint(w, `{"error":"CONNECTOR_VERSION_OUTDATED"}`)
			return
		}
	}
	var body struct {
		Items     []Item `json:"items"`
		URI       string `json:"uri"`
		SessionID string `json:"sessionID"`
	}
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(w, "Bad JSON", http.StatusBadRequest)
		return
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if body.SessionID != "" {
		if z.sessions[body.SessionID] {
			w.WriteHeader(http.StatusConflict)
			fmt.Fprint(w, `{"error":"SESSION_EXISTS"}`)
			return
		}
		z.sessions[body.SessionID] = true
	}
	if z.ReadOnly {
		w.WriteHeader(http.StatusInternalServerError)
		fmt.Fprint(w, `{"libraryEditable":false}`)
		return
	}
	for _, it := range body.Items {
		if it.ItemType == "" {
			w.WriteHeader(http.StatusInternalServerError)
			return
		}
	}
	z.items = append(z.items, body.Items...)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusCreated)
}
