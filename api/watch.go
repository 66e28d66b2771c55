package api

// Watched sources are a hark extension beyond the gateway interface: the
// gateway reads a page again when it falls due (its extracted text, not
// its HTML), politely, and keeps the text before and after its last
// change, for the client to show as a word diff.

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Watch routes.
const (
	PathWatches        = PathPrefix + "/watches"
	PathWatchFmt       = PathWatches + "/%s"       // %s = watch ID; GET gives the texts, DELETE removes
	PathWatchCheckFmt  = PathWatches + "/%s/check" // POST: check now
	PathWatchSeenFmt   = PathWatches + "/%s/seen"  // POST: the change was looked at
	PathWatchesCheck   = PathWatches + "/check"    // POST: check every watch due now
	MinWatchEvery      = time.Minute
	MaxWatchEvery      = 365 * 24 * time.Hour
	DefaultWatchEvery  = 24 * time.Hour
	MaxWatchLabel      = 200
	MaxWatchesPerSpace = 1000
)

// Watch is one watched page.
type Watch struct {
	ID           string     `json:"id"`
	URL          string     `json:"url"`
	Label        string     `json:"label,omitempty"`
	EverySeconds int64      `json:"every_seconds"`
	AllowPrivate bool       `json:"allow_private,omitempty"`
	Created      time.Time  `json:"created"`
	CheckedAt    *time.Time `json:"checked_at,omitempty"`
	NextAt       time.Time  `json:"next_at"`
	ChangedAt    *time.Time `json:"changed_at,omitempty"`
	// Changed: the page changed since the change was last looked at.
	Changed  bool   `json:"changed"`
	Checks   int    `json:"checks"`
	Failures int    `json:"failures,omitempty"` // in a row; the next check backs off
	Error    string `json:"error,omitempty"`    // the last check's failure
}

// State is the watch in a few words, as hark watch list and the
// Library's watched pages say it: "failing ×N", "CHANGED" (not looked at
// yet), "not read yet", "last change Dec 07 21:40" (a change looked at:
// the page reads as it did then), or "unchanged" since the first read.
func (w Watch) State() string {
	switch {
	case w.Error != "":
		return fmt.Sprintf("failing ×%d", w.Failures)
	case w.Changed:
		return "CHANGED"
	case w.Checks == 0:
		return "not read yet"
	case w.ChangedAt != nil:
		return "last change " + w.ChangedAt.Local().Format("Jan 02 15:04")
	}
	return "unchanged"
}

// NoChange says why a watch has no change to show (ChangedAt is nil):
// its page could not be read yet, is not read yet, or has not changed
// since it was first read; "page" stands for the page's name.
func (w Watch) NoChange(page string) string {
	switch {
	case w.Error != "" && w.CheckedAt != nil && w.Checks <= w.Failures:
		return page + " could not be read yet (" + w.Error + ")"
	case w.Checks == 0 || w.CheckedAt == nil:
		return page + " is not read yet"
	}
	return page + " has not changed since it was first read"
}

// WatchLabel is a label made from a kept item's title (a report's
// question may run to thousands of characters): cut to MaxWatchLabel
// characters, with "…", so that watching the item is never refused for a
// label its user did not write.
func WatchLabel(title string) string {
	r := []rune(strings.TrimSpace(title))
	if len(r) <= MaxWatchLabel {
		return string(r)
	}
	return strings.TrimSpace(string(r[:MaxWatchLabel-1])) + "…"
}

// Every is how often the page is read again.
func (w Watch) Every() time.Duration { return time.Duration(w.EverySeconds) * time.Second }

// WatchAdd is the body of POST PathWatches.
type WatchAdd struct {
	URL          string `json:"url"`
	Every        string `json:"every,omitempty"` // 30m, 12h, 1d, 1w; default 1d
	Label        string `json:"label,omitempty"`
	AllowPrivate bool   `json:"allow_private,omitempty"`
}

// WatchList is GET PathWatches's data.
type WatchList struct {
	Watches []Watch `json:"watches"`
	Changed int     `json:"changed"` // how many changed since looked at
}

// WatchTexts is GET PathWatchFmt's data: the page's text before its last
// change and now ("" before the first read, Previous "" until a change).
type WatchTexts struct {
	Watch
	Previous string `json:"previous"`
	Current  string `json:"current"`
}

// ParseEvery reads an interval: a number and a unit, m (minutes), h,
// d (days) or w (weeks), from a minute to a year.
func ParseEvery(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return DefaultWatchEvery, nil
	}
	units := map[byte]time.Duration{'m': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour, 'w': 7 * 24 * time.Hour}
	unit, ok := units[s[len(s)-1]]
	n, err := strconv.Atoi(s[:len(s)-1])
	if !ok || err != nil || n <= 0 {
		return 0, fmt.Errorf("invalid every %q: a whole number and m, h, d or w (30m, 12h, 1d, 1w)", s)
	}
	d := time.Duration(n) * unit
	if d < MinWatchEvery || d > MaxWatchEvery {
		return 0, fmt.Errorf("invalid every %q: from 1m to 52w", s)
	}
	return d, nil
}

// EveryText says an interval as ParseEvery reads it: 1d, 12h, 2w.
func EveryText(d time.Duration) string {
	switch {
	case d%(7*24*time.Hour) == 0:
		return fmt.Sprintf("%dw", d/(7*24*time.Hour))
	case d%(24*time.Hour) == 0:
		return fmt.Sprintf("%dd", d/(24*time.Hour))
	case d%time.Hour == 0:
		return fmt.Sprintf("%dh", d/time.Hour)
	}
	return fmt.Sprintf("%dm", d/time.Minute)
}

// AddWatch watches a page.
func (c *Client) AddWatch(ctx context.Context, in WatchAdd) (*Watch, error) {
	data, err := c.post(ctx, PathWatches, in)
	if err != nil {
		return nil, err
	}
	var w Watch
	return &w, decodeData(data, &w)
}

// Watches lists the workspace's watches.
func (c *Client) Watches(ctx context.Context) (*WatchList, error) {
	data, err := c.get(ctx, PathWatches)
	if err != nil {
		return nil, err
	}
	var l WatchList
	return &l, decodeData(data, &l)
}

// WatchTexts is a watch with its page's text before and after its last change.
func (c *Client) WatchTexts(ctx context.Context, id string) (*WatchTexts, error) {
	data, err := c.get(ctx, fmt.Sprintf(PathWatchFmt, url.PathEscape(id)))
	if err != nil {
		return nil, err
	}
	var t WatchTexts
	return &t, decodeData(data, &t)
}

// RemoveWatch stops watching.
func (c *Client) RemoveWatch(ctx context.Context, id string) error {
	data, err := c.do(ctx, call{method: http.MethodDelete, path: fmt.Sprintf(PathWatchFmt, url.PathEscape(id))}, c.timeout)
	if err != nil {
		return err
	}
	var out struct {
		Removed string `json:"removed"`
	}
	if err := decodeData(data, &out); err != nil || out.Removed != id {
		return &Error{HTTPStatus: 200, Code: CodeOK, Message: "remove watch: data is not {removed}: " + snippet(data)}
	}
	return nil
}

// CheckWatch reads a watched page now ("" checks every watch due).
func (c *Client) CheckWatch(ctx context.Context, id string) (*WatchList, error) {
	p := PathWatchesCheck
	if id != "" {
		p = fmt.Sprintf(PathWatchCheckFmt, url.PathEscape(id))
	}
	data, err := c.post(ctx, p, struct{}{})
	if err != nil {
		return nil, err
	}
	var l WatchList
	return &l, decodeData(data, &l)
}

// SeenWatch says the watch's change was looked at.
func (c *Client) SeenWatch(ctx context.Context, id string) error {
	data, err := c.post(ctx, fmt.Sprintf(PathWatchSeenFmt, url.PathEscape(id)), struct{}{})
	if err != nil {
		return err
	}
	var out struct {
		Seen string `json:"seen"`
	}
	if err := decodeData(data, &out); err != nil || out.Seen != id {
		return &Error{HTTPStatus: 200, Code: CodeOK, Message: "watch seen: data is not {seen}: " + snippet(data)}
	}
	return nil
}

func decodeData(data json.RawMessage, v any) error {
	if err := json.Unmarshal(data, v); err != nil {
		return &Error{HTTPStatus: 200, Code: CodeOK, Message: "watch: data of the wrong shape: " + snippet(data)}
	}
	return nil
}
