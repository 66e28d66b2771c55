// Package pages is the Pages pane: extracted pages rendered as markdown,
// failed extractions with their reasons, and crawl and map results as a
// tree grouped by host and path that can be filtered, previewed, extracted
// from, crawled from and exported to a folder of markdown files.
package pages

import (
	"context"
	"encoding/json"
	"fmt"
	"hark/library"
	"net/url"
	"path/filepath"
	"sort"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/ui/common"
	"hark/ui/form"
	"hark/ui/markdown"
)

// KeyMap holds the pane's bindings.
type KeyMap struct {
	Up, Down, Open, Back, Close, Mark, MarkAll, Extract, Crawl, Map, Filter,
	Export, Copy, OpenURL, Raw, Cancel, Form, PageUp, PageDown, Preview, Links key.Binding
	// The reader's own.
	Find, NextMatch, TOC, Browse, Edit, Aloud key.Binding
}

// Keys are the pane's bindings.
var Keys = KeyMap{
	Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
	Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
	PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
	PageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", "page down")),
	Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read page / fold")),
	Back:     key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back (to the page a link left, else the list)")),
	Close:    key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "close the reader")),
	Mark:     key.NewBinding(key.WithKeys("m", "v"), key.WithHelp("m", "select")),
	MarkAll:  key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "select all shown")),
	Extract:  key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "extract selected")),
	Crawl:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "crawl from here")),
	Map:      key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "map from here")),
	Form:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "crawl with options")),
	Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
	Export:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "export selected (or all) as markdown")),
	Copy:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL")),
	OpenURL:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "extract a URL")),
	Raw:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "plain text/rendered (reader)")),
	Preview:  key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "preview below (narrow)")),
	Cancel:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel")),
	Links:    key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "links: follow one (reader)")),

	Find:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "find (reader)")),
	NextMatch: key.NewBinding(key.WithKeys("n", "N"), key.WithHelp("n/N", "next/previous match")),
	TOC:       key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "contents (reader)")),
	Aloud:     key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "read aloud (reader)")),
	Browse:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open in $BROWSER (reader)")),
	Edit:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "open in $EDITOR/$PAGER (reader)")),
}

func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Mark, k.Extract, k.Crawl, k.Filter, k.Export}
}
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Open, k.Back, k.Close, k.PageUp, k.PageDown},
		{k.Mark, k.MarkAll, k.Filter, k.Copy, k.Raw, k.Preview, k.Links},
		{k.Find, k.NextMatch, k.TOC, k.Browse, k.Edit, k.Aloud},
		{k.OpenURL, k.Extract, k.Crawl, k.Map, k.Form, k.Export, k.Cancel},
	}
}

// Page is one page the pane knows: extracted, crawled, mapped or failed.
type Page struct {
	URL     string
	Content string // markdown or text body; "" for a mapped link
	// Plain marks Content as plain text (format=text, or a search
	// result's raw_content): it is shown as it is, never read as
	// markdown, where "char *p" would turn into emphasis.
	Plain  bool
	Err    string // why extraction failed
	Source string // tool slug that produced it
	Marked bool

	rendered      string // glamour's rendering
	headShown     bool   // rendered holds only the page's top (see headBytes)
	wrapped       string // the page as plain text, wrapped, for the text view
	asText        bool   // t: this page is read as plain text, not rendered
	renderedWidth int
	renderedStyle string
}

type mode int

const (
	listMode mode = iota
	readMode
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

type renderedMsg struct {
	page                 *Page
	width                int
	style, text, wrapped string
	// head marks the rendering of the page's top only, shown while the
	// whole page renders; textOnly the page's text view alone, meanwhile.
	head, textOnly bool
}

// section is a followed link's #fragment and text, for the page at url
// (the page extracted by run seq, while its URL is not known yet).
type section struct {
	url, fragment, text string
	seq                 int
}

// headBytes is the size above which a page's top is rendered first: glamour
// takes about 2 s for 256 KB, and the reader shows the top at once.
const headBytes = 24 << 10

type exportedMsg struct {
	dir string
	n   int
	err error
}

// Pane is the Pages pane.
type Pane struct {
	c        *common.Common
	pages    []*Page
	byURL    map[string]*Page
	folded   map[string]bool
	rows     []row
	cursor   int
	offset   int
	mode     mode
	reading  *Page
	preview  bool // show the preview under the list on narrow terminals
	scroll   common.Scroll
	filter   textinput.Model
	urlInput textinput.Model
	askURL   bool
	form     *form.Form
	progress common.Progress
	runs     map[int]context.CancelFunc // calls under way, by seq
	seq      int
	err      error
	note     string
	md       *markdown.Renderer
	// The reader's link picker (l) and the pages read before the one
	// shown, which esc goes back to.
	links   []pageLink
	linkAt  int
	linkNum int // the link number being typed
	picking bool
	rd      common.Reader // find, contents, editor and browser in the reader
	// openFind is the search that asked for the page being extracted: it
	// opens at the rarest of its words (see common.RarestWord), and
	// findJump keeps it there until the whole page is rendered.
	openFind string
	findJump bool
	// toEnd keeps the reader at the end of a page whose top only was
	// rendered when G was pressed, until the whole page is.
	toEnd bool
	// section is where a followed link points inside its page: the
	// reader goes there once the page is rendered.
	section *section
	aloud   common.Aloud // R: read the page aloud
	history []visit
	// restore is the page esc went back to, until it is shown whole.
	restore *visit
	// The crawl form's last submit: its run and what it sent, kept for
	// reopening the form after a refusal.
	formRun    int
	formInputs map[string]any
	// The URL line's last extract, kept the same way.
	urlRun   int
	urlTyped string
	width    int
	height   int
	listTop  int
}

// row is one line of the tree: a host, a path group or a page.
type row struct {
	kind  byte // 'h' host, 'd' directory, 'p' page
	label string
	key   string
	count int
	page  *Page
}

// New returns an empty Pages pane.
func New(c *common.Common) *Pane {
	f := common.NewInput(c.Styles)
	f.Prompt = "filter: "
	u := common.NewInput(c.Styles)
	u.Prompt = "URL(s): "
	u.Placeholder = "https://example.com, https://example.org/page"
	return &Pane{c: c, byURL: map[string]*Page{}, folded: map[string]bool{}, filter: f, urlInput: u, runs: map[int]context.CancelFunc{},
		progress: common.NewProgress(), md: markdown.NewRenderer()}
}

func (p *Pane) Title() string       { return "Pages" }
func (p *Pane) Init() tea.Cmd       { return nil }
func (p *Pane) KeyMap() help.KeyMap { return Keys }
func (p *Pane) Capturing() bool {
	return p.filter.Focused() || p.askURL || p.form != nil || p.picking || p.rd.Finding()
}

// Resting reports that esc has nothing here to close: the list, with no
// filter and no line open (see common.Rester).
func (p *Pane) Resting() bool {
	return p.mode == listMode && !p.Capturing() && p.filter.Value() == ""
}

// Handles reports the tools whose output this pane shows.
func (p *Pane) Handles(slug string) bool {
	return slug == api.ToolExtract || slug == api.ToolCrawl || slug == api.ToolMap
}

// Pages returns the pages in the order they arrived.
func (p *Pane) Pages() []*Page { return p.pages }

// ShowingDocument reports that the reader is open: q closes it (see
// common.DocumentShower).
func (p *Pane) ShowingDocument() bool { return p.mode == readMode }

// Reading returns the page open in the reader, or nil.
func (p *Pane) Reading() *Page {
	if p.mode == readMode {
		return p.reading
	}
	return nil
}

func (p *Pane) SetSize(w, h int) {
	p.width, p.height = max(0, w), max(0, h)
	p.scroll.SetHeight(max(0, h-2))
	p.filter.SetWidth(max(10, w-10))
	p.urlInput.SetWidth(max(10, w-10))
	if p.form != nil {
		p.form.SetSize(w, h-2)
	}
}

func (p *Pane) Update(msg tea.Msg) (common.Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case doneMsg:
		if _, ok := p.runs[msg.seq]; !ok {
			return p, nil
		}
		delete(p.runs, msg.seq)
		if len(p.runs) == 0 {
			p.progress.Stop()
		}
		if msg.err != nil {
			p.err = msg.err
			report := func() tea.Msg { return common.ErrorMsg{Err: msg.err} }
			if msg.seq == p.urlRun && form.Refused(msg.err) {
				// Give the typed URLs back to correct.
				p.askURL = true
				p.urlInput.SetValue(p.urlTyped)
				return p, tea.Batch(p.urlInput.Focus(), report)
			}
			if t := p.c.Tool(api.ToolCrawl); msg.seq == p.formRun && t != nil && form.Refused(msg.err) {
				// Reopen the form with what was sent, at the field the
				// gateway named.
				f := form.New(*t, p.c.Styles)
				f.SetInputs(p.formInputs)
				if named, cmd := f.FailOn(msg.err); named {
					p.form = f
					f.SetSize(p.width, p.height-2)
					return p, tea.Batch(cmd, report)
				}
			}
			return p, report
		}
		if len(msg.keep) > 0 {
			return p, tea.Batch(p.add(msg), p.keepRead(msg.keep, msg.keepMarkdown))
		}
		return p, p.add(msg)
	case renderedMsg:
		if msg.textOnly {
			if msg.page.headShown || msg.page.rendered == "" {
				msg.page.wrapped = msg.wrapped
				if p.reading == msg.page && msg.page.asText {
					p.setReader()
					p.goToSection()
				}
			}
			return p, nil
		}
		if msg.head {
			// The top, while the whole page renders; a whole rendering
			// already here wins.
			if msg.page.rendered == "" || msg.page.headShown {
				msg.page.rendered, msg.page.headShown = msg.text+"\n\n"+p.c.Styles.Dim.Render("rendering the rest of the page…"), true
				if p.reading == msg.page {
					p.setReader()
					p.goToSection()
				}
			}
			return p, nil
		}
		msg.page.rendered, msg.page.wrapped, msg.page.headShown = msg.text, msg.wrapped, false
		msg.page.renderedWidth, msg.page.renderedStyle = msg.width, msg.style
		if p.reading == msg.page {
			p.setReader()
			switch {
			case p.findJump:
				p.rd.FirstMatch(&p.scroll)
			case p.toEnd:
				p.scroll.Bottom()
			case p.restore != nil:
				p.restorePlace()
			default:
				p.goToSection()
			}
			p.findJump, p.toEnd, p.section = false, false, nil
		}
		return p, nil
	case exportedMsg:
		if msg.err != nil {
			p.err = msg.err
			return p, func() tea.Msg { return common.ErrorMsg{Err: msg.err} }
		}
		p.note = fmt.Sprintf("exported %s to %s", common.Count(msg.n, "page"), msg.dir)
		n := p.note
		return p, func() tea.Msg { return common.NoticeMsg{Text: n} }
	case common.OpenPagesMsg:
		// What is opened now is not what the last error was about.
		p.mode, p.err = listMode, nil
		p.openFind = msg.Find
		if len(msg.Read) > 0 {
			m := doneMsg{slug: api.ToolSearch, base: msg.Read[0].URL}
			for _, r := range msg.Read {
				m.pages = append(m.pages, &Page{URL: r.URL, Content: r.RawContent, Plain: !msg.ReadMarkdown, Source: api.ToolSearch})
			}
			return p, tea.Batch(p.add(m), p.keepRead(msg.Read, msg.ReadMarkdown), p.extract(msg.URLs, false))
		}
		return p, p.extract(msg.URLs, true)
	case common.AloudMsg:
		return p, p.aloud.Update(msg, &p.scroll)
	case common.ShowKeptMsg:
		// A page, crawl or map reopened from the library, as it was kept.
		m, err := keptPages(msg.Item)
		if err != nil {
			return p, func() tea.Msg { return common.ErrorMsg{Err: err} }
		}
		p.mode = listMode
		return p, p.add(m)
	case common.RunToolMsg:
		return p, p.run(msg.Tool.Slug, msg.Inputs, msg.Tool.Slug == api.ToolExtract)
	case tea.WindowSizeMsg, common.StylesChangedMsg:
		p.filter.SetStyles(p.c.Styles.InputStyles())
		p.urlInput.SetStyles(p.c.Styles.InputStyles())
		if p.mode == readMode {
			return p, p.render(p.reading)
		}
	case tea.KeyPressMsg:
		return p, p.key(msg)
	case tea.PasteMsg:
		var cmd tea.Cmd
		switch {
		case p.form != nil:
			_, cmd = p.form.Update(msg)
		case p.askURL:
			p.urlInput, cmd = p.urlInput.Update(msg)
		case p.filter.Focused():
			p.filter, cmd = p.filter.Update(msg)
			p.rebuild()
		}
		return p, cmd
	case tea.MouseWheelMsg:
		d := 3
		if msg.Button == tea.MouseWheelUp {
			d = -3
		}
		if p.mode == readMode {
			p.scroll.ScrollBy(d)
		} else {
			p.move(d)
		}
	case tea.MouseClickMsg:
		if p.mode == listMode && p.form == nil {
			i := p.offset + msg.Y - p.listTop
			if msg.Y >= p.listTop && i >= 0 && i < len(p.rows) {
				if i == p.cursor {
					return p, p.openRow()
				}
				p.cursor = i
			}
		}
	}
	return p, p.progress.Update(msg)
}

func (p *Pane) key(msg tea.KeyPressMsg) tea.Cmd {
	if p.form != nil {
		act, cmd := p.form.Update(msg)
		switch act {
		case form.Cancel:
			p.form = nil
		case form.Submit:
			t, in := p.form.Tool, p.form.Inputs()
			p.form = nil
			cmd := p.run(t.Slug, in, false)
			p.formRun, p.formInputs = p.seq, in
			return cmd
		}
		return cmd
	}
	if p.askURL {
		switch msg.String() {
		case "esc":
			p.askURL = false
			p.urlInput.Blur()
			return nil
		case "enter":
			p.askURL = false
			p.urlInput.Blur()
			typed := p.urlInput.Value()
			urls := api.ParseURLList(typed)
			p.urlInput.SetValue("")
			if len(urls) == 0 {
				return nil
			}
			cmd := p.extract(urls, true)
			p.urlRun, p.urlTyped = p.seq, typed
			return cmd
		}
		var cmd tea.Cmd
		p.urlInput, cmd = p.urlInput.Update(msg)
		return cmd
	}
	if p.filter.Focused() {
		switch msg.String() {
		case "esc":
			p.filter.SetValue("")
			p.filter.Blur()
			p.rebuild()
			return nil
		case "enter", "down", "up":
			p.filter.Blur()
			return nil
		}
		var cmd tea.Cmd
		p.filter, cmd = p.filter.Update(msg)
		p.rebuild()
		return cmd
	}
	if p.picking {
		return p.pickKey(msg)
	}
	if p.mode == readMode && p.rd.Finding() {
		return p.rd.FindKey(msg, &p.scroll)
	}
	if p.mode == readMode && p.rd.TOCOpen() {
		p.rd.TOCKey(msg, &p.scroll)
		return nil
	}
	if p.mode == readMode {
		if cmd, ok := p.aloud.Key(msg, p.c, &p.scroll); ok {
			return cmd
		}
		switch {
		case key.Matches(msg, Keys.Aloud):
			return p.aloud.Start(p.c, p.reading.Content, &p.scroll)
		case key.Matches(msg, Keys.Find):
			return p.rd.StartFind(p.c.Styles)
		case key.Matches(msg, Keys.NextMatch):
			p.rd.Next(&p.scroll, msg.String() == "N")
		case key.Matches(msg, Keys.TOC):
			var ok bool
			if p.reading.Plain {
				ok = p.rd.OpenTextTOC(p.reading.Content, &p.scroll)
			} else {
				ok = p.rd.OpenTOC(p.reading.Content, &p.scroll)
			}
			if !ok {
				return func() tea.Msg { return common.NoticeMsg{Text: "this page has no headings to list"} }
			}
		case key.Matches(msg, Keys.Browse):
			return common.Browse(p.reading.URL)
		case key.Matches(msg, Keys.Edit):
			return common.Edit(p.reading.Content, library.FileName(p.reading.URL))
		case key.Matches(msg, Keys.Back):
			if cmd, ok := p.goBack(); ok {
				return cmd
			}
			p.mode = listMode
		case key.Matches(msg, Keys.Close):
			p.aloud.Stop(&p.scroll)
			p.mode, p.history, p.restore = listMode, nil, nil
		case key.Matches(msg, Keys.Links):
			p.links = pageLinks(p.reading)
			if len(p.links) == 0 {
				text := "this page has no links"
				if p.reading.Plain && p.reading.Source == api.ToolSearch {
					text = "this page came from the search index as plain text, which keeps no links"
				}
				return func() tea.Msg { return common.NoticeMsg{Text: text} }
			}
			p.picking, p.linkAt, p.linkNum = true, 0, 0
		case key.Matches(msg, Keys.Up):
			p.toEnd = false
			p.scroll.ScrollBy(-1)
		case key.Matches(msg, Keys.Down):
			p.scroll.ScrollBy(1)
		case key.Matches(msg, Keys.PageUp):
			p.toEnd = false
			p.scroll.ScrollBy(-p.scroll.Page())
		case key.Matches(msg, Keys.PageDown):
			p.scroll.ScrollBy(p.scroll.Page())
		case msg.String() == "g" || msg.String() == "home":
			p.toEnd = false
			p.scroll.Top()
		case msg.String() == "G" || msg.String() == "end":
			// While only the top is rendered its end is not the page's:
			// the whole page, when it lands, opens at its end.
			p.toEnd = p.rendering()
			p.scroll.Bottom()
		case key.Matches(msg, Keys.Raw):
			if p.reading.Plain {
				return func() tea.Msg {
					return common.NoticeMsg{Text: "this page is plain text already: it has no markup to render"}
				}
			}
			// The same place in the other view: as far down, in proportion.
			at := float64(p.scroll.Offset()) / float64(max(1, p.scroll.Len()))
			p.reading.asText = !p.reading.asText
			p.setReader()
			p.scroll.ScrollBy(int(at*float64(p.scroll.Len())) - p.scroll.Offset())
		case key.Matches(msg, Keys.Copy):
			return common.CopyURL(p.reading.URL)
		case key.Matches(msg, Keys.Crawl):
			return p.crawlFrom(api.ToolCrawl, p.reading.URL)
		case key.Matches(msg, Keys.Export):
			return p.export([]*Page{p.reading})
		}
		return nil
	}
	switch {
	case key.Matches(msg, Keys.Back):
		if p.filter.Value() != "" {
			p.filter.SetValue("")
			p.rebuild()
		}
	case key.Matches(msg, Keys.Up):
		p.move(-1)
	case key.Matches(msg, Keys.Down):
		p.move(1)
	case key.Matches(msg, Keys.PageUp):
		p.move(-max(1, p.height-4))
	case key.Matches(msg, Keys.PageDown):
		p.move(max(1, p.height-4))
	case msg.String() == "g" || msg.String() == "home":
		p.cursor = 0
	case msg.String() == "G" || msg.String() == "end":
		p.cursor = max(0, len(p.rows)-1)
	case key.Matches(msg, Keys.Open):
		return p.openRow()
	case key.Matches(msg, Keys.Mark):
		for _, pg := range p.rowPages(p.cursor) {
			pg.Marked = !pg.Marked
		}
		p.move(1)
	case key.Matches(msg, Keys.MarkAll):
		for _, r := range p.rows {
			if r.page != nil {
				r.page.Marked = true
			}
		}
	case key.Matches(msg, Keys.Filter):
		return p.filter.Focus()
	case key.Matches(msg, Keys.OpenURL):
		p.askURL = true
		return p.urlInput.Focus()
	case key.Matches(msg, Keys.Extract):
		var urls []string
		for _, pg := range p.selected() {
			urls = append(urls, pg.URL)
		}
		return p.extract(urls, false)
	case key.Matches(msg, Keys.Crawl):
		if u := p.rowURL(p.cursor); u != "" {
			return p.crawlFrom(api.ToolCrawl, u)
		}
	case key.Matches(msg, Keys.Map):
		if u := p.rowURL(p.cursor); u != "" {
			return p.crawlFrom(api.ToolMap, u)
		}
	case key.Matches(msg, Keys.Form):
		t := p.c.Tool(api.ToolCrawl)
		if t == nil {
			return notConnected(api.ToolCrawl)
		}
		p.form = form.New(*t, p.c.Styles)
		// What was last sent from the form stays (a refused pattern is
		// there to correct); the URL under the cursor fills an empty one.
		p.form.SetInputs(p.formInputs)
		if u := p.rowURL(p.cursor); u != "" && p.formInputs["url"] == nil {
			p.form.Set("url", u)
		}
		p.form.SetSize(p.width, p.height-2)
	case key.Matches(msg, Keys.Export):
		sel := p.marked()
		if len(sel) == 0 {
			sel = p.pages
		}
		return p.export(sel)
	case key.Matches(msg, Keys.Copy):
		if u := p.rowURL(p.cursor); u != "" {
			return common.CopyURL(u)
		}
	case key.Matches(msg, Keys.Preview):
		p.preview = !p.preview
	case key.Matches(msg, Keys.Cancel):
		for _, cancel := range p.runs {
			cancel()
		}
	}
	return nil
}

func (p *Pane) move(d int) {
	p.cursor = max(0, min(len(p.rows)-1, p.cursor+d))
}

func (p *Pane) currentPage() *Page {
	if p.cursor < len(p.rows) {
		return p.rows[p.cursor].page
	}
	return nil
}

// openRow reads the page under the cursor (extracting it first when only
// its URL is known), or folds a host or path group.
func (p *Pane) openRow() tea.Cmd {
	if p.cursor >= len(p.rows) {
		return nil
	}
	r := p.rows[p.cursor]
	if r.page == nil {
		p.folded[r.key] = !p.folded[r.key]
		p.rebuild()
		return nil
	}
	if r.page.Content == "" && r.page.Err == "" {
		return p.extract([]string{r.page.URL}, true)
	}
	return p.read(r.page)
}

// setReader shows the reader's text, finding the last find again in it.
func (p *Pane) setReader() {
	p.scroll.SetContent(p.readerText())
	p.rd.Refresh(&p.scroll)
}

func (p *Pane) read(pg *Page) tea.Cmd {
	if p.reading != pg {
		p.aloud.Stop(&p.scroll)
	}
	p.findJump, p.toEnd, p.restore = false, false, nil
	if p.section != nil && p.section.url != pg.URL {
		p.section = nil
	}
	p.mode, p.reading = readMode, pg
	p.rd.Reset()
	p.setReader()
	p.scroll.Top()
	return p.render(pg)
}

// readerText is what the reader shows now: the rendered markdown, or the
// text while rendering runs or when raw text is asked for.
func (p *Pane) readerText() string {
	pg := p.reading
	if pg == nil {
		return ""
	}
	if pg.Err != "" {
		w := max(10, p.width-2)
		t := p.c.Styles.Err.Render(common.Wrap("✗ extraction failed: "+pg.Err, w))
		if h := common.FailureHint(pg.Err, p.c.Gateway); h != "" {
			t += "\n\n" + p.c.Styles.Warn.Render(common.Wrap(h, w))
		}
		return t
	}
	switch {
	case pg.asText && pg.wrapped != "":
		return pg.wrapped
	case pg.rendered == "":
		// Rendering and wrapping run in a command; long pages would make
		// Update slow.
		return p.c.Styles.Dim.Render("rendering…")
	}
	return pg.rendered
}

// rendering reports that the reader shows less than the whole page: it
// is rendering, or only its top is rendered yet.
func (p *Pane) rendering() bool {
	pg := p.reading
	if pg == nil || pg.Err != "" || pg.asText && pg.wrapped != "" {
		return false
	}
	return pg.rendered == "" || pg.headShown
}

// goToSection shows the section a followed link points at, once its page
// is shown.
func (p *Pane) goToSection() {
	sec, pg := p.section, p.reading
	if sec == nil || pg == nil || sec.url != pg.URL {
		return
	}
	common.GoToSection(pg.Content, pg.Plain, pg.URL, sec.fragment, sec.text, &p.scroll)
}

// render renders a page's markdown in a command, cached by width.
func (p *Pane) render(pg *Page) tea.Cmd {
	if pg == nil || pg.Content == "" {
		return nil
	}
	style, w := markdown.Style(p.c.Styles), markdown.WrapWidth(p.width)
	if pg.renderedWidth == w && pg.renderedStyle == style {
		return nil
	}
	md, content, plain := p.md, pg.Content, pg.Plain
	full := func() tea.Msg {
		if plain {
			wrapped := common.Wrap(content, w)
			return renderedMsg{page: pg, width: w, style: style, text: common.LinkURLs(wrapped), wrapped: wrapped}
		}
		wrapped := markdown.PlainText(content, w)
		out, err := md.Render(content, style, w)
		if err != nil {
			out = wrapped
		}
		return renderedMsg{page: pg, width: w, style: style, text: out, wrapped: wrapped}
	}
	if plain || len(content) <= headBytes {
		return full
	}
	top := markdownHead(content, headBytes)
	head := func() tea.Msg {
		out, err := md.Render(top, style, w)
		if err != nil {
			out = common.Wrap(top, w)
		}
		return renderedMsg{page: pg, width: w, style: style, text: out, head: true}
	}
	// The text view is quick to make (40 ms for 200 KB): the whole page's
	// at once, beside the top.
	asText := func() tea.Msg {
		return renderedMsg{page: pg, width: w, style: style, wrapped: markdown.PlainText(content, w), textOnly: true}
	}
	return tea.Batch(head, asText, full)
}

// markdownHead is the start of md up to about n bytes, cut at a paragraph
// break outside code fences, so that it renders as the page will.
func markdownHead(md string, n int) string {
	cut, fenced := 0, false
	for i := 0; i < len(md) && i < n; {
		j := strings.IndexByte(md[i:], '\n')
		if j < 0 {
			break
		}
		line := strings.TrimSpace(md[i : i+j])
		if strings.HasPrefix(line, "```") || strings.HasPrefix(line, "~~~") {
			fenced = !fenced
		}
		if line == "" && !fenced {
			cut = i
		}
		i += j + 1
	}
	if cut == 0 {
		cut = min(n, len(md))
	}
	return md[:cut]
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

// notConnected explains a key that needs a tool the gateway has not
// listed (yet).
func notConnected(slug string) tea.Cmd {
	return func() tea.Msg {
		return common.ErrorMsg{Err: fmt.Errorf("%s is not in the gateway's tool list (yet): wait for the tools to load, or check the gateway", slug)}
	}
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

func (p *Pane) crawlFrom(slug, u string) tea.Cmd {
	return p.run(slug, map[string]any{"url": u}, false)
}

// run calls a tool in a command. Calls run side by side (an extract
// opened from Search does not stop a crawl); x cancels them all.
func (p *Pane) run(slug string, inputs map[string]any, openFirst bool) tea.Cmd {
	ctx, cancel := context.WithCancel(context.Background())
	p.seq++
	p.runs[p.seq] = cancel
	p.err, p.note = nil, ""
	seq, client := p.seq, p.c.Client
	label := map[string]string{api.ToolExtract: "extracting", api.ToolCrawl: "crawling", api.ToolMap: "mapping"}[slug]
	if label == "" {
		label = "running " + slug
	}
	if u, ok := inputs["url"].(string); ok {
		label += " " + u
	}
	return tea.Batch(p.progress.Start(label, p.c.Now()), func() tea.Msg {
		defer cancel()
		res, err := common.Invoke(ctx, client, slug, inputs)
		if err != nil {
			return doneMsg{seq: seq, err: fmt.Errorf("%s: %w", slug, err)}
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
		m.pages = []*Page{{URL: it.URL, Content: it.Body, Plain: plain, Source: it.Tool}}
		m.base = it.URL
	case library.KindCrawl:
		out, err := api.DecodeCrawl(json.RawMessage(it.Output))
		if err != nil {
			return m, fmt.Errorf("library item %d: %w", it.ID, err)
		}
		for _, r := range out.Results {
			m.pages = append(m.pages, &Page{URL: r.URL, Content: r.RawContent, Plain: plain, Source: it.Tool})
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
		if old, ok := p.byURL[pg.URL]; ok {
			if pg.Content != "" || pg.Err != "" {
				old.Content, old.Err, old.Source, old.Plain = pg.Content, pg.Err, pg.Source, pg.Plain
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
		if w := common.RarestWord(p.openFind, open.Content); w != "" {
			p.rd.Find(w, &p.scroll)
			p.findJump = true
		}
		p.openFind = ""
		return cmd
	}
	if len(m.pages) == 0 {
		p.note = "no pages returned"
	} else {
		p.note = common.Count(len(m.pages), "page") + " from " + m.slug
	}
	return nil
}

func (p *Pane) visible() []*Page {
	f := strings.ToLower(strings.TrimSpace(p.filter.Value()))
	if f == "" {
		return p.pages
	}
	var out []*Page
	for _, pg := range p.pages {
		if strings.Contains(strings.ToLower(pg.URL), f) || strings.Contains(strings.ToLower(pg.Err), f) {
			out = append(out, pg)
		}
	}
	return out
}

// group is a URL's host and first path segment ("/" for top-level pages).
func group(u string) (host, dir string) {
	pu, err := url.Parse(u)
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
			for _, pg := range d.pages {
				p.rows = append(p.rows, row{kind: 'p', page: pg, key: pg.URL})
			}
		}
	}
	p.cursor = max(0, min(p.cursor, len(p.rows)-1))
}

// export writes pages as markdown files into a new folder under OutputDir.
func (p *Pane) export(pages []*Page) tea.Cmd {
	if len(pages) == 0 {
		return nil
	}
	dir := filepath.Join(outputDir(p.c.OutputDir), "pages-"+p.c.Now().Format("20060102-150405"))
	snap := make([]library.Page, len(pages))
	for i, pg := range pages {
		snap[i] = library.Page{URL: pg.URL, Content: pg.Content, Err: pg.Err}
	}
	return func() tea.Msg {
		dir := library.FreshDir(dir)
		n, err := library.ExportPages(dir, snap)
		return exportedMsg{dir: dir, n: n, err: err}
	}
}

func outputDir(d string) string {
	if d == "" {
		return "."
	}
	return d
}

// View draws the tree (with a preview at the right when wide) or the reader.
func (p *Pane) View() string {
	s := p.c.Styles
	if p.form != nil {
		head := s.Title.Render("Crawl · options") + s.Dim.Render("  enter runs · esc closes")
		return common.Fit(head+"\n\n"+p.form.View(), p.width, p.height)
	}
	var top []string
	if p.progress.Active {
		more := ""
		if n := len(p.runs); n > 1 {
			more = fmt.Sprintf(" (+%d more)", n-1)
		}
		top = append(top, p.progress.View(s, p.c.Now())+s.Dim.Render(more+"  x cancels"))
	}
	if p.err != nil {
		top = append(top, common.ErrorView(s, p.err, p.width))
	}
	if p.mode == readMode && p.reading != nil && p.picking {
		return common.Fit(strings.Join(append(top, p.linksView()), "\n"), p.width, p.height)
	}
	if p.mode == readMode && p.reading != nil {
		pg := p.reading
		// While the page renders there is no position to give: the end
		// of its top is not the page's.
		pos := ""
		if !p.rendering() {
			pos = s.Dim.Render(fmt.Sprintf(" %d%%", p.scroll.Percent()))
		}
		if pg.Err == "" {
			view := " · rendered"
			if pg.Plain || pg.asText {
				view = " · plain text"
			}
			pos += s.Dim.Render(view)
		}
		if st := p.aloud.Status(); st != "" {
			pos += s.Warn.Render(" ▶ ") + s.Dim.Render(st)
		} else if st := p.rd.Status(); st != "" {
			pos += s.Dim.Render(" · " + st)
		}
		urlW := max(20, p.width-2-ansi.StringWidth(pos))
		title := s.Title.Render("‹ ") + common.Link(s.Title.Render(common.Truncate(pg.URL, urlW)), pg.URL)
		head := append(top, common.Truncate(title+pos, p.width))
		hh := len(strings.Split(strings.Join(head, "\n"), "\n"))
		bodyH := max(0, p.height-hh)
		if p.rd.TOCOpen() {
			return common.Fit(strings.Join(head, "\n")+"\n"+p.rd.TOCView(s, p.width, bodyH), p.width, p.height)
		}
		if p.rd.Finding() {
			p.scroll.SetHeight(max(0, bodyH-1))
			return common.Fit(strings.Join(head, "\n")+"\n"+common.Fit(p.scroll.View(), p.width, max(0, bodyH-1))+"\n"+p.rd.FindView(), p.width, p.height)
		}
		p.scroll.SetHeight(bodyH)
		return common.Fit(strings.Join(head, "\n")+"\n"+p.scroll.View(), p.width, p.height)
	}
	switch {
	case p.askURL:
		top = append(top, p.urlInput.View())
	case p.filter.Focused() || p.filter.Value() != "":
		top = append(top, p.filter.View())
	}
	if len(p.pages) == 0 {
		hint := "No pages yet. Open a search result (enter in Search), press o to extract a URL, or run extract, crawl or map from the palette (:)."
		return common.Fit(strings.Join(append(top, s.Dim.Render(common.Wrap(hint, p.width))), "\n"), p.width, p.height)
	}
	sum, note := common.Count(len(p.pages), "page"), p.note
	if n := len(p.visible()); n < len(p.pages) {
		sum = fmt.Sprintf("%d of %s match the filter", n, sum)
	} else if strings.HasPrefix(note, sum+" ") {
		// "11 pages from vendor_crawl", not "11 pages · 11 pages from …"
		sum, note = note, ""
	}
	if m := len(p.marked()); m > 0 {
		sum += fmt.Sprintf(" · %d selected", m)
	}
	if note != "" {
		sum += " · " + note
	}
	top = append(top, s.Dim.Render(common.Truncate(sum, p.width)))
	header := strings.Join(top, "\n")
	hh := len(strings.Split(header, "\n"))
	p.listTop = hh
	// The list's keys, on the last line, as the Library shows its own.
	hints := s.Dim.Render(common.Truncate("enter read · m select · e extract · c crawl · / filter · o URL · w export · ? keys", p.width))
	bodyH := max(0, p.height-hh-1)
	wide := p.width >= 100
	listW := p.width
	if wide {
		listW = p.width / 2
	}
	if !wide && p.preview && bodyH >= 8 {
		// Narrow: the list on top, the preview under it.
		listH := bodyH / 2
		list := common.Fit(p.treeView(listW, listH), listW, listH)
		rule := s.Dim.Render(strings.Repeat("─", p.width))
		return common.Fit(header+"\n"+list+"\n"+rule+"\n"+common.Fit(p.previewView(p.width, bodyH-listH-1), p.width, bodyH-listH-1)+"\n"+hints, p.width, p.height)
	}
	list := common.Fit(p.treeView(listW, bodyH), listW, bodyH)
	if wide {
		left := common.PadRight(list, listW)
		list = common.JoinColumns(left, s.Dim.Render(" │ "), common.Fit(p.previewView(p.width-listW-3, bodyH), p.width-listW-3, bodyH))
	}
	return common.Fit(header+"\n"+list+"\n"+hints, p.width, p.height)
}

func (p *Pane) treeView(w, h int) string {
	s := p.c.Styles
	if len(p.rows) == 0 {
		return s.Dim.Render("nothing matches the filter")
	}
	if p.cursor < p.offset {
		p.offset = p.cursor
	}
	if p.cursor >= p.offset+h {
		p.offset = p.cursor - h + 1
	}
	end := min(len(p.rows), p.offset+h)
	lines := make([]string, 0, end-p.offset)
	for i := p.offset; i < end; i++ {
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
			if pu != nil {
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
