package research

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
)

// Citations: every quote of a report with the source it cites (the
// report's passages). Choosing one shows the source's kept text with the
// quote found and highlighted; v reads the sources again and marks each
// quote as standing, moved or gone (as `hark research verify` does).

// KeptTexter is an index that hands out a page's kept text, the text the
// report's passages point into (cli's local index does).
type KeptTexter interface {
	IndexedText(ctx context.Context, url string) (string, error)
}

// sourceTextMsg carries a source's text, read for the citation chosen.
type sourceTextMsg struct {
	id, passage int
	text        string
	err         error
}

// verifiedMsg carries each passage's state, read again.
type verifiedMsg struct {
	id     int
	states []string
}

// citeList is the list of the shown report's quotes.
func (p *Pane) citeList() common.List {
	return common.NewList(&p.citeCursor, &p.citeOff, len(p.current.Out.Passages))
}

// citationsKey handles a key while the citations list is shown.
func (p *Pane) citationsKey(msg tea.KeyPressMsg) tea.Cmd {
	ps := p.current.Out.Passages
	switch {
	case key.Matches(msg, p.keys().Up):
		p.citeList().Move(-1)
	case key.Matches(msg, p.keys().Down):
		p.citeList().Move(1)
	case key.Matches(msg, p.keys().Run):
		if p.citeCursor < len(ps) {
			return p.openPassage(p.current, p.citeCursor)
		}
	}
	return nil
}

// openPassage reads the source of passage i of s's report.
func (p *Pane) openPassage(s *Session, i int) tea.Cmd {
	u, id := s.Out.Passages[i].URL, s.ID
	c := p.c
	return func() tea.Msg {
		text, err := sourceText(c, u)
		return sourceTextMsg{id: id, passage: i, text: text, err: err}
	}
}

// showPassage puts the source's text in the reader, found at the
// passage: the words at its recorded place when they still are the
// quote, else wherever the page now holds it.
func (p *Pane) showPassage(msg sourceTextMsg) tea.Cmd {
	s := p.byID(msg.id)
	if s == nil || s != p.current || s.Out == nil || msg.passage >= len(s.Out.Passages) {
		return nil
	}
	if msg.err != nil {
		return func() tea.Msg { return common.ErrorMsg{Err: fmt.Errorf("open the citation: %w", msg.err)} }
	}
	pa := s.Out.Passages[msg.passage]
	state, start, end := pa.Verify(msg.text)
	p.srcPassage, p.srcState = msg.passage, state
	p.srcScroll.SetContent(common.Wrap(msg.text, max(20, p.width-2)))
	p.srcRd.Reset()
	p.focus = focusSource
	if state != api.PassageGone {
		start, end = quoteSpan(msg.text, pa.Quote, start, end)
		p.srcRd.Find(msg.text[start:end], &p.srcScroll)
	}
	return nil
}

// quoteSpan widens a located quote [start, end) of text, which runs from
// its first word character to its last (api.Locate), over the marks the
// quote itself begins or ends with when the page has them there: the
// "$" of "$FLITEDIR/tools/setup_flite", a closing parenthesis or full
// stop, so that the whole quote is highlighted.
func quoteSpan(text, quote string, start, end int) (int, int) {
	isWord := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	quote = strings.TrimSpace(quote)
	if i := strings.IndexFunc(quote, isWord); i > 0 && start >= i && text[start-i:start] == quote[:i] {
		start -= i
	}
	if j := strings.LastIndexFunc(quote, isWord); j >= 0 {
		if _, n := utf8.DecodeRuneInString(quote[j:]); j+n < len(quote) {
			tail := quote[j+n:]
			if end+len(tail) <= len(text) && text[end:end+len(tail)] == tail {
				end += len(tail)
			}
		}
	}
	return start, end
}

// verify reads every source of s's report again and checks its quotes.
func (p *Pane) verify(s *Session) tea.Cmd {
	if s == nil || s.Out == nil || len(s.Out.Passages) == 0 {
		return func() tea.Msg { return common.NoticeMsg{Text: "this report records no passages to verify"} }
	}
	ps, id, c := s.Out.Passages, s.ID, p.c
	s.verifying = true
	return func() tea.Msg {
		texts := map[string]string{}
		failed := map[string]bool{}
		states := make([]string, len(ps))
		for i, pa := range ps {
			if _, ok := texts[pa.URL]; !ok && !failed[pa.URL] {
				t, err := sourceText(c, pa.URL)
				if err != nil {
					failed[pa.URL] = true
				} else {
					texts[pa.URL] = t
				}
			}
			if failed[pa.URL] {
				states[i] = api.PassageGone
				continue
			}
			states[i], _, _ = pa.Verify(texts[pa.URL])
		}
		return verifiedMsg{id: id, states: states}
	}
}

// sourceText is a source's kept text now: from the local index for a
// page it holds (a file of an indexed folder), else the gateway's
// extract as text.
func sourceText(c *common.Common, u string) (string, error) {
	ctx := context.Background()
	if kt, ok := c.Index.(KeptTexter); ok {
		if t, err := kt.IndexedText(ctx, u); err == nil || !strings.HasPrefix(u, "http") {
			return t, err
		}
	}
	res, err := common.Invoke(api.Unkept(ctx), c.Client, api.ToolExtract, map[string]any{"urls": u, "format": "text"})
	if err != nil {
		return "", err
	}
	out, err := api.DecodeExtract(res.Output)
	if err != nil {
		return "", err
	}
	for _, f := range out.FailedResults {
		return "", fmt.Errorf("extract %s: %s", f.URL, f.Error)
	}
	if len(out.Results) == 0 {
		return "", fmt.Errorf("extract %s: no page", u)
	}
	return out.Results[0].RawContent, nil
}

// citationsView lists the report's quotes, each with its source number
// and, once verified, its state.
func (p *Pane) citationsView(h int) string {
	st := p.c.Styles
	s := p.current
	ps := s.Out.Passages
	head := "  enter shows it in its source · v verifies · c back"
	if s.verifying {
		head = "  verifying…"
	}
	lines := []string{st.Title.Render(fmt.Sprintf("Citations (%d)", len(ps))) + st.Dim.Render(head)}
	// The heading takes a row; the cursor sits on the last row at most.
	start, end := p.citeList().Pin(h - 1)
	for i := start; i < end; i++ {
		cur, ts := "  ", st.Text
		if i == p.citeCursor {
			cur, ts = st.Key.Render("▌ "), st.Selected
		}
		state := ""
		if i < len(s.states) {
			switch s.states[i] {
			case api.PassageStands:
				state = st.OK.Render("stands ")
			case api.PassageMoved:
				state = st.Warn.Render("moved ")
			default:
				state = st.Err.Render("gone ")
			}
		}
		q := common.OneLine(ps[i].Quote)
		if ps[i].Code {
			q = "code: " + q
		}
		lines = append(lines, common.Truncate(cur+st.Dim.Render(fmt.Sprintf("[%d] ", ps[i].Source))+state+ts.Render(q), p.width))
	}
	return strings.Join(lines, "\n")
}

// sourceView is the source's text at the passage chosen.
func (p *Pane) sourceView(h int) string {
	st := p.c.Styles
	pa := p.current.Out.Passages[p.srcPassage]
	p.srcScroll.SetHeight(max(0, h-2))
	title := st.Title.Render(fmt.Sprintf("[%d] ", pa.Source)) + st.Dim.Render(pa.URL)
	foot := fmt.Sprintf("%d%% · the quote %s · j/k scroll · n next match · esc back to the citations", p.srcScroll.Percent(), p.srcState)
	if p.srcState == api.PassageGone {
		foot = "the page no longer holds this quote · esc back to the citations"
	}
	return common.Truncate(title, p.width) + "\n" + common.Fit(p.srcScroll.View(), p.width, max(0, h-2)) + "\n" + common.Truncate(st.Dim.Render(foot), p.width)
}

// sourceTextKey scrolls the source shown, and moves between the quote's
// matches.
func (p *Pane) sourceTextKey(msg tea.KeyPressMsg) {
	if !p.scrollBy(&p.srcScroll, msg) && key.Matches(msg, p.keys().NextMatch) {
		p.srcRd.Next(&p.srcScroll, msg.String() == "N")
	}
}
