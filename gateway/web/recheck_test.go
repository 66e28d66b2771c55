package web

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/gateway/engine"
)

// A site that sends Last-Modified and no ETag (a static file server's
// way) is asked again with If-Modified-Since, and an unchanged page
// costs it a 304; a changed one is read whole.
func TestRecheckLastModifiedWithoutETag(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	modified := time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC)
	text := "Its stripes hide it in the forest."
	var asked []string // each page request's If-Modified-Since
	notMod := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/okapi" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		defer mu.Unlock()
		ims := r.Header.Get("If-Modified-Since")
		asked = append(asked, ims)
		if r.Header.Get("If-None-Match") != "" {
			t.Errorf("If-None-Match sent to a site that never gave an ETag: %q", r.Header.Get("If-None-Match"))
		}
		if t, err := http.ParseTime(ims); err == nil && !modified.After(t) {
			notMod++
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("Last-Modified", modified.Format(http.TimeFormat))
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(article("Okapi facts", "<p>The okapi is a giraffid of the Congo rainforest. "+text+"</p><p>"+lorem+"</p>", "")))
	}))
	t.Cleanup(srv.Close)
	e := testEngine(t, nil)
	ctx := context.Background()
	url := srv.URL + "/okapi"

	first, err := e.Recheck(ctx, url, "", "")
	if err != nil {
		t.Fatal(err)
	}
	if first.NotModified || first.ETag != "" || first.LastModified != modified.Format(http.TimeFormat) || !strings.Contains(first.Text, "stripes hide it") {
		t.Fatalf("first read: %+v", first)
	}
	again, err := e.Recheck(ctx, url, first.ETag, first.LastModified)
	if err != nil {
		t.Fatal(err)
	}
	if !again.NotModified || again.LastModified != first.LastModified || again.Text != "" {
		t.Errorf("unchanged page: %+v, want a 304 keeping Last-Modified", again)
	}
	mu.Lock()
	modified, text = modified.Add(time.Hour), "Its stripes mark it out among the trees."
	mu.Unlock()
	changed, err := e.Recheck(ctx, url, again.ETag, again.LastModified)
	if err != nil {
		t.Fatal(err)
	}
	if changed.NotModified || !strings.Contains(changed.Text, "mark it out") || changed.LastModified != modified.Format(http.TimeFormat) {
		t.Errorf("changed page: %+v", changed)
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"", first.LastModified, first.LastModified}
	if strings.Join(asked, "|") != strings.Join(want, "|") || notMod != 1 {
		t.Errorf("If-Modified-Since sent %q, want %q; 304s %d, want 1", asked, want, notMod)
	}
}

// A 429 or 503 that says when to come back (Retry-After in seconds or
// as an HTTP date) carries the wait to the watch's backoff and says it;
// other statuses, and those without the header, carry none.
func TestRecheckRetryAfter(t *testing.T) {
	t.Parallel()
	date := time.Now().Add(90 * time.Second).UTC().Format(http.TimeFormat)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/seconds":
			w.Header().Set("Retry-After", "120")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case "/date":
			w.Header().Set("Retry-After", date)
			http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		case "/bare":
			http.Error(w, "down", http.StatusServiceUnavailable)
		case "/garbled":
			w.Header().Set("Retry-After", "soon")
			http.Error(w, "slow down", http.StatusTooManyRequests)
		case "/other":
			w.Header().Set("Retry-After", "120") // meaningless on a 500
			http.Error(w, "broken", http.StatusInternalServerError)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	e := testEngine(t, nil)
	for _, c := range []struct {
		path     string
		min, max time.Duration
		msg      string
	}{
		{"/seconds", 120 * time.Second, 120 * time.Second, "HTTP status 429 (the site asks to retry after 2m0s)"},
		{"/date", 80 * time.Second, 90 * time.Second, "HTTP status 503 (the site asks to retry after 1m"},
		{"/bare", 0, 0, "HTTP status 503"},
		{"/garbled", 0, 0, "HTTP status 429"},
		{"/other", 0, 0, "HTTP status 500"},
	} {
		_, err := e.Recheck(context.Background(), srv.URL+c.path, "", "")
		if err == nil {
			t.Errorf("%s: no error", c.path)
			continue
		}
		if d := engine.RetryAfter(err); d < c.min || d > c.max {
			t.Errorf("%s: waits %v, want %v to %v", c.path, d, c.min, c.max)
		}
		if !strings.HasPrefix(err.Error(), c.msg) || c.max == 0 && err.Error() != c.msg {
			t.Errorf("%s: %q, want %q", c.path, err, c.msg)
		}
	}
}

// A Last-Modified in the same second as the answer (a file written just
// before it was read) is not asked with: the page may change again in
// that second, and the server would answer 304.
func TestRecheckSkipsAWeakLastModified(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var asked []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/okapi" {
			http.NotFound(w, r)
			return
		}
		mu.Lock()
		asked = append(asked, r.Header.Get("If-Modified-Since"))
		mu.Unlock()
		now := time.Now().UTC().Format(http.TimeFormat)
		w.Header().Set("Date", now)
		w.Header().Set("Last-Modified", now)
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		w.Write([]byte(article("Okapi facts", "<p>The okapi is a giraffid of the Congo rainforest.</p><p>"+lorem+"</p>", "")))
	}))
	t.Cleanup(srv.Close)
	e := testEngine(t, nil)
	first, err := e.Recheck(context.Background(), srv.URL+"/okapi", "", "")
	if err != nil {
		t.Fatal(err)
	}
	if first.LastModified != "" {
		t.Errorf("a Last-Modified of the answer's own second was kept: %q", first.LastModified)
	}
	if !weakLastModified("Mon, 07 Dec 2026 12:00:00 GMT", "Mon, 07 Dec 2026 12:00:00 GMT") || weakLastModified("Mon, 07 Dec 2026 11:59:58 GMT", "Mon, 07 Dec 2026 12:00:00 GMT") || weakLastModified("Mon, 07 Dec 2026 12:00:00 GMT", "") {
		t.Error("weakLastModified")
	}
}
