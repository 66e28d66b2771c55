package pages

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

type doneMsg struct {
	seq   int
	slug  string
	pages []*Page
	base  string
	err   error
	// keep is a page read without a call (from the local index) that the
	// library keeps all the same, as markdown or text.
	keep         []api.PageContent
	keepMarkdown bool
}

// notConnected explains a key that needs a tool the gateway has not
// listed (yet).
func notConnected(slug string) tea.Cmd {
	return func() tea.Msg {
		return common.ErrorMsg{Err: fmt.Errorf("%s is not in the gateway's tool list (yet): wait for the tools to load, or check the gateway", slug)}
	}
}

// extract runs the extract tool on urls; openFirst reads the first page
// when it arrives.
func (p *Pane) extract(urls []string, openFirst bool) tea.Cmd {
	if len(urls) == 0 {
		return nil
	}
	in := map[string]any{"urls": urls}
	if t := p.c.Tool(api.ToolExtract); t != nil {
		if f := t.Input("urls"); f != nil && !f.HasType("array") {
			in["urls"] = strings.Join(urls, ",")
		}
	}
	return p.run(api.ToolExtract, in, openFirst)
}

// extractWhole reads a page again at the extract tool's advanced depth,
// which keeps what basic leaves out: a manual's tables (PostgreSQL's
// "Table 8.2. Numeric Types" shows its caption and no table), images,
// embedded content. Asked for with W, as the depth may cost more.
func (p *Pane) extractWhole(u string) tea.Cmd {
	t := p.c.Tool(api.ToolExtract)
	if t == nil {
		return notConnected(api.ToolExtract)
	}
	f := t.Input("extract_depth")
	if f == nil || !slices.Contains(f.Enum, "advanced") {
		return func() tea.Msg {
			return common.NoticeMsg{Text: "this gateway's extract has no advanced depth: the page is as whole as it reads"}
		}
	}
	in := map[string]any{"urls": []string{u}, "extract_depth": "advanced"}
	if f := t.Input("urls"); f != nil && !f.HasType("array") {
		in["urls"] = u
	}
	return p.run(api.ToolExtract, in, true)
}

func (p *Pane) crawlFrom(slug, u string) tea.Cmd {
	return p.run(slug, map[string]any{"url": u}, false)
}

// calls runs the pane's calls, side by side.
func (p *Pane) calls() common.Calls {
	return common.NewCalls(&p.seq, p.runs, &p.progress).SideBySide()
}

// run calls a tool in a command. Calls run side by side (an extract
// opened from Search does not stop a crawl); x cancels them all.
func (p *Pane) run(slug string, inputs map[string]any, openFirst bool) tea.Cmd {
	p.err, p.note = nil, ""
	client := p.c.Client
	label := map[string]string{api.ToolExtract: "extracting", api.ToolCrawl: "crawling", api.ToolMap: "mapping"}[slug]
	if label == "" {
		label = "running " + slug
	}
	if u, ok := inputs["url"].(string); ok {
		label += " " + u
	}
	return p.calls().Start(label, p.c.Now(), func(ctx context.Context, seq int) tea.Msg {
		res, err := common.Invoke(ctx, client, slug, inputs)
		if err != nil {
			return doneMsg{seq: seq, err: err} // "invoke vendor_crawl: …" names the tool
		}
		m := doneMsg{seq: seq, slug: slug}
		plain := inputs["format"] == "text"
		switch slug {
		case api.ToolExtract:
			out, err := api.DecodeExtract(res.Output)
			if err != nil {
				return doneMsg{seq: seq, err: err}
			}
			for _, r := range out.Results {
				m.pages = append(m.pages, &Page{URL: r.URL, Content: r.RawContent, Plain: plain, Source: slug})
			}
			for _, f := range out.FailedResults {
				m.pages = append(m.pages, &Page{URL: f.URL, Err: f.Error, Source: slug})
			}
			// One page opens in the reader; several stay in the list.
			if openFirst && len(m.pages) == 1 {
				m.base = m.pages[0].URL
			}
		case api.ToolCrawl:
			out, err := api.DecodeCrawl(res.Output)
			if err != nil {
				return doneMsg{seq: seq, err: err}
			}
			for _, r := range out.Results {
				m.pages = append(m.pages, &Page{URL: r.URL, Content: r.RawContent, Plain: plain, Source: slug})
			}
		case api.ToolMap:
			out, err := api.DecodeMap(res.Output)
			if err != nil {
				return doneMsg{seq: seq, err: err}
			}
			for _, r := range out.Results {
				m.pages = append(m.pages, &Page{URL: r.URL, Source: slug})
			}
		}
		return m
	})
}

// keepRead keeps pages opened from a search result's text in the library:
// no extract call brings them (a page the gateway indexed from a folder
// cannot be fetched), yet they were opened and read.
func (p *Pane) keepRead(pages []api.PageContent, markdown bool) tea.Cmd {
	open := p.c.Library
	if open == nil || p.c.LibraryOff {
		return nil
	}
	gw := p.c.Gateway
	inputs := `{"format":"text"}`
	if markdown {
		inputs = `{"format":"markdown"}`
	}
	return func() tea.Msg {
		s, err := open()
		if err != nil {
			return nil // the client reports a library it cannot open
		}
		var items []*library.Item
		for _, r := range pages {
			if strings.TrimSpace(r.RawContent) == "" {
				continue
			}
			items = append(items, &library.Item{Kind: library.KindPage, Tool: api.ToolSearch, Title: library.PageTitle(r),
				Query: r.URL, URL: r.URL, Body: r.RawContent, Inputs: inputs, Gateway: gw})
		}
		if err := s.Add(context.Background(), items...); err != nil {
			return common.ErrorMsg{Err: err}
		}
		return common.LibraryChangedMsg{}
	}
}

// keptPages turns a kept page, crawl or map into arrived pages; a single
// page opens in the reader.
func keptPages(it library.Item) (doneMsg, error) {
	var in struct{ Format string }
	json.Unmarshal([]byte(it.Inputs), &in)
	plain := in.Format == "text"
	m := doneMsg{slug: it.Tool}
	switch it.Kind {
	case library.KindPage:
		m.pages = []*Page{{URL: it.URL, Content: it.Body, Plain: plain, Source: it.Tool, readAt: it.Created}}
		m.base = it.URL
	case library.KindCrawl:
		out, err := api.DecodeCrawl(json.RawMessage(it.Output))
		if err != nil {
			return m, fmt.Errorf("library item %d: %w", it.ID, err)
		}
		for _, r := range out.Results {
			m.pages = append(m.pages, &Page{URL: r.URL, Content: r.RawContent, Plain: plain, Source: it.Tool, readAt: it.Created})
		}
	case library.KindMap:
		out, err := api.DecodeMap(json.RawMessage(it.Output))
		if err != nil {
			return m, fmt.Errorf("library item %d: %w", it.ID, err)
		}
		for _, r := range out.Results {
			m.pages = append(m.pages, &Page{URL: r.URL, Source: it.Tool})
		}
	default:
		return m, fmt.Errorf("library item %d: a %s is not shown in Pages", it.ID, it.Kind)
	}
	return m, nil
}

// add merges arrived pages (a later extraction replaces what a map or an
// earlier failure left) and opens the first when asked.
func (p *Pane) add(m doneMsg) tea.Cmd {
	var open *Page
	for _, pg := range m.pages {
		if pg.Content != "" && pg.readAt.IsZero() {
			pg.readAt = p.c.Now()
		}
		if old, ok := p.byURL[pg.URL]; ok {
			if pg.Content != "" || pg.Err != "" {
				old.Content, old.Err, old.Source, old.Plain, old.readAt = pg.Content, pg.Err, pg.Source, pg.Plain, pg.readAt
				old.rendered, old.renderedWidth = "", 0
			}
			pg = old
		} else {
			p.byURL[pg.URL] = pg
			p.pages = append(p.pages, pg)
		}
		if m.base != "" && pg.URL == m.base {
			open = pg
		}
	}
	p.rebuild()
	if open != nil {
		if p.section != nil && p.section.seq != 0 && p.section.seq == m.seq {
			p.section.url = open.URL
		}
		for i, r := range p.rows {
			if r.page == open {
				p.cursor = i
			}
		}
		cmd := p.read(open)
		if p.openAt != "" {
			// Opened from a highlight or a report: at its quote.
			common.FindQuote(&p.rd, p.openAt, &p.scroll)
			p.findJump = true
		} else if w := common.RarestWord(p.openFind, open.Content); w != "" {
			p.rd.Find(w, &p.scroll)
			p.findJump = true
		}
		p.openFind, p.openAt = "", ""
		return cmd
	}
	if len(m.pages) == 0 {
		p.note = "no pages returned"
	} else {
		p.note = common.Count(len(m.pages), "page") + " from " + m.slug
	}
	return nil
}
