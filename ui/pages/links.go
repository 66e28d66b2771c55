package pages

import (
	"context"
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/ui/common"
)

// pageLink is a link in a page's text, which the reader can follow.
type pageLink struct {
	Text, URL string
}

var (
	mdLinkRE  = regexp.MustCompile(`\[((?:[^\[\]\\]|\\.)*)\]\((https?://[^)\s]+|file://[^)\s]+)\)`)
	bareURLRE = regexp.MustCompile(`https?://[^\s<>()\[\]"']+`)
)

// pageLinks lists the links of a page in reading order, each URL once:
// markdown links, or the bare URLs of plain text.
func pageLinks(pg *Page) []pageLink {
	if pg == nil {
		return nil
	}
	var out []pageLink
	seen := map[string]bool{}
	add := func(text, u string) {
		u = strings.TrimRight(u, ".,;:")
		if seen[u] || u == pg.URL {
			return
		}
		seen[u] = true
		out = append(out, pageLink{Text: text, URL: u})
	}
	if pg.Plain {
		for _, u := range bareURLRE.FindAllString(pg.Content, -1) {
			add("", u)
		}
		return out
	}
	for _, m := range mdLinkRE.FindAllStringSubmatch(pg.Content, -1) {
		text := strings.NewReplacer("\\", "", "`", "", "**", "").Replace(m[1])
		add(strings.Join(strings.Fields(text), " "), m[2])
	}
	return out
}

func (p *Pane) pickKey(msg tea.KeyPressMsg) tea.Cmd {
	if k := msg.String(); len(k) == 1 && k[0] >= '0' && k[0] <= '9' {
		p.typeLinkNumber(k[0])
		return nil
	}
	p.linkNum = 0
	switch {
	case key.Matches(msg, p.c.Keys().Pages.Back), key.Matches(msg, p.c.Keys().Pages.Close), msg.String() == "l":
		p.picking = false
	case key.Matches(msg, p.c.Keys().Pages.Up):
		p.linkAt = max(0, p.linkAt-1)
	case key.Matches(msg, p.c.Keys().Pages.Down):
		p.linkAt = min(len(p.links)-1, p.linkAt+1)
	case key.Matches(msg, p.c.Keys().Pages.PageUp):
		p.linkAt = max(0, p.linkAt-p.listHeight())
	case key.Matches(msg, p.c.Keys().Pages.PageDown):
		p.linkAt = min(len(p.links)-1, p.linkAt+p.listHeight())
	case key.Matches(msg, p.c.Keys().Pages.Copy):
		return common.CopyURL(p.links[p.linkAt].URL)
	case key.Matches(msg, p.c.Keys().Pages.Open):
		p.picking = false
		return p.follow(p.links[p.linkAt])
	}
	return nil
}

// typeLinkNumber moves to the link whose number is being typed: "1"
// then "2" is link 12; a digit that would pass the last link starts a
// new number.
func (p *Pane) typeLinkNumber(d byte) {
	n := p.linkNum*10 + int(d-'0')
	if n == 0 || n > len(p.links) {
		n = int(d - '0')
	}
	p.linkNum = n
	if n >= 1 && n <= len(p.links) {
		p.linkAt = n - 1
	}
}

// follow opens a link of the page being read as a page of its own: read
// at once when Pages has its text, extracted otherwise, at the section
// its #fragment names. esc comes back. A link into the page being read
// goes to its section.
func (p *Pane) follow(l pageLink) tea.Cmd {
	u, fragment := l.URL, ""
	if pu, err := url.Parse(l.URL); err == nil && pu.Fragment != "" {
		fragment, pu.Fragment, pu.RawFragment = pu.EscapedFragment(), "", ""
		u = pu.String()
	}
	var sec *section
	if fragment != "" {
		sec = &section{url: u, fragment: fragment, text: l.Text}
	}
	if p.reading != nil && p.reading.URL == u {
		p.section = sec
		p.goToSection()
		p.section = nil
		return nil
	}
	p.leave()
	if pg, ok := p.byURL[u]; ok && pg.Content != "" {
		p.section = sec
		cmd := p.read(pg) // its highlights and change are asked for, too
		if p.renderedNow(pg) {
			p.goToSection()
			p.section = nil
		}
		return cmd
	}
	var cmd tea.Cmd
	if r, ok := p.c.Index.(common.PageReader); ok && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		cmd = p.readIndexed(r, u) // a file:// page of `hark index DIR`: no gateway fetches it
	} else {
		cmd = p.extract([]string{u}, true)
	}
	if sec != nil {
		sec.seq = p.seq // the extract's page may come back under another URL
	}
	p.section = sec
	return cmd
}

// readIndexed reads a page the local index holds, as a followed link's
// page: it arrives like an extract's, so esc comes back.
func (p *Pane) readIndexed(r common.PageReader, u string) tea.Cmd {
	// A local read: no spinner, and x does not stop it (it is quick).
	return p.calls().Run(func(_ context.Context, seq int) tea.Msg {
		title, content, md, err := r.IndexedPage(context.Background(), u)
		if err != nil {
			return doneMsg{seq: seq, err: fmt.Errorf("open %s: %w", u, err)}
		}
		// No call brings it, so the library is told of it here: a page
		// read is kept, however it was reached.
		keep := []api.PageContent{common.PageWithTitle(api.PageContent{URL: u, RawContent: content}, title)}
		return doneMsg{seq: seq, slug: api.ToolSearch, base: u, pages: []*Page{{URL: u, Content: content, Plain: !md, Source: api.ToolSearch}},
			keep: keep, keepMarkdown: md}
	})
}

func (p *Pane) listHeight() int { return max(1, p.height-3) }

func (p *Pane) linksView() string {
	s := p.c.Styles
	head := s.Title.Render(fmt.Sprintf("Links on this page (%d)", len(p.links))) + s.Dim.Render("  type its number or ↑/↓ · enter opens · y copies · esc closes")
	h := p.listHeight()
	top := min(max(0, p.linkAt-h/2), max(0, len(p.links)-h))
	lines := []string{head, ""}
	// Columns as wide as their content: the URLs whole where the line
	// holds them and a third of it for the texts, which give up the rest.
	num := len(fmt.Sprintf("%3d ", len(p.links)))
	avail := max(10, p.width-num-2)
	textW, urlW := 0, 0
	for _, l := range p.links {
		if l.Text != "" && l.Text != l.URL {
			textW = max(textW, ansi.StringWidth(l.Text))
			urlW = max(urlW, ansi.StringWidth(l.URL))
		}
	}
	textW = min(textW, max(avail/3, avail-2-urlW))
	for i := top; i < len(p.links) && i < top+h; i++ {
		l := p.links[i]
		num := fmt.Sprintf("%3d ", i+1)
		line := common.Link(common.Truncate(l.URL, avail), l.URL)
		if l.Text != "" && l.Text != l.URL {
			line = common.PadRight(common.Truncate(l.Text, textW), textW) + "  " + common.Link(s.Dim.Render(common.Truncate(l.URL, avail-textW-2)), l.URL)
		}
		if i == p.linkAt {
			lines = append(lines, s.Title.Render("›")+num+line)
		} else {
			lines = append(lines, " "+num+line)
		}
	}
	return strings.Join(lines, "\n")
}
