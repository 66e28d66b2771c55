package pages

import (
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
	"hark/ui/form"
)

// row is one line of the tree: a host, a path group or a page.
type row struct {
	kind  byte // 'h' host, 'd' directory, 'p' page
	label string
	key   string
	count int
	page  *Page
	// inDir: a page row under its folder's row, labelled by its name
	// alone (a file of an indexed folder).
	inDir bool
}

// listKey handles a key in the tree of pages.
func (p *Pane) listKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.c.Keys().Pages.Back):
		if p.filter.Value() != "" {
			p.filter.SetValue("")
			p.rebuild()
		}
	case key.Matches(msg, p.c.Keys().Pages.Up):
		p.move(-1)
	case key.Matches(msg, p.c.Keys().Pages.Down):
		p.move(1)
	case key.Matches(msg, p.c.Keys().Pages.PageUp):
		p.move(-max(1, p.height-4))
	case key.Matches(msg, p.c.Keys().Pages.PageDown):
		p.move(max(1, p.height-4))
	case msg.String() == "g" || msg.String() == "home":
		p.list().Home()
	case msg.String() == "G" || msg.String() == "end":
		p.list().End()
	case key.Matches(msg, p.c.Keys().Pages.Open):
		return p.openRow()
	case key.Matches(msg, p.c.Keys().Pages.Mark):
		for _, pg := range p.rowPages(p.cursor) {
			pg.Marked = !pg.Marked
		}
		p.move(1)
	case key.Matches(msg, p.c.Keys().Pages.MarkAll):
		for _, r := range p.rows {
			if r.page != nil {
				r.page.Marked = true
			}
		}
	case key.Matches(msg, p.c.Keys().Pages.Filter):
		return p.filter.Focus()
	case key.Matches(msg, p.c.Keys().Pages.OpenURL):
		p.askURL = true
		return p.urlInput.Focus()
	case key.Matches(msg, p.c.Keys().Pages.Extract):
		var urls []string
		for _, pg := range p.selected() {
			urls = append(urls, pg.URL)
		}
		return p.extract(urls, false)
	case key.Matches(msg, p.c.Keys().Pages.Crawl):
		if u := p.rowURL(p.cursor); u != "" {
			return p.crawlFrom(api.ToolCrawl, u)
		}
	case key.Matches(msg, p.c.Keys().Pages.Map):
		if u := p.rowURL(p.cursor); u != "" {
			return p.crawlFrom(api.ToolMap, u)
		}
	case key.Matches(msg, p.c.Keys().Pages.Form):
		t := p.c.Tool(api.ToolCrawl)
		if t == nil {
			return notConnected(api.ToolCrawl)
		}
		p.form = form.New(*t, p.c.Styles)
		p.form.Keys = p.c.Keys().Form
		// What was last sent from the form stays (a refused pattern is
		// there to correct); the URL under the cursor fills an empty one.
		p.form.SetInputs(p.formInputs)
		if u := p.rowURL(p.cursor); u != "" && p.formInputs["url"] == nil {
			p.form.Set("url", u)
		}
		p.form.SetSize(p.width, p.height-2)
	case key.Matches(msg, p.c.Keys().Pages.Export):
		sel := p.marked()
		if len(sel) == 0 {
			sel = p.pages
		}
		return p.export(sel)
	case key.Matches(msg, p.c.Keys().Pages.Copy):
		if u := p.rowURL(p.cursor); u != "" {
			return common.CopyURL(u)
		}
	case key.Matches(msg, p.c.Keys().Pages.Preview):
		p.preview = !p.preview
	case key.Matches(msg, p.c.Keys().Pages.Cancel):
		p.calls().Cancel()
	}
	return nil
}

// list is the cursor over the rows of the tree.
func (p *Pane) list() common.List { return common.NewList(&p.cursor, &p.offset, len(p.rows)) }

func (p *Pane) move(d int) { p.list().Move(d) }

func (p *Pane) currentPage() *Page {
	if p.cursor < len(p.rows) {
		return p.rows[p.cursor].page
	}
	return nil
}

func (p *Pane) marked() []*Page {
	var out []*Page
	for _, pg := range p.pages {
		if pg.Marked {
			out = append(out, pg)
		}
	}
	return out
}

// selected is the marked pages, or the pages under the cursor.
func (p *Pane) selected() []*Page {
	if m := p.marked(); len(m) > 0 {
		return m
	}
	return p.rowPages(p.cursor)
}

// rowURL is the URL of a page row, or for a host or path group the URL of
// the group itself (https://host/ or https://host/docs/), which c, M, f
// and y then use.
func (p *Pane) rowURL(i int) string {
	if i >= len(p.rows) {
		return ""
	}
	r := p.rows[i]
	if r.page != nil {
		return r.page.URL
	}
	pgs := p.rowPages(i)
	if len(pgs) == 0 {
		return ""
	}
	u, err := url.Parse(pgs[0].URL)
	if err != nil || u.Host == "" {
		return ""
	}
	_, dir := group(pgs[0].URL)
	if r.kind == 'h' {
		dir = "/"
	}
	g := url.URL{Scheme: u.Scheme, Host: u.Host, Path: dir}
	return g.String()
}

// rowPages is the page of a page row, or every page of a group row.
func (p *Pane) rowPages(i int) []*Page {
	if i >= len(p.rows) {
		return nil
	}
	r := p.rows[i]
	if r.page != nil {
		return []*Page{r.page}
	}
	var out []*Page
	for _, pg := range p.visible() {
		host, dir := group(pg.URL)
		if host == r.key || host+dir == r.key {
			out = append(out, pg)
		}
	}
	return out
}

func (p *Pane) visible() []*Page {
	// A newline, which the filter line cannot hold, keeps a match from
	// running from the URL into the error.
	return common.Filter(p.pages, p.filter.Value(), func(pg *Page) string { return pg.URL + "\n" + pg.Err })
}

// filesHost is the group of file:// pages (an indexed folder's).
const filesHost = "files"

// group is a URL's host and first path segment ("/" for top-level pages);
// a file's group is "files" and its folder, so that an indexed folder's
// pages are listed together, under the folder they are in.
func group(u string) (host, dir string) {
	pu, err := url.Parse(u)
	if err == nil && pu.Scheme == "file" {
		return filesHost, path.Dir(pu.Path) + "/"
	}
	if err != nil || pu.Host == "" {
		return "other", "/"
	}
	segs := strings.Split(strings.Trim(pu.Path, "/"), "/")
	if len(segs) <= 1 {
		return pu.Host, "/"
	}
	return pu.Host, "/" + segs[0] + "/"
}

// rebuild recomputes the tree rows: hosts, then path groups, then pages,
// each group with its count; groups of one page are not drawn.
func (p *Pane) rebuild() {
	type dirT struct {
		name  string
		pages []*Page
	}
	hosts := map[string]map[string]*dirT{}
	var hostOrder []string
	for _, pg := range p.visible() {
		h, d := group(pg.URL)
		if hosts[h] == nil {
			hosts[h] = map[string]*dirT{}
			hostOrder = append(hostOrder, h)
		}
		if hosts[h][d] == nil {
			hosts[h][d] = &dirT{name: d}
		}
		hosts[h][d].pages = append(hosts[h][d].pages, pg)
	}
	p.rows = p.rows[:0]
	for _, h := range hostOrder {
		var dirs []*dirT
		n := 0
		for _, d := range hosts[h] {
			dirs = append(dirs, d)
			n += len(d.pages)
		}
		sort.Slice(dirs, func(i, j int) bool { return dirs[i].name < dirs[j].name })
		p.rows = append(p.rows, row{kind: 'h', label: h, key: h, count: n})
		if p.folded[h] {
			continue
		}
		for _, d := range dirs {
			if len(d.pages) > 1 && d.name != "/" {
				p.rows = append(p.rows, row{kind: 'd', label: d.name, key: h + d.name, count: len(d.pages)})
				if p.folded[h+d.name] {
					continue
				}
			}
			drawn := len(d.pages) > 1 && d.name != "/"
			for _, pg := range d.pages {
				p.rows = append(p.rows, row{kind: 'p', page: pg, key: pg.URL, inDir: drawn && h == filesHost})
			}
		}
	}
	p.list().Clamp()
}

func (p *Pane) treeView(w, h int) string {
	s := p.c.Styles
	if len(p.rows) == 0 {
		return s.Dim.Render("nothing matches the filter")
	}
	start, end := p.list().Window(h)
	lines := make([]string, 0, end-start)
	for i := start; i < end; i++ {
		r := p.rows[i]
		sel := i == p.cursor
		cur := "  "
		if sel {
			cur = s.Key.Render("▌ ")
		}
		var line string
		switch r.kind {
		case 'h', 'd':
			fold := "▾ "
			if p.folded[r.key] {
				fold = "▸ "
			}
			indent := ""
			if r.kind == 'd' {
				indent = "  "
			}
			ls := s.Title
			if r.kind == 'd' {
				ls = s.Label
			}
			line = indent + fold + ls.Render(r.label) + s.Dim.Render(fmt.Sprintf(" (%d)", r.count))
		default:
			pg := r.page
			mark := "  "
			if pg.Marked {
				mark = s.OK.Render("✓ ")
			}
			pu, _ := url.Parse(pg.URL)
			label := pg.URL
			switch {
			case pu != nil && r.inDir:
				label = path.Base(pu.Path)
			case pu != nil:
				label = pu.EscapedPath()
				if label == "" {
					label = "/"
				}
				if pu.RawQuery != "" {
					label += "?" + pu.RawQuery
				}
			}
			ts := s.Text
			if sel {
				ts = s.Selected
			}
			state := ""
			switch {
			case pg.Err != "":
				state = s.Err.Render(" ✗ " + common.OneLine(pg.Err))
			case pg.Content == "":
				state = s.Dim.Render(" ·")
			default:
				state = s.Dim.Render(fmt.Sprintf(" %s", size(len(pg.Content))))
			}
			line = "    " + mark + common.Link(ts.Render(label), pg.URL) + state
		}
		lines = append(lines, common.Truncate(cur+line, w))
	}
	return strings.Join(lines, "\n")
}

func size(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%dB", n)
	}
	return fmt.Sprintf("%.1fKB", float64(n)/1024)
}

func (p *Pane) previewView(w, h int) string {
	s := p.c.Styles
	pg := p.currentPage()
	if pg == nil {
		if p.cursor < len(p.rows) {
			r := p.rows[p.cursor]
			return s.Dim.Render(common.Wrap(r.label+": "+common.Count(r.count, "page")+". enter folds, m selects the group, e extracts it.", w))
		}
		return ""
	}
	var b []string
	b = append(b, common.Link(s.Title.Render(common.Truncate(pg.URL, w)), pg.URL))
	switch {
	case pg.Err != "":
		b = append(b, s.Err.Render(common.Wrap("✗ "+pg.Err, w)))
		if h := common.FailureHint(pg.Err, p.c.Gateway); h != "" {
			b = append(b, "", s.Warn.Render(common.Wrap(h, w)))
		}
	case pg.Content == "":
		b = append(b, s.Dim.Render(common.Wrap("Only the URL is known (from "+pg.Source+"). enter extracts it; c crawls from it.", w)))
	default:
		b = append(b, s.Dim.Render(pg.Source+" · "+size(len(pg.Content))), "")
		text := pg.Content
		if len(text) > 4000 {
			text = text[:4000]
		}
		b = append(b, common.Wrap(text, w))
	}
	return common.Fit(strings.Join(b, "\n"), w, h)
}
