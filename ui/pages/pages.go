// Package pages is the Pages pane: extracted pages rendered as markdown,
// failed extractions with their reasons, and crawl and map results as a
// tree grouped by host and path that can be filtered, previewed, extracted
// from, crawled from and exported to a folder of markdown files.
package pages

import (
	"context"
	"fmt"
	"strings"
	"time"

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
	// readAt is when Content arrived: a watched page's change after it
	// is not in it (see changeMsg).
	readAt time.Time

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

// section is a followed link's #fragment and text, for the page at url
// (the page extracted by run seq, while its URL is not known yet).
type section struct {
	url, fragment, text string
	seq                 int
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
	// openAt is a highlight's quote, or a report's from the page: the
	// page opens there, the quote highlighted.
	openAt string
	// toEnd keeps the reader at the end of a page whose top only was
	// rendered when G was pressed, until the whole page is.
	toEnd bool
	// section is where a followed link points inside its page: the
	// reader goes there once the page is rendered.
	section *section
	aloud   common.Aloud  // R: read the page aloud
	mark    common.Marker // v: select a passage and highlight it
	// The watched pages' last changes, by URL (changes.go); showChange
	// shows the page read's instead of the page, which was at pageAt;
	// changeFor is the page the Library asked to open at its change.
	changes    map[string]*common.Change
	showChange bool
	changeFor  string
	pageAt     int
	history    []visit
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

// New returns an empty Pages pane.
func New(c *common.Common) *Pane {
	f := common.NewInput(c.Styles)
	f.Prompt = "filter: "
	u := common.NewInput(c.Styles)
	u.Prompt = "URL(s): "
	u.Placeholder = "https://example.com, https://example.org/page"
	return &Pane{c: c, byURL: map[string]*Page{}, folded: map[string]bool{}, filter: f, urlInput: u, runs: map[int]context.CancelFunc{},
		changes: map[string]*common.Change{}, progress: common.NewProgress(), md: markdown.NewRenderer()}
}

func (p *Pane) Title() string       { return "Pages" }
func (p *Pane) Init() tea.Cmd       { return nil }
func (p *Pane) KeyMap() help.KeyMap { return p.c.Keys().Pages }
func (p *Pane) Capturing() bool {
	return p.filter.Focused() || p.askURL || p.form != nil || p.picking || p.rd.Finding() || p.mode == readMode && p.mark.Selecting()
}

// Claims takes H from the root (its "previous pane") in the reader,
// where H (or v) selects a passage to highlight.
func (p *Pane) Claims(msg tea.KeyPressMsg) bool {
	return p.mode == readMode && key.Matches(msg, p.c.Keys().Pages.Highlight)
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
		if !p.calls().Done(msg.seq) {
			return p, nil
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
				f.Keys = p.c.Keys().Form
				f.SetInputs(p.formInputs)
				if named, cmd := f.FailOn(msg.err); named {
					p.form = f
					f.SetSize(p.width, p.height-2)
					return p, tea.Batch(cmd, report)
				}
			}
			return p, report
		}
		p.err = nil // what came now is not what the last error was about
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
		p.note = fmt.Sprintf("exported %s to %s", common.Count(msg.n, "page"), common.HomeShort(msg.dir))
		n := p.note
		return p, func() tea.Msg { return common.NoticeMsg{Text: n} }
	case common.OpenPagesMsg:
		// What is opened now is not what the last error was about.
		p.mode, p.err = listMode, nil
		p.openFind, p.openAt = msg.Find, msg.At
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
	case common.HighlightsMsg:
		return p, p.highlights(msg)
	case common.ChangeMsg:
		return p, p.changeMsg(msg)
	case common.OpenChangeMsg:
		return p, p.openChange(msg.URL)
	case common.WatchesChangedMsg:
		// A check ran or a change was looked at: the page read may have
		// a new change.
		if p.mode == readMode {
			return p, p.loadChange(p.reading)
		}
		return p, nil
	case common.ShowKeptMsg:
		// A page, crawl or map reopened from the library, as it was kept.
		m, err := keptPages(msg.Item)
		if err != nil {
			return p, func() tea.Msg { return common.ErrorMsg{Err: err} }
		}
		p.mode, p.openAt = listMode, msg.At
		return p, p.add(m)
	case common.RunToolMsg:
		return p, p.run(msg.Tool.Slug, msg.Inputs, msg.Tool.Slug == api.ToolExtract)
	case tea.WindowSizeMsg, common.StylesChangedMsg:
		p.filter.SetStyles(p.c.Styles.InputStyles())
		p.urlInput.SetStyles(p.c.Styles.InputStyles())
		if p.mode == readMode {
			if p.showChange {
				p.setReader() // wrapped to the new width
			}
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
			if again, ok := p.list().Click(msg.Y - p.listTop); ok && again {
				return p, p.openRow()
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
	if p.mode == readMode && p.mark.Selecting() {
		return p.markKey(msg)
	}
	if p.mode == readMode && p.rd.TOCOpen() {
		p.rd.TOCKey(msg, &p.scroll)
		if p.rd.Jumped() {
			// The reader chose where to be: the rest of the page,
			// rendered, does not take it back to the first match.
			p.findJump, p.toEnd, p.section = false, false, nil
		}
		return nil
	}
	if p.mode == readMode {
		return p.readerKey(msg)
	}
	return p.listKey(msg)
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
			pos += s.Dim.Render(view) + p.changeTitle()
		}
		if st := p.aloud.Progress(); st != "" { // its keys are the keys line's
			pos += s.Warn.Render(" ▶ ") + s.Dim.Render(st)
		} else if st := p.rd.Status(); st != "" {
			pos += s.Dim.Render(" · " + st)
		}
		urlW := max(20, p.width-2-ansi.StringWidth(pos))
		// A long URL keeps its end, the page's own name, as well as its
		// start ("file:///…/library/asyncio-task.html").
		title := s.Title.Render("‹ ") + common.Link(s.Title.Render(common.TruncateURL(pg.URL, urlW)), pg.URL)
		head := append(top, common.Truncate(title+pos, p.width))
		hh := len(strings.Split(strings.Join(head, "\n"), "\n"))
		bodyH := max(0, p.height-hh)
		if p.rd.TOCOpen() {
			return common.Fit(strings.Join(head, "\n")+"\n"+p.rd.TOCView(s, p.width, bodyH), p.width, p.height)
		}
		foot := p.readerFoot()
		switch {
		case p.mark.Noting():
			foot = p.mark.NoteView()
		case p.mark.Selecting():
			foot = s.Warn.Render(common.Truncate(p.mark.Status(), p.width))
		case p.rd.Finding():
			foot = p.rd.FindView()
		}
		fh := len(strings.Split(foot, "\n"))
		p.scroll.SetHeight(max(0, bodyH-fh))
		return common.Fit(strings.Join(head, "\n")+"\n"+common.Fit(p.scroll.View(), p.width, max(0, bodyH-fh))+"\n"+foot, p.width, p.height)
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
	// Where they do not fit (80 columns) the last before "? keys" give
	// way, so that the way to the rest is never the part cut.
	hints := s.Dim.Render(common.FitKeys([]string{"enter read", "m select", "e extract", "c crawl", "/ filter", "o URL", "w export", "? keys"}, p.width))
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
