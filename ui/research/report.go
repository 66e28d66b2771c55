package research

import (
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
	"hark/ui/markdown"
)

// The report: rendered in a command, scrolled, saved as markdown.

type renderedMsg struct {
	id          int
	width       int
	style, text string
}

type savedMsg struct {
	id   int
	path string
	err  error
}

// offerSave opens the save-as line for the report shown.
func (p *Pane) offerSave() tea.Cmd {
	s := p.current
	if s == nil || s.Out == nil {
		return nil
	}
	dir := p.c.OutputDir
	if dir == "" {
		dir = "."
	}
	return p.saveAs.Open(filepath.Join(dir, reportName(s)), p.saveFail, p.c.Styles)
}

func (p *Pane) scrollKey(msg tea.KeyPressMsg) { p.scrollBy(&p.scroll, msg) }

// scrollBy moves s, the report or a citation's source, by the pane's
// scrolling keys; it reports whether msg was one of them.
func (p *Pane) scrollBy(s *common.Scroll, msg tea.KeyPressMsg) bool {
	switch k := p.keys(); {
	case key.Matches(msg, k.Up):
		s.ScrollBy(-1)
	case key.Matches(msg, k.Down):
		s.ScrollBy(1)
	case key.Matches(msg, k.PageUp):
		s.ScrollBy(-s.Page())
	case key.Matches(msg, k.PageDown):
		s.ScrollBy(s.Page())
	case key.Matches(msg, k.Top):
		s.Top()
	case key.Matches(msg, k.Bottom):
		s.Bottom()
	default:
		return false
	}
	return true
}

// setReport shows s's report, finding the last find again in it.
func (p *Pane) setReport(s *Session) {
	p.scroll.SetContent(p.reportText(s))
	p.rd.Refresh(&p.scroll)
	p.mark.Refresh(&p.scroll)
}

// show puts a session's report in the pane; the report, not the
// question line, then takes the keys.
func (p *Pane) show(s *Session) {
	p.rd.Reset()
	if p.current != s {
		p.aloud.Stop(&p.scroll)
		p.mark.Reset(&p.scroll)
	}
	p.current = s
	p.question.Blur()
	p.srcCursor, p.srcOff = 0, 0
	p.setReport(s)
	p.scroll.Top()
}

// reportText is the report as shown now. Until the first rendering
// arrives (it is made in a command) a placeholder stands in: wrapping a
// long report here would be expensive work in Update.
func (p *Pane) reportText(s *Session) string {
	if s == nil || s.Out == nil {
		return ""
	}
	if s.rendered != "" {
		return s.rendered
	}
	if s.Out.Content == "" {
		return p.c.Styles.Dim.Render("The report is empty.")
	}
	return p.c.Styles.Dim.Render("rendering the report…")
}

// render renders the report in a command; the renderer is cached by width
// and a finished rendering is kept per session, width and style.
func (p *Pane) render(s *Session) tea.Cmd {
	if s == nil || s.Out == nil || s.Out.Content == "" {
		return nil
	}
	style, w := markdown.Style(p.c.Styles), markdown.WrapWidth(p.width)
	if s.renderedWidth == w && s.renderedStyle == style {
		return nil
	}
	md, content, id := p.md, s.Out.Content, s.ID
	return func() tea.Msg {
		out, err := md.Render(content, style, w)
		if err != nil {
			out = common.Wrap(content, w)
		}
		return renderedMsg{id: id, width: w, style: style, text: out}
	}
}

// reportName is the file name offered for a session's report.
func reportName(s *Session) string { return "research-" + s.Started.Format("20060102-150405") + ".md" }

// save writes the report with its question and sources as markdown to
// path, a new file (a folder gets the offered name inside it).
func (p *Pane) save(s *Session, path string) tea.Cmd {
	if s == nil || s.Out == nil {
		return nil
	}
	body, name, id := Markdown(s), reportName(s), s.ID
	write := common.WriteNew
	if p.saveAs.Unedited() {
		write = common.WriteFresh // the offered name: numbered past a file that exists
	}
	return func() tea.Msg {
		path, err := write(path, name, []byte(body))
		if err != nil {
			return savedMsg{id: id, err: fmt.Errorf("save report: %w", err)}
		}
		return savedMsg{id: id, path: path}
	}
}

// Markdown is a session's report as a markdown document.
func Markdown(s *Session) string {
	if s.Out == nil {
		return ""
	}
	meta := []string{}
	if s.Model != "" {
		meta = append(meta, "model "+s.Model)
	}
	if s.Out.RequestID != "" {
		meta = append(meta, "request "+s.Out.RequestID)
	}
	return s.Out.Document(s.Question, strings.Join(meta, " · "))
}
