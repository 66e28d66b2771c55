package common

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
)

// Indexer is the embedded gateway's local search index, reached in
// process: indexing is not part of the gateway interface, so with a
// remote gateway Common.Index is nil and the TUI offers none of it.
type Indexer interface {
	// Index adds a folder, a file, a site or a sitemap, telling progress
	// of each page stored with the number so far. It stops with ctx.
	Index(ctx context.Context, target string, progress func(pages int, url string)) (int, error)
	// Sources lists what was indexed, newest first.
	Sources(ctx context.Context) ([]IndexSource, error)
	// Remove takes a source's pages out of the index.
	Remove(ctx context.Context, source string) (int, error)
	// Pages is how many pages the index holds.
	Pages(ctx context.Context) (int, error)
}

// IndexSource is one thing indexed and how many of its pages the index
// holds.
type IndexSource struct {
	Source  string
	Pages   int
	Indexed time.Time
}

// IndexMsg asks the root to show Search with the index prompt, or with
// the list of indexed sources.
type IndexMsg struct {
	Sources bool
}

// PageReader is an Indexer that gives back what it holds for a page,
// without a tool call: how a page no gateway fetches (a file:// page of
// `hark index DIR`) is read. content is markdown (links kept) when
// markdown is true, else plain text.
type PageReader interface {
	IndexedPage(ctx context.Context, url string) (title, content string, markdown bool, err error)
}

// OpeningAt is open (an OpenResult) with its page opening at quote,
// the quote highlighted: a report's source opened where the report
// quotes it.
func OpeningAt(open tea.Cmd, quote string) tea.Cmd {
	if quote == "" {
		return open
	}
	return func() tea.Msg {
		msg := open()
		if m, ok := msg.(OpenPagesMsg); ok {
			m.At = quote
			return m
		}
		return msg
	}
}

// OpenResult opens a page a search or a report listed, in Pages. A web
// page is extracted (markdown, its links kept). A page no gateway fetches
// (a file:// page of `hark index DIR`) shows the text the index holds:
// read from the local index when hark has it in process, else found
// again by search (the inputs that listed it, with include_raw_content),
// a call of hark's own that the library does not keep. find is the
// search that led there (see OpenPagesMsg).
func OpenResult(c *Common, u, title string, search map[string]any, find string) tea.Cmd {
	if strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://") {
		return func() tea.Msg { return OpenPagesMsg{URLs: []string{u}, Find: find} }
	}
	read := func(text, t string, markdown bool) tea.Msg {
		if t == "" {
			t = title
		}
		return OpenPagesMsg{Read: []api.PageContent{PageWithTitle(api.PageContent{URL: u, RawContent: text}, t)}, ReadMarkdown: markdown, Find: find}
	}
	if r, ok := c.Index.(PageReader); ok {
		return func() tea.Msg {
			t, content, md, err := r.IndexedPage(context.Background(), u)
			if err != nil {
				return ErrorMsg{Err: fmt.Errorf("open %s: %w", u, err)}
			}
			return read(content, t, md)
		}
	}
	t := c.Tool(api.ToolSearch)
	if t == nil || t.Input("include_raw_content") == nil || len(search) == 0 {
		// Extraction says why it cannot be read.
		return func() tea.Msg { return OpenPagesMsg{URLs: []string{u}, Find: find} }
	}
	inputs := map[string]any{"include_raw_content": true}
	for k, v := range search {
		if k != "include_raw_content" {
			inputs[k] = v
		}
	}
	client := c.Client
	return func() tea.Msg {
		res, err := Invoke(api.Unkept(context.Background()), client, api.ToolSearch, inputs)
		if err != nil {
			return ErrorMsg{Err: fmt.Errorf("open %s: %w", u, err)}
		}
		out, err := api.DecodeSearch(res.Output)
		if err != nil {
			return ErrorMsg{Err: fmt.Errorf("open %s: %w", u, err)}
		}
		for _, r := range out.Results {
			if r.URL == u && r.RawContent != "" {
				return read(r.RawContent, r.Title, false)
			}
		}
		return OpenPagesMsg{URLs: []string{u}, Find: find}
	}
}

// PageWithTitle carries a page's title with its text, for the library
// (library.PageTitle reads it).
func PageWithTitle(pc api.PageContent, title string) api.PageContent {
	if title != "" {
		pc.Title = title
	}
	return pc
}
