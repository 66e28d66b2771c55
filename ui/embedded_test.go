package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/embedded"
	"hark/gateway/engine"
	"hark/gateway/gatewaytest"
	"hark/gateway/store"
	"hark/library"
	"hark/ui/common"
	"hark/ui/internal/uitest"
	"hark/ui/pages"
	"hark/ui/research"
	"hark/ui/tools"
)

// TestE2EEmbeddedSearchOpenExtractBack runs the TUI against hark's own
// embedded gateway, whose local engines read pages served on 127.0.0.1:
// search, open a result, read it extracted in Pages, go back.
func TestE2EEmbeddedSearchOpenExtractBack(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, `<html><head><title>Okapi facts %s</title></head><body><article><h1>Okapi facts</h1>
<p>The okapi is a giraffid mammal of the Congo rainforest, also called the forest giraffe. This page is %s and has enough text to be
kept as the main content by the extractor, which drops short boilerplate.</p><p>Okapis eat leaves, buds and fungi.</p></article></body></html>`, r.URL.Path, r.URL.Path)
	}))
	t.Cleanup(site.Close)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{AllowPrivate: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	// Reading a page indexes it for search.
	cl, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cl.Extract(ctx, api.ExtractInput{URLs: api.URLList{site.URL + "/okapi"}}); err != nil {
		t.Fatal(err)
	}

	r := startAt(t, g.URL, g.APIKey, 100, 30)
	r.typeText("okapi")
	r.keys("enter")
	r.waitFor("the indexed page as a result", screenHas("Okapi facts"))
	// The gateway reports the workspace's credits on each response; the
	// status bar shows the figure the gateway itself holds.
	used, err := g.Server.CreditsUsed(ctx, "local")
	if err != nil || used <= 0 {
		t.Fatalf("gateway credits used = %d, %v; want a positive count after extract and search", used, err)
	}
	r.waitFor(fmt.Sprintf("credits %d in the status bar", used), screenHas(fmt.Sprintf("credits %d", used)))
	r.keys("enter")
	r.waitFor("the page extracted and read in Pages", func(m *Model) bool {
		pg := m.panes[1].(*pages.Pane).Reading()
		return m.Active() == 1 && pg != nil && strings.Contains(pg.Content, "forest giraffe") && screenHas("forest giraffe")(m)
	})
	r.keys("esc")
	r.waitFor("the page list", screenHas("vendor_extract · "))
	r.keys("1")
	r.waitFor("search results kept", screenHas("Okapi facts"))
}

// slowResearch is a research engine that runs until its call is
// cancelled, and says when it started and when it saw the cancel.
type slowResearch struct{ started, cancelled chan struct{} }

func (s slowResearch) Research(ctx context.Context, in api.ResearchInput) (*api.ResearchOutput, error) {
	close(s.started)
	<-ctx.Done()
	close(s.cancelled)
	return nil, ctx.Err()
}

// localGateway serves hark's real gateway on loopback with the local
// engines, their research engine replaced by research: a gateway
// database in the test's temp directory and an API key, all closed at
// the end. It returns the gateway's address and key.
func localGateway(t *testing.T, research engine.Researcher) (base, key string) {
	t.Helper()
	db, err := store.OpenDB(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	key, err = auth.NewAPIKey()
	if err != nil {
		t.Fatal(err)
	}
	eng := embedded.NewEngines(db, true, slog.New(slog.DiscardHandler))
	t.Cleanup(func() { eng.Close() })
	engines := eng.Gateway()
	local := engines.Web
	engines.Web = func(ws string, c config.Search) (engine.Web, error) {
		w, err := local(ws, c)
		w.Research = research
		return w, err
	}
	return gatewaytest.Serve(t, db, key, engines), key
}

// TestE2EGatewaySlowResearchThenCancel runs hark's real gateway server with
// the local engines, its research engine made slow: the TUI shows the
// research running, stays usable meanwhile, and x stops it. The research
// is a job on the gateway (docs/deploy.md, "Jobs"), which x cancels, so
// that a model writing the answer stops too (issue 39); a dropped SSH
// session, which never presses x, leaves the job running for a TUI
// started again to reattach to (TestE2EReattachToRunningResearch).
func TestE2EGatewaySlowResearchThenCancel(t *testing.T) {
	slow := slowResearch{started: make(chan struct{}), cancelled: make(chan struct{})}
	base, key := localGateway(t, slow)
	r := startAt(t, base, key, 80, 24)
	r.keys("esc", "3")
	r.typeText("a slow question")
	r.keys("enter")
	r.waitFor("research running", screenHas("researching “a slow question”"))
	select {
	case <-slow.started:
	case <-time.After(10 * time.Second):
		t.Fatal("the gateway never called the research engine")
	}
	// Other panes stay usable while it runs.
	r.keys("1", "/")
	r.typeText("okapi")
	r.keys("enter")
	r.waitFor("a search answered meanwhile", screenHas("No results"))
	r.waitFor("research shown in the status bar", func(m *Model) bool {
		return strings.Contains(uitest.Plain(m.statusView()), "⟳ research ")
	})
	r.keys("3", "x")
	r.waitFor("cancelled", func(m *Model) bool {
		s := m.panes[2].(*research.Pane).Current()
		return s != nil && !s.Running && strings.Contains(uitest.Plain(m.statusView()), "cancelled")
	})
	cl, err := api.New(api.Options{BaseURL: base, APIKey: key})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case <-slow.cancelled:
	case <-time.After(30 * time.Second):
		t.Fatal("x did not stop the research on the gateway")
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		running, err := cl.Jobs(context.Background(), true)
		if err == nil && len(running) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after the TUI's cancel, the gateway's running jobs are %+v (%v); want none", running, err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// R reads a report aloud through the embedded gateway's voices: every
// sentence in order, fetched over the stream and played (here into the
// file sink, which plays as fast as it decodes).
func TestE2EReadAloud(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	var mu sync.Mutex
	var played []int
	var done int
	r := startWith(t, g.URL, g.APIKey, 100, 30, func(c *common.Common) {
		c.Voice = "flite:slt"
		dir := t.TempDir()
		c.Audio = func() (*audio.Output, error) { return audio.Open(audio.Options{Sink: audio.SinkFile, Dir: dir}) }
		send := c.Send
		c.Send = func(m tea.Msg) {
			if a, ok := m.(common.AloudMsg); ok && !a.Done {
				mu.Lock()
				played = append(played, a.Index)
				mu.Unlock()
			}
			send(m)
		}
	})
	out, _ := json.Marshal(api.ResearchOutput{RequestID: "r1", Status: api.ResearchCompleted,
		Content: "# Okapis\n\nThe okapi lives in the Congo. It eats leaves and buds.\n\n## Habits\n\nOkapis are shy."})
	r.p.Send(common.ShowKeptMsg{Item: library.Item{ID: 7, Kind: library.KindResearch, Tool: api.ToolResearch, Query: "okapis", Output: string(out)}})
	r.waitFor("the report", screenHas("The okapi lives in the Congo"))
	r.keys("R")
	r.waitFor("the whole report read", func(m *Model) bool {
		rp := m.panes[2].(*research.Pane)
		mu.Lock()
		defer mu.Unlock()
		if !rp.ReadingAloud() && len(played) == 5 {
			done++
		}
		return done > 0
	})
	mu.Lock()
	if fmt.Sprint(played) != "[0 1 2 3 4]" {
		t.Errorf("sentences played %v, want all five in order", played)
	}
	mu.Unlock()
}

// A palette form refused, by the tool list's rules before sending
// (extract's urls) or by the gateway (crawl's select_paths), shows what
// was typed, at the field named, with its rule there, whichever pane ran
// the call (extract and crawl run in Pages); reopening it from the
// palette keeps the values too.
func TestE2EPaletteFormRefusedKeepsValues(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(g.Stop)
	r := startAt(t, g.URL, g.APIKey, 100, 30)
	toolsForm := func(m *Model) *tools.Pane { return m.panes[4].(*tools.Pane) }
	openForm := func(slug string) {
		r.keys(":")
		r.typeText(slug)
		r.keys("enter")
		r.waitFor(slug+"'s form", func(m *Model) bool {
			f := toolsForm(m).Form()
			return m.Active() == 4 && f != nil && f.Tool.Slug == slug
		})
	}

	openForm(api.ToolExtract)
	r.typeText("ftp://example.com/x")
	r.keys("down")
	r.keys("right") // extract_depth: basic → advanced
	r.keys("enter")
	r.waitFor("the refused extract form back, at urls", func(m *Model) bool {
		f := toolsForm(m).Form()
		if m.Active() != 4 || f == nil {
			return false
		}
		c := f.Controls[f.Focused()]
		return c.Field.Name == "urls" && strings.Contains(c.Err, "is not an absolute http or https URL") &&
			c.Value() == "ftp://example.com/x" && f.Control("extract_depth").Value() == "advanced"
	})
	// The tool list says urls are http(s) URLs: the form refuses it with
	// the gateway's own rule before anything is sent.
	r.waitFor("the rule on screen", screenHas("✗ urls"))
	r.keys("esc")

	openForm(api.ToolCrawl)
	r.typeText("https://example.com")
	r.waitFor("url typed", func(m *Model) bool { return toolsForm(m).Form().Control("url").Value() == "https://example.com" })
	r.p.Send(inspectMsg(func(m *Model) {
		f := toolsForm(m).Form()
		for i, c := range f.Controls {
			if c.Field.Name == "select_paths" {
				f.Focus(i)
			}
		}
	}))
	r.typeText("([a-z")
	r.keys("enter")
	r.waitFor("the refused crawl form back, at select_paths", func(m *Model) bool {
		f := toolsForm(m).Form()
		if m.Active() != 4 || f == nil || f.Tool.Slug != api.ToolCrawl {
			return false
		}
		c := f.Controls[f.Focused()]
		return c.Field.Name == "select_paths" && strings.Contains(c.Err, "not a valid regular expression") &&
			c.Value() == "([a-z" && f.Control("url").Value() == "https://example.com"
	}) // esc, then the palette again: the form still holds what was typed.
	r.keys("esc", "1")
	openForm(api.ToolCrawl)
	r.waitFor("the values kept on reopening", func(m *Model) bool {
		f := toolsForm(m).Form()
		return f.Control("select_paths").Value() == "([a-z" && strings.Contains(f.Control("select_paths").Err, "regular expression")
	})
	r.keys("esc")
}
