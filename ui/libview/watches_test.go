package libview

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// enter on a watched page with no change to show says why in the
// Library: a page never read (failing since it was added, or not
// checked yet), or one unchanged since its first read. It opened an
// empty Pages saying that a page that answered 404 "has not changed
// since it was first read". A page with a change opens it in Pages.
func TestWatchWithoutChangeSaysWhy(t *testing.T) {
	p, _ := newPane(t, 80, 21)
	at := uitest.Epoch
	p.watching = true
	for _, c := range []struct {
		w    api.Watch
		want string
		warn bool
	}{
		{api.Watch{URL: "http://a.test/nope", Checks: 1, Failures: 1, Error: "HTTP status 404", CheckedAt: &at, NextAt: at.Add(time.Minute)},
			"no change to show: the page could not be read yet (HTTP status 404)", true},
		{api.Watch{URL: "http://a.test/new"}, "no change to show: the page is not read yet (c reads it now)", false},
		{api.Watch{URL: "http://a.test/same", Checks: 3, CheckedAt: &at}, "no change to show: the page has not changed since it was first read", false},
	} {
		p.ws, p.cursor = []api.Watch{c.w}, 0
		out := settle(p, p.key(uitest.Press("enter")))
		if len(out) != 1 {
			t.Fatalf("%s: %+v", c.w.URL, out)
		}
		n, ok := out[0].(common.NoticeMsg)
		if !ok || !strings.Contains(n.Text, c.want) || n.Warn != c.warn {
			t.Errorf("%s: %+v, want %q (warning %v)", c.w.URL, out[0], c.want, c.warn)
		}
	}
	p.ws = []api.Watch{{URL: "http://a.test/changed", Checks: 2, CheckedAt: &at, ChangedAt: &at, Changed: true}}
	_, cmd := p.Update(uitest.Press("enter"))
	if cmd == nil {
		t.Fatal("enter on a changed page did nothing")
	}
	if m, ok := cmd().(common.OpenChangeMsg); !ok || m.URL != "http://a.test/changed" {
		t.Errorf("enter on a changed page: %+v", m)
	}
}

// A failing watch's line says when it is tried next, as hark watch list
// does, and that c tries now.
func TestFailingWatchSaysNextTry(t *testing.T) {
	p, _ := newPane(t, 80, 21)
	at := uitest.Epoch
	p.watching = true
	p.ws = []api.Watch{{URL: "http://a.test/nope", Checks: 1, Failures: 1, Error: "HTTP status 404", CheckedAt: &at, NextAt: at.Add(2 * time.Minute)}}
	want := "HTTP status 404 (next try " + at.Add(2*time.Minute).Local().Format("15:04") + "; c tries now)"
	if v := uitest.Plain(p.View()); !strings.Contains(v, want) {
		t.Errorf("the failing watch's line, want %q:\n%s", want, v)
	}
}

// w asks how often to read the page again, offering a day: enter takes
// it, an interval typed instead is sent, one hark cannot read is refused
// at the line with its rule (nothing sent), esc watches nothing.
func TestWatchAsksHowOften(t *testing.T) {
	p, _ := newPane(t, 80, 21)
	srv := apitest.New(t)
	cl, err := api.New(api.Options{BaseURL: srv.URL, APIKey: apitest.Key})
	if err != nil {
		t.Fatal(err)
	}
	p.c.Client = cl
	for range 2 {
		srv.Script(api.PathWatches, apitest.OK(api.Watch{ID: "w1", URL: "https://docs.example/okapi"}))
	}
	sent := func() string {
		var in api.WatchAdd
		json.Unmarshal(srv.Last(api.PathWatches).Body, &in)
		return in.Every
	}
	// A report with no web source says so at once, asking nothing.
	msgs := press(p, "w")
	if e, ok := msgs[0].(common.ErrorMsg); len(msgs) != 1 || !ok || !strings.Contains(e.Err.Error(), "no web page to watch") || p.OwnsKeys() {
		t.Fatalf("w on a report with no web source: %+v", msgs)
	}
	press(p, "j", "j", "w") // the page
	if v := uitest.Plain(p.View()); !strings.Contains(v, "▶ watch every 1d") || !strings.Contains(v, "enter watches · esc cancels") {
		t.Fatalf("w does not ask how often:\n%s", v)
	}
	if !p.OwnsKeys() {
		t.Error("the interval's line does not own the keys: digits would switch panes")
	}
	press(p, "x", "enter")
	if v := uitest.Plain(p.View()); !strings.Contains(v, `✗ invalid every "1dx": a whole number and m, h, d or w`) || srv.Count(api.PathWatches) != 0 {
		t.Fatalf("a bad interval was not refused at the line (%d sent):\n%s", srv.Count(api.PathWatches), v)
	}
	press(p, "backspace", "backspace", "backspace", "1", "2", "h")
	msgs = press(p, "enter")
	if len(msgs) != 1 || msgs[0].(common.NoticeMsg).Text != "watching 1 page, every 12h (W lists them)" || sent() != "12h" {
		t.Fatalf("12h: %+v, sent %q", msgs, sent())
	}
	p.watching = true
	p.ws = []api.Watch{{URL: "https://docs.example/okapi", Label: "Okapi facts", EverySeconds: 12 * 3600}}
	if v := uitest.Plain(p.View()); !strings.Contains(v, "every 12h · Okapi facts") {
		t.Errorf("the watched page does not say how often it is read:\n%s", v)
	}
	p.watching = false
	press(p, "w", "enter")
	if sent() != "1d" || srv.Count(api.PathWatches) != 2 {
		t.Errorf("the default: sent %q, %d calls", sent(), srv.Count(api.PathWatches))
	}
	press(p, "w", "esc")
	if p.OwnsKeys() || srv.Count(api.PathWatches) != 2 || strings.Contains(uitest.Plain(p.View()), "watch every") {
		t.Errorf("esc: %d calls\n%s", srv.Count(api.PathWatches), uitest.Plain(p.View()))
	}
}
