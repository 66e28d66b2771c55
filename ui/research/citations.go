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
// report's passages). Choosing one shows the source's text with the quote
// found and highlighted: the page as v last read it, else the copy the
// index kept; v reads the sources again and marks each quote as standing,
// moved, gone or not checked (its source could not be read now), as
// `hark research verify` does, with api.CheckPassages.

// KeptTexter is an index that hands out a page's kept text, the text the
// report's passages point into (cli's local index does).
type KeptTexter interface {
	IndexedText(ctx context.Context, url string) (string, error)
}

// SourceReader is an index that reads a source again as it read it, as
// verify does (cli's local index does: a file from disk, a page through
// the local web engine); without one, pages are read again with the
// gateway's extract.
type SourceReader interface {
	SourceText(ctx context.Context, url string) (string, error)
}

// Where the text a citation shows came from.
const (
	fromPage = "the page now"  // read again by v (or for want of a kept copy)
	fromKept = "the kept copy" // the index's copy, as the report read it
)

// sourceTextMsg carries a source's text, read for the citation chosen.
type sourceTextMsg struct {
	id, passage int
	text, from  string
	err         error
}

// verifiedMsg carries each passage as v found it, and the sources' texts
// it read.
type verifiedMsg struct {
	id     int
	checks []api.PassageCheck
	texts  map[string]string
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

// openPassage reads the source of passage i of s's report: the page as
// v last read it, else the kept copy, else the page now.
func (p *Pane) openPassage(s *Session, i int) tea.Cmd {
	u, id, depth := s.Out.Passages[i].URL, s.ID, api.ReportDepth(s.Model)
	if t, ok := s.live[u]; ok {
		return func() tea.Msg { return sourceTextMsg{id: id, passage: i, text: t, from: fromPage} }
	}
	c := p.c
	return func() tea.Msg {
		if kt, ok := c.Index.(KeptTexter); ok {
			if t, err := kt.IndexedText(context.Background(), u); err == nil {
				return sourceTextMsg{id: id, passage: i, text: t, from: fromKept}
			}
		}
		text, err := readAgain(c, u, depth)
		return sourceTextMsg{id: id, passage: i, text: text, from: fromPage, err: err}
	}
}

// showPassage puts the source's text in the reader, found at the
// passage: the words at its recorded place when they still are the
// quote, else wherever the text now holds it. It opens at the start of
// the quote's paragraph, never mid-sentence, when the quote then shows.
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
	p.srcPassage, p.srcState, p.srcFrom = msg.passage, state, msg.from
	width := max(20, p.width-2)
	p.srcScroll.SetContent(common.Wrap(msg.text, width))
	p.srcScroll.Top()
	p.srcRd.Reset()
	p.focus = focusSource
	if state != api.PassageGone {
		start, end = quoteSpan(msg.text, pa.Quote, start, end)
		p.srcRd.Find(msg.text[start:end], &p.srcScroll)
		p.srcScroll.SetHeight(max(0, p.bodyHeight()-2))
		first := paragraphLine(msg.text, start, width)
		last := paragraphLine(msg.text, end, width)
		if last-first < p.srcScroll.Page() {
			p.srcScroll.SetOffset(first)
		}
	}
	return nil
}

// paragraphLine is the line, in text wrapped at width, where the
// paragraph holding byte offset at begins.
func paragraphLine(text string, at, width int) int {
	at = min(at, len(text))
	ps := strings.LastIndex(text[:at], "\n\n")
	if ps < 0 {
		return 0
	}
	return strings.Count(common.Wrap(text[:ps+2], width), "\n")
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
	ps, id, c, depth := s.Out.Passages, s.ID, p.c, api.ReportDepth(s.Model)
	s.verifying = true
	return func() tea.Msg {
		texts := map[string]string{}
		checks := api.CheckPassages(ps, func(u string) (string, error) {
			t, err := readAgain(c, u, depth)
			if err == nil {
				texts[u] = t
			}
			return t, err
		})
		return verifiedMsg{id: id, checks: checks, texts: texts}
	}
}

// verifiedNotice is what v found, for the status bar: a warning when a
// source could not be read, for then the report was not verified.
func verifiedNotice(checks []api.PassageCheck) common.NoticeMsg {
	n := 0
	for _, c := range checks {
		if c.State == api.PassageUnchecked {
			n++
		}
	}
	if n == 0 {
		return common.NoticeMsg{Text: "verified: " + api.CheckSummary(checks)}
	}
	// What could not be read first, in few words: at 80 columns the
	// reason is read whole (c lists each quote's state).
	reasons := api.UncheckedReasons(checks)
	why := reasons[0]
	if len(reasons) > 1 {
		why += fmt.Sprintf(" (and %d more reasons)", len(reasons)-1)
	}
	quotes := "quotes"
	if len(checks) == 1 {
		quotes = "quote"
	}
	return common.NoticeMsg{Text: fmt.Sprintf("%d of %d %s not checked: %s", n, len(checks), quotes, why), Warn: true}
}

// readAgain is a source's text now, as the index read it: through the
// local index (a file from disk, a page through the local web engine) on
// the embedded gateway, else a page through the gateway's extract as
// text at depth, the depth the report was made with (api.ReportDepth;
// not kept).
func readAgain(c *common.Common, u, depth string) (string, error) {
	ctx := context.Background()
	if sr, ok := c.Index.(SourceReader); ok {
		return sr.SourceText(ctx, u)
	}
	if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") {
		return "", fmt.Errorf("%s: only the hark that indexed it reads it again", u)
	}
	if c.Client == nil {
		return "", common.ErrNotConnected
	}
	return c.Client.PageText(ctx, u, depth)
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
		if i < len(s.checks) {
			switch s.checks[i].State {
			case api.PassageStands:
				state = st.OK.Render("stands ")
			case api.PassageMoved:
				state = st.Warn.Render("moved ")
			case api.PassageUnchecked:
				state = st.Warn.Render("not checked ")
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
	title := st.Title.Render(fmt.Sprintf("[%d] ", pa.Source)) + st.Dim.Render(pa.URL+" · "+p.srcFrom)
	foot := fmt.Sprintf("%d%% · the quote %s in %s · j/k scroll · n next match · esc back", p.srcScroll.Percent(), p.srcState, p.srcFrom)
	if p.srcState == api.PassageGone {
		foot = p.srcFrom + " no longer holds this quote · esc back"
		if p.srcFrom == fromKept {
			foot = "the kept copy no longer holds this quote · v reads the page again · esc back"
		}
	}
	if i := p.srcPassage; i < len(p.current.checks) && p.current.checks[i].State == api.PassageUnchecked && p.srcFrom == fromKept {
		foot = "not checked: " + p.current.checks[i].Error + " · " + foot
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
