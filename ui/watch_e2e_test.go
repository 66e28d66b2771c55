package ui

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/gateway"
	"hark/gateway/embedded"
	"hark/library"
	"hark/ui/common"
)

// A page served on loopback is read, highlighted and watched; it
// changes; the status bar says a watched page changed, the Library's
// watched pages show it, and its diff is the word diff of the change,
// with the highlight on the sentence it rewrote flagged.
func TestE2EWatchedPageChanges(t *testing.T) {
	var mu sync.Mutex
	sentence := "Its stripes hide it in the forest."
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Okapi facts</title></head><body><article><h1>Okapi facts</h1>
<p>The okapi is a giraffid of the Congo rainforest. %s</p><p>It eats leaves, buds and fungi, and it is shy.</p></article></body></html>`, sentence)
	}))
	t.Cleanup(site.Close)
	page := site.URL + "/okapi"
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	cl, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	// The page kept and highlighted, as the reader would.
	s, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	out, err := cl.Extract(ctx, api.ExtractInput{URLs: api.URLList{page}, Format: "text"})
	if err != nil || len(out.Results) != 1 {
		t.Fatalf("extract: %v", err)
	}
	it := &library.Item{Kind: library.KindPage, Tool: api.ToolExtract, Title: "Okapi facts", URL: page, Body: out.Results[0].RawContent}
	s.Add(ctx, it)
	start, end, _ := library.FindPassage(*it, "Its stripes hide it in the forest", 0)
	h, err := s.AddHighlight(ctx, *it, start, end, "camouflage", nil)
	if err != nil {
		t.Fatal(err)
	}
	r := startWith(t, g.URL, g.APIKey, 100, 30, func(c *common.Common) {
		c.Library = func() (*library.Store, error) { return s, nil }
		c.AllowPrivate = true
	})
	// w on the page in the Library watches it.
	r.keys("6")
	r.waitFor("the page in the Library", screenHas("Okapi facts"))
	r.keys("w")
	r.waitFor("how often", screenHas("watch every 1d"))
	r.keys("enter")
	r.waitFor("watching", screenHas("watching 1 page, every 1d"))
	r.keys("W")
	r.waitFor("the watched page", screenHas("not read yet"))
	r.keys("c")
	r.waitFor("the first read", screenHas("unchanged"))

	mu.Lock()
	sentence = "Its stripes mark it out among the trees."
	mu.Unlock()
	r.keys("c")
	r.waitFor("the change", screenHas("CHANGED"))
	r.keys("1")
	r.waitFor("the status bar's count", screenHas("◉ 1 watched changed"))
	// enter on the watched page reads it in Pages, at its change.
	r.keys("6")
	r.keys("enter")
	r.waitFor("the reader, at the change", screenHas("· the change"))
	r.waitFor("the word diff", screenHas("[-hide-]"))
	r.waitFor("the inserted words", screenHas("{+mark+}"))
	r.waitFor("the flagged highlight", screenHas(fmt.Sprintf("! highlight %d (gone): “Its stripes hide it in the forest”", h.ID)))
	r.waitFor("the paragraph it left alone, left out", func(m *Model) bool { return !strings.Contains(m.Render(), "and it is shy") })
	// esc: the page as it reads now, the change still one key away.
	r.keys("esc")
	r.waitFor("the page after the change", screenHas("Its stripes mark it out among the trees."))
	r.waitFor("the title line's word on the change", screenHas("· changed "))
	r.keys("1")
	r.waitFor("the count gone once looked at", func(m *Model) bool { return !strings.Contains(m.View().Content, "watched changed") })

	// The kept copy, opened from the Library's items, reads as it was
	// kept; D shows what changed since.
	r.keys("6", "W")
	r.waitFor("the Library's items", screenHas("Okapi facts"))
	r.keys("enter")
	r.waitFor("the kept copy", screenHas("Its stripes hide it in the forest."))
	r.waitFor("the kept copy's title line", screenHas("· changed "))
	r.keys("D")
	r.waitFor("the change from the kept copy", screenHas("{+mark+}"))
	r.keys("D")
	r.waitFor("the kept copy again", screenHas("Its stripes hide it in the forest."))
}

// A check the embedded gateway's loop runs in the background finds a
// change: the status bar counts it, and the Library's watched pages say
// CHANGED, with no key pressed. (The gateway's clock is moved past the
// watch's minute; the loop and the count's poll are shortened.)
func TestE2EBackgroundCheckCountsAChange(t *testing.T) {
	var mu sync.Mutex
	sentence := "Its stripes hide it in the forest."
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Okapi facts</title></head><body><article><h1>Okapi facts</h1>
<p>The okapi is a giraffid of the Congo rainforest. %s</p><p>It eats leaves, buds and fungi, and it is shy.</p></article></body></html>`, sentence)
	}))
	t.Cleanup(site.Close)
	now := time.Now()
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{AllowPrivate: true,
		WatchTiming: gateway.WatchTiming{Period: 50 * time.Millisecond, Now: clock}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	cl, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cl.AddWatch(ctx, api.WatchAdd{URL: site.URL + "/okapi", Every: "1m", AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := library.Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	r := startTuned(t, g.URL, g.APIKey, 100, 30, func(c *common.Common) {
		c.Library = func() (*library.Store, error) { return s, nil }
		c.AllowPrivate = true
	}, func(m *Model) {
		m.watchPoll = watchPoll{Min: 20 * time.Millisecond, Max: 100 * time.Millisecond, Idle: 100 * time.Millisecond}
	})
	r.keys("6", "W")
	// The loop reads the baseline by itself: the list shows it unchanged.
	r.waitFor("the baseline, read in the background", screenHas("unchanged"))
	if l, err := cl.Watches(ctx); err != nil || l.Watches[0].ID != w.ID || l.Watches[0].Checks < 1 {
		t.Fatalf("watches: %+v %v", l, err)
	}
	mu.Lock()
	sentence = "Its stripes mark it out among the trees."
	now = now.Add(2 * time.Minute)
	mu.Unlock()
	r.waitFor("the status bar's count, with no key pressed", screenHas("◉ 1 watched changed"))
	r.waitFor("the watched pages, reloaded", screenHas("CHANGED"))
}

// The count is asked again just after the next watch falls due, within
// bounds; slowly when nothing is watched or the gateway did not answer.
func TestWatchPollAfter(t *testing.T) {
	t.Parallel()
	p := defaultWatchPoll()
	now := time.Date(2026, 12, 1, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		msg  common.WatchesMsg
		want time.Duration
	}{
		{common.WatchesMsg{Watched: 2, Next: now.Add(30 * time.Second)}, 33 * time.Second},
		{common.WatchesMsg{Watched: 2, Next: now.Add(-time.Minute)}, 15 * time.Second}, // overdue: being checked
		{common.WatchesMsg{Watched: 2, Next: now.Add(24 * time.Hour)}, time.Minute},
		{common.WatchesMsg{}, 5 * time.Minute},
		{common.WatchesMsg{Err: fmt.Errorf("not found")}, 5 * time.Minute},
	} {
		if got := p.after(c.msg, now); got != c.want {
			t.Errorf("%+v: %v, want %v", c.msg, got, c.want)
		}
	}
}
