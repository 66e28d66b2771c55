package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"hark/library"
)

// watchedSite is a loopback site whose page changes when told, answering
// conditional requests as a careful server does.
type watchedSite struct {
	mu       sync.Mutex
	body     string
	etag     string
	fail     bool
	gets     int
	notMod   int
	robotsOK bool
}

func (s *watchedSite) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if r.URL.Path == "/robots.txt" {
		fmt.Fprint(w, "User-agent: *\nDisallow: /private/\n")
		return
	}
	if strings.HasPrefix(r.URL.Path, "/private/") {
		fmt.Fprint(w, "<html><body><p>never read</p></body></html>")
		return
	}
	s.gets++
	if s.fail {
		http.Error(w, "down for maintenance", http.StatusServiceUnavailable)
		return
	}
	if r.Header.Get("If-None-Match") == s.etag {
		s.notMod++
		w.WriteHeader(http.StatusNotModified)
		return
	}
	w.Header().Set("ETag", s.etag)
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	fmt.Fprint(w, s.body)
}

func (s *watchedSite) set(body, etag string) {
	s.mu.Lock()
	s.body, s.etag = body, etag
	s.mu.Unlock()
}

const okapiHTML = `<html><head><title>Okapi facts</title></head><body><article><h1>Okapi facts</h1>
<p>The okapi is a giraffid of the Congo. Its stripes hide it in the forest.</p><p>It eats leaves and fruit, and it is shy.</p></article></body></html>`

// A watched page served on loopback changes: the check sees it (after a
// 304 while it did not), the list says it changed, the diff is a word
// diff of its text, and the highlight on the sentence it rewrote is
// flagged; the one it left alone is not.
func TestWatchChangedPage(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded gateway")
	}
	t.Parallel()
	site := &watchedSite{}
	site.set(okapiHTML, `"v1"`)
	srv := httptest.NewServer(site)
	defer srv.Close()
	page := srv.URL + "/okapi"
	data := t.TempDir()
	// The embedded gateway reads loopback pages (as --allow-private lets
	// it), and so watches them; without the setting, a watch of one
	// needs its own --allow-private.
	private := withEnv("HARK_ALLOW_PRIVATE", "1")
	local := func(args ...string) (int, string, string) {
		return harkApp(t, context.Background(), func(h *hooks) { noGateway(h); private(h) }, nil, "", append([]string{"--data-dir", data}, args...)...)
	}
	strict := func(args ...string) (int, string, string) {
		return harkApp(t, context.Background(), func(h *hooks) { noGateway(h); withEnv("HARK_ALLOW_PRIVATE", "0")(h) }, nil, "", append([]string{"--data-dir", t.TempDir()}, args...)...)
	}
	if code, _, errs := strict("watch", "add", page); code != exitUsage || !strings.Contains(errs, "127.0.0.1 is a private, loopback or link-local address; watching it needs allow_private (hark watch add --allow-private)") {
		t.Errorf("a loopback watch without allow_private: %d %q", code, errs)
	}

	// Bad input: a loopback page without --allow-private, an interval
	// out of range, a URL that is none, an unknown watch.
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"watch", "add", "--allow-private", "--every", "30s", page}, `--every: invalid every "30s"`},
		{[]string{"watch", "add", "ftp://x.example/"}, "neither an http(s) URL nor a library ID"},
		{[]string{"watch", "diff", "nothex"}, `watch ID "nothex": a whole ID or its first 4 or more characters (hark watch list lists them)`},
		{[]string{"watch", "diff", "abcdef"}, "no watch whose ID starts with abcdef"},
		{[]string{"watch", "rm", "0123456789abcdef"}, "no watch has this id"},
	} {
		code, _, errs := local(c.args...)
		if code != exitUsage || !strings.Contains(errs, c.want) {
			t.Errorf("%v: %d %q, want 2 and %q", c.args, code, errs, c.want)
		}
	}

	// The page read and highlighted, then watched. (Each command that
	// starts the embedded gateway also checks what is due, as hark does
	// when it runs: the counts of reads are at least, not exactly.)
	if code, _, errs := local("extract", "--format", "text", page); code != 0 {
		t.Fatalf("extract: %s", errs)
	}
	code, out, _ := local("library", "list", "--json")
	var items []library.Item
	if code != 0 || json.Unmarshal([]byte(out), &items) != nil || len(items) != 1 {
		t.Fatalf("library: %s", out)
	}
	id := fmt.Sprint(items[0].ID)
	for _, q := range []string{"Its stripes hide it in the forest", "It eats leaves and fruit"} {
		if code, _, errs := local("notes", "add", id, "--quote", q); code != 0 {
			t.Fatalf("notes add: %s", errs)
		}
	}
	// HARK_ALLOW_PRIVATE=1, as hark extract took it, is enough to watch
	// the page: no --allow-private.
	code, out, errs := local("watch", "add", "--every", "1d", "--json", id)
	var added []struct{ ID, URL string }
	if code != 0 || json.Unmarshal([]byte(out), &added) != nil || len(added) != 1 || added[0].URL != page {
		t.Fatalf("watch add: %d %s %s", code, out, errs)
	}
	w := added[0].ID
	check := func() string {
		t.Helper()
		code, out, errs := local("watch", "check", w)
		if code != 0 {
			t.Fatalf("check: %d %s", code, errs)
		}
		return out
	}
	if out := check(); !strings.Contains(out, "unchanged") {
		t.Errorf("first check: %s", out)
	}
	if out := check(); !strings.Contains(out, "unchanged") || site.notMod < 1 {
		t.Errorf("second check: %s (304s: %d)", out, site.notMod)
	}
	site.set(strings.Replace(okapiHTML, "Its stripes hide it", "Its stripes mark it out", 1), `"v2"`)
	if out := check(); !strings.Contains(out, "CHANGED") || !strings.Contains(out, "1 watched page changed since last looked at") {
		t.Errorf("after the change: %s", out)
	}
	// The first characters of its ID name it, as the list is read.
	code, out, errs = local("watch", "diff", w[:6])
	if flat := strings.Join(strings.Fields(out), " "); code != 0 || !strings.Contains(flat, "stripes [-hide-] {+mark+} it {+out+} in the forest") {
		t.Fatalf("diff: %d\n%s\n%s", code, out, errs)
	}
	if !strings.Contains(out, "! highlight 1 (gone): “Its stripes hide it in the forest”") || strings.Contains(out, "highlight 2") {
		t.Errorf("flags:\n%s", out)
	}
	// Looked at, the change is still told: when it was (it read
	// "unchanged", as a page that never changed does).
	code, out, _ = local("watch", "list")
	if code != 0 || strings.Contains(out, "CHANGED") || !strings.Contains(out, "last change ") {
		t.Errorf("the change was looked at, yet: %s", out)
	}

	// Failures back off; robots.txt is honoured.
	site.mu.Lock()
	site.fail = true
	site.mu.Unlock()
	if out := check(); !strings.Contains(out, "failing ×1") || !strings.Contains(out, "HTTP status 503") {
		t.Errorf("a failing page: %s", out)
	}
	code, out, _ = local("watch", "add", "--allow-private", srv.URL+"/private/x")
	if code != 0 {
		t.Fatalf("watch a disallowed page: %s", out)
	}
	added2 := out
	code, out, _ = local("watch", "check")
	if code != 0 || !strings.Contains(out, "disallowed by robots.txt") {
		t.Errorf("robots.txt: %s", out)
	}
	// A page never read has no change, and diff says so, not that it
	// "has not changed since it was first read".
	i := strings.LastIndex(added2, "(watch ")
	if i < 0 {
		t.Fatalf("watch add said %q", added2)
	}
	id2 := strings.TrimSuffix(strings.TrimSpace(added2[i+len("(watch "):]), ")")
	code, out, _ = local("watch", "diff", id2)
	if code != 0 || !strings.Contains(out, srv.URL+"/private/x could not be read yet (") {
		t.Errorf("diff of a page never read: %d %s", code, out)
	}
}

// A kept item whose title is longer than a label may be (a report's
// question of a thousand characters, a page's long first heading) is
// watched under its title cut short: the gateway refused the label the
// user never wrote, and w in the Library watched none of a report's
// sources.
func TestWatchLongTitle(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the embedded gateway")
	}
	t.Parallel()
	heading := strings.Repeat("okapi ", 60) // 360 characters
	site := &watchedSite{}
	site.set("<html><body><article><h1>"+heading+"</h1><p>The okapi is a giraffid of the Congo. Its stripes hide it in the forest.</p></article></body></html>", `"v1"`)
	srv := httptest.NewServer(site)
	defer srv.Close()
	data := t.TempDir()
	local := func(args ...string) (int, string, string) {
		return harkApp(t, context.Background(), func(h *hooks) { noGateway(h); withEnv("HARK_ALLOW_PRIVATE", "1")(h) }, nil, "", append([]string{"--data-dir", data}, args...)...)
	}
	if code, _, errs := local("extract", srv.URL+"/okapi"); code != 0 {
		t.Fatalf("extract: %s", errs)
	}
	code, out, errs := local("watch", "add", "--json", "1")
	var added []struct{ Label string }
	if code != 0 || json.Unmarshal([]byte(out), &added) != nil || len(added) != 1 {
		t.Fatalf("watch add 1: %d %s %s", code, out, errs)
	}
	if l := []rune(added[0].Label); len(l) != 200 || !strings.HasPrefix(string(l), "okapi okapi") || l[len(l)-1] != '…' {
		t.Errorf("label %q (%d characters)", added[0].Label, len(l))
	}
}
