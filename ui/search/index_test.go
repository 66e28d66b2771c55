package search

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api/apitest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// memIndex is an index in memory: what the pane does with common.Indexer
// is tested here; the real one (the embedded gateway's, in cli) is
// driven by the first-session tmux test.
type memIndex struct {
	mu      sync.Mutex
	sources map[string]int
	block   chan struct{} // when set, Index waits on it (or ctx) after two pages
}

func (m *memIndex) Index(ctx context.Context, target string, progress func(int, string)) (int, error) {
	if strings.Contains(target, "missing") {
		return 0, errors.New("no such file or directory")
	}
	n := 0
	for i := range 3 {
		if i == 2 && m.block != nil {
			select {
			case <-m.block:
			case <-ctx.Done():
				m.add(target, n)
				return n, ctx.Err()
			}
		}
		n++
		progress(n, target+"/a-rather-long-path/to-a-page/deep-in-the-documentation-tree/p"+string(rune('0'+i)))
	}
	m.add(target, n)
	return n, nil
}

func (m *memIndex) add(target string, n int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.sources[target] = n
}

func (m *memIndex) Sources(context.Context) ([]common.IndexSource, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []common.IndexSource
	for s, n := range m.sources {
		out = append(out, common.IndexSource{Source: s, Pages: n, Indexed: uitest.Epoch})
	}
	return out, nil
}

func (m *memIndex) Remove(_ context.Context, s string) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := m.sources[s]
	delete(m.sources, s)
	return n, nil
}

func (m *memIndex) Pages(context.Context) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, c := range m.sources {
		n += c
	}
	return n, nil
}

func TestIndexFromTheTUI(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	ix := &memIndex{sources: map[string]int{}}
	c.Index = ix
	var sent []tea.Msg
	var sentMu sync.Mutex
	c.Send = func(m tea.Msg) { sentMu.Lock(); sent = append(sent, m); sentMu.Unlock() }
	p := New(c)
	p.SetSize(80, 24)
	uitest.Settle(drive(p), p.Init())
	// An empty index says so, and how to fill it.
	if v := uitest.Plain(p.View()); !strings.Contains(v, "The local search index is empty") {
		t.Errorf("no empty-index hint:\n%s", v)
	}
	uitest.Golden(t, "index_empty_80x24", p.View())
	// The palette's "index a folder, URL or sitemap": a prompt, then the run.
	_, cmd := p.Update(common.IndexMsg{})
	uitest.Settle(drive(p), cmd)
	typeText(p, "/srv/docs")
	uitest.Golden(t, "index_prompt_80x24", p.View())
	_, cmd = p.Update(uitest.Press("enter"))
	var notice string
	uitest.Settle(func(m tea.Msg) tea.Cmd {
		if n, ok := m.(common.NoticeMsg); ok {
			notice = n.Text
		}
		_, c := p.Update(m)
		return c
	}, cmd)
	if notice != "indexed 3 pages from /srv/docs" || p.ix.count != 3 {
		t.Errorf("after indexing: notice %q, count %d", notice, p.ix.count)
	}
	if v := uitest.Plain(p.View()); strings.Contains(v, "index is empty") {
		t.Errorf("the empty hint stayed:\n%s", v)
	}
	// Back from the index line, typing is a query again, not options.
	if !p.query.Focused() {
		t.Error("the query line lost the keys after indexing")
	}
	// A run shows its progress and cancels, keeping what it stored.
	ix.block = make(chan struct{})
	_, cmd = p.Update(common.IndexMsg{})
	uitest.Settle(drive(p), cmd)
	const site = "http://127.0.0.1:43567/valgrind/html/"
	sentMu.Lock()
	sent = nil
	sentMu.Unlock()
	typeText(p, site)
	_, cmd = p.Update(uitest.Press("enter"))
	done := make(chan tea.Msg, 1)
	go func() { done <- cmd() }()
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		sentMu.Lock()
		n := len(sent)
		sentMu.Unlock()
		if n > 0 {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	sentMu.Lock()
	for _, m := range sent {
		p.Update(m)
	}
	sentMu.Unlock()
	// The query line has the keys back (x types there): the line says
	// ctrl+x, and shows the end of the page's URL, which differs.
	v := uitest.Plain(p.View())
	if !strings.Contains(v, "indexing "+site+": 1 page") || !strings.Contains(v, "ctrl+x cancels") || !strings.Contains(v, "reading …") || !strings.Contains(v, "documentation-tree/p0") {
		t.Errorf("no progress line with the URL's end and ctrl+x:\n%s", v)
	}
	uitest.Golden(t, "index_running_80x24", p.View())
	notice = ""
	_, cmd = p.Update(uitest.Press("ctrl+x"))
	uitest.Settle(func(m tea.Msg) tea.Cmd {
		if n, ok := m.(common.NoticeMsg); ok {
			notice = n.Text
		}
		_, c := p.Update(m)
		return c
	}, tea.Batch(cmd, func() tea.Msg { return <-done }))
	if p.ix.running || notice != "cancelled indexing "+site+": kept 2 pages" || p.Query() != "" {
		t.Errorf("after ctrl+x: running %v, notice %q, query %q", p.ix.running, notice, p.Query())
	}
	// The sources: listed with their pages; d d removes one.
	_, cmd = p.Update(common.IndexMsg{Sources: true})
	uitest.Settle(drive(p), cmd)
	v = uitest.Plain(p.View())
	if !strings.Contains(v, "Index sources (2)") || !strings.Contains(v, "/srv/docs") || !strings.Contains(v, "The index holds 5 pages") {
		t.Fatalf("sources:\n%s", v)
	}
	if p.Capturing() {
		t.Error("the source list takes every key: : and the digits do nothing there")
	}
	for p.ix.sources[p.ix.cursor].Source != "/srv/docs" {
		p.Update(uitest.Press("j"))
	}
	p.Update(uitest.Press("d"))
	if v := uitest.Plain(p.View()); !strings.Contains(v, "d again removes these pages from the index: /srv/docs") {
		t.Errorf("no confirmation:\n%s", v)
	}
	_, cmd = p.Update(uitest.Press("d"))
	uitest.Settle(drive(p), cmd)
	if _, ok := ix.sources["/srv/docs"]; ok || len(p.ix.sources) != 1 || !strings.Contains(p.ix.note, "removed 3 pages of /srv/docs") {
		t.Errorf("after d d: %v, listed %+v, note %q", ix.sources, p.ix.sources, p.ix.note)
	}
	// r indexes the selected source again.
	ix.block = nil
	p.ix.cursor = 0
	_, cmd = p.Update(uitest.Press("r"))
	uitest.Settle(drive(p), cmd)
	if ix.sources[site] != 3 {
		t.Errorf("re-index: %v", ix.sources)
	}
	// A target that cannot be read is an error naming it.
	p.Update(uitest.Press("esc"))
	_, cmd = p.Update(common.IndexMsg{})
	uitest.Settle(drive(p), cmd)
	typeText(p, "/missing")
	_, cmd = p.Update(uitest.Press("enter"))
	var failed error
	uitest.Settle(func(m tea.Msg) tea.Cmd {
		if e, ok := m.(common.ErrorMsg); ok {
			failed = e.Err
		}
		_, c := p.Update(m)
		return c
	}, cmd)
	if failed == nil || !strings.Contains(failed.Error(), "index /missing: no such file") {
		t.Errorf("missing target: %v", failed)
	}
}

// With a remote gateway there is no local index: nothing is offered.
func TestNoIndexWithARemoteGateway(t *testing.T) {
	c, _ := uitest.Common(t, nil)
	p := New(c)
	p.SetSize(80, 24)
	uitest.Settle(drive(p), p.Init())
	if v := uitest.Plain(p.View()); strings.Contains(v, "index is empty") {
		t.Errorf("a remote gateway's pane speaks of the local index:\n%s", v)
	}
	_, cmd := p.Update(common.IndexMsg{})
	msgs := uitest.Exec(cmd)
	if len(msgs) != 1 || !strings.Contains(msgs[0].(common.ErrorMsg).Err.Error(), "keeps its own index") {
		t.Errorf("IndexMsg gave %v", msgs)
	}
}

// ctrl+r dictates the query; where there is no microphone (this machine)
// the message says so, the line keeps what it held, and nothing hangs.
func TestDictationWithoutAMicrophone(t *testing.T) {
	srv := apitest.New(t)
	c, _ := uitest.Common(t, srv)
	p := New(c)
	p.SetSize(80, 24)
	typeText(p, "typed")
	_, cmd := p.Update(uitest.Press("ctrl+r"))
	if !p.dict.Active() || !strings.Contains(uitest.Plain(p.View()), "● listening") {
		t.Fatalf("ctrl+r did not start listening:\n%s", uitest.Plain(p.View()))
	}
	var final common.DictationMsg
	for _, m := range uitest.Exec(cmd) {
		if d, ok := m.(common.DictationMsg); ok {
			final = d
		}
	}
	if final.Err == nil {
		t.Skip("this machine has a microphone")
	}
	_, cmd = p.Update(final)
	msgs := uitest.Exec(cmd)
	if len(msgs) != 1 || !strings.Contains(msgs[0].(common.ErrorMsg).Err.Error(), "dictation: ") {
		t.Errorf("no error message: %v", msgs)
	}
	if p.dict.Active() || p.Query() != "typed" || strings.Contains(uitest.Plain(p.View()), "listening") {
		t.Errorf("after the failure: active %v, query %q", p.dict.Active(), p.Query())
	}
}
