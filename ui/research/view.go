package research

import (
	"fmt"
	"strings"
	"time"

	"hark/ui/common"
)

// View draws the question line, the status of the current research, then
// the report, the sources or the history.
func (p *Pane) View() string {
	st := p.c.Styles
	header, typing := p.header()
	hh := len(strings.Split(header, "\n"))
	bodyH := max(0, p.height-hh)
	s := p.current
	var body string
	switch {
	case p.focus == focusHistory:
		body = p.historyView(bodyH)
	case s == nil:
		hint := "i (or /) puts the cursor in the question. Research runs in the background; switch panes meanwhile. M changes the model."
		if typing {
			hint = "Type a question and press enter; on the empty line the digits go to a pane. Research runs in the background; switch panes meanwhile. ctrl+o changes the model; esc leaves the line, then h shows the history."
		}
		body = st.Dim.Render(common.Wrap(hint, p.width))
	case s.loading:
		body = st.Dim.Render("reading the report from the library…")
	case p.focus == focusSources:
		body = p.sourcesView(bodyH)
	case p.focus == focusCitations && s.Out != nil:
		body = p.citationsView(bodyH)
	case p.focus == focusSource && s.Out != nil:
		body = p.sourceView(bodyH)
	case s.Running && len(s.Progress) > 0:
		body = p.progressView(s, bodyH)
	case s.Out != nil && p.rd.TOCOpen():
		body = p.rd.TOCView(st, p.width, bodyH)
	case s.Out != nil:
		// The foot's percentage depends on the height, which depends on
		// how many lines the foot takes.
		p.scroll.SetHeight(max(0, bodyH-1))
		foot := p.reportFoot(typing)
		if fh := len(strings.Split(foot, "\n")); fh > 1 {
			p.scroll.SetHeight(max(0, bodyH-fh))
			foot = p.reportFoot(typing)
		}
		fh := len(strings.Split(foot, "\n"))
		body = common.Fit(p.scroll.View(), p.width, max(0, bodyH-fh)) + "\n" + foot
	}
	return common.Fit(header+"\n"+body, p.width, p.height)
}

// bodyHeight is the height below the header.
func (p *Pane) bodyHeight() int {
	header, _ := p.header()
	return max(0, p.height-len(strings.Split(header, "\n")))
}

// reportFoot is the keys under the report, wrapped onto as many lines as
// the width needs: at 80 columns every key is still named.
func (p *Pane) reportFoot(typing bool) string {
	st := p.c.Styles
	s := p.current
	pct := fmt.Sprintf("%d%%", p.scroll.Percent())
	var parts []string
	switch {
	case p.mark.Noting():
		return p.mark.NoteView()
	case p.mark.Selecting():
		return st.Warn.Render(p.mark.Status())
	case p.rd.Finding():
		return p.rd.FindView()
	case p.aloud.Status() != "":
		return common.Truncate(st.Warn.Render("▶ ")+st.Dim.Render(p.aloud.Status()), p.width)
	case p.rd.Status() != "":
		parts = []string{pct, p.rd.Status(), "s sources", "ctrl+s save"}
	case typing:
		parts = []string{pct, "ctrl+s save", fmt.Sprintf("esc leaves the question: then j/k scroll"), "/ find", fmt.Sprintf("s sources (%d)", len(s.Out.Sources))}
	default:
		parts = []string{pct, "j/k scroll", "/ find", "T contents", fmt.Sprintf("s sources (%d)", len(s.Out.Sources))}
		if len(s.Out.Passages) > 0 {
			parts = append(parts, "c citations", "v verify")
		}
		parts = append(parts, "H highlight")
		parts = append(parts, "ctrl+s save")
	}
	return st.Dim.Render(common.JoinWrapped(parts, " · ", p.width))
}

// header is the question line, the model line, the current research's
// status and the save-as line; typing says the question has the cursor.
func (p *Pane) header() (string, bool) {
	st := p.c.Styles
	var top []string
	top = append(top, p.question.View())
	if p.dict.Active() {
		top = append(top, st.Warn.Render("● listening")+st.Dim.Render(" · speak the question · ctrl+r stops · enter researches"))
	}
	// The keys named are the ones that work now: while the question has
	// the cursor, letters type.
	typing := p.question.Focused()
	mk, hk := "M", "h"
	if typing {
		mk, hk = "ctrl+o", "esc, then h"
	}
	ml := st.Key.Render(mk) + " " + st.Label.Render("model") + " "
	if ms := p.models(); len(ms) > 0 {
		m := p.modelValue()
		if m == "" {
			m = "default"
		}
		ml += st.Text.Render(m) + st.Dim.Render(" ("+strings.Join(ms, "/")+")")
	} else {
		ml += st.Dim.Render("gateway default")
	}
	if n := len(p.sessions); n > 0 {
		ml += st.Dim.Render(" · ") + st.Key.Render(hk) + st.Label.Render(fmt.Sprintf(" history (%d)", n))
	}
	top = append(top, common.Truncate(ml, p.width))
	s := p.current
	if s != nil {
		top = append(top, p.statusLine(s))
		if s.Err != nil {
			top = append(top, common.ErrorView(st, s.Err, p.width))
		}
	}
	if p.saveAs.Active() {
		top = append(top, p.saveAs.View(st, p.width))
	}
	return strings.Join(top, "\n"), typing
}

func (p *Pane) statusLine(s *Session) string {
	st := p.c.Styles
	cancelKey := "x"
	if p.question.Focused() {
		cancelKey = "ctrl+x"
	}
	q := common.Truncate(common.OneLine(s.Question), max(10, p.width/2))
	var line string
	switch {
	case s.Running:
		// One spinner serves every running research; the time is this one's.
		line = p.progress.Spinner(st) + " researching “" + q + "”… " + st.Dim.Render(common.Elapsed(p.c.Now().Sub(s.Started))) + st.Dim.Render("  "+cancelKey+" cancels")
	case s.Err != nil:
		line = st.Err.Render("✗ ") + q
	default:
		line = st.OK.Render("✓ ") + q + st.Dim.Render(" · "+common.Elapsed(s.Finished.Sub(s.Started)))
		if s.Kept != 0 {
			line = st.OK.Render("✓ ") + q + st.Dim.Render(" · from the library, kept "+s.Started.Local().Format("Jan 02 15:04"))
		}
		if s.SavedTo != "" {
			line += st.Dim.Render(" · saved " + common.HomeShort(s.SavedTo))
		}
	}
	if n := len(s.Retries); n > 0 {
		last := s.Retries[n-1]
		line += st.Warn.Render(fmt.Sprintf(" · retry %d (waited %s: %s)", n, last.Wait.Round(time.Millisecond), common.Explain(last.Err).Message))
	}
	return common.Truncate(line, p.width)
}

// progressView is a running research's steps, newest last: with a model,
// each written sentence as it ends, marked by its check.
func (p *Pane) progressView(s *Session, h int) string {
	st := p.c.Styles
	var lines []string
	for _, m := range s.Progress {
		style := st.Dim
		switch {
		case strings.HasPrefix(m, "✓ "):
			style = st.OK
		case strings.HasPrefix(m, "✗ "):
			style = st.Err
		}
		for _, l := range strings.Split(common.Wrap(m, max(10, p.width)), "\n") {
			lines = append(lines, style.Render(l))
		}
	}
	if len(lines) > h {
		lines = lines[len(lines)-h:]
	}
	return strings.Join(lines, "\n")
}
