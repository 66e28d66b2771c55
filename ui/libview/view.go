package libview

import (
	"errors"
	"fmt"
	"strings"

	"hark/library"
	"hark/ui/common"
)

// listHeight is how many list lines fit under the header and above the
// footer.
func (p *Pane) listHeight() int { return max(1, p.height-4) }

// View draws the search line, the kind filter, the items (two lines each:
// the title line and a snippet or where it came from) and a footer.
func (p *Pane) View() string {
	st := p.c.Styles
	var b strings.Builder
	b.WriteString(p.query.View() + "\n")
	if p.notes {
		b.WriteString(common.Truncate(st.Key.Render("n")+" "+st.Dim.Render("items · ")+st.FocusLabel.Render("highlights"), p.width) + "\n")
	}
	if p.watching {
		b.WriteString(common.Truncate(st.Key.Render("W")+" "+st.Dim.Render("items · ")+st.FocusLabel.Render("watched pages"), p.width) + "\n")
	}
	var ks []string
	for i, k := range kinds {
		if p.notes || p.watching {
			break
		}
		name := k
		if k == "" {
			name = "all"
		}
		if i == p.kind {
			ks = append(ks, st.FocusLabel.Render(name))
		} else {
			ks = append(ks, st.Dim.Render(name))
		}
	}
	if !p.notes && !p.watching {
		b.WriteString(common.Truncate(st.Key.Render("f")+" "+strings.Join(ks, st.Dim.Render(" · "))+st.Dim.Render("   n highlights"), p.width) + "\n")
	}

	h := p.listHeight()
	var body []string
	switch {
	case errors.Is(p.err, library.ErrNoWords):
		// Not a failure but a line still being typed ("#" before a tag).
		body = append(body, st.Warn.Render(common.Wrap("The search line has no words: a search matches words (letters or digits), and punctuation alone matches nothing.", p.width)))
	case p.err != nil:
		body = append(body, common.ErrorView(st, p.err, p.width))
	case p.c.Library == nil:
		body = append(body, st.Dim.Render(common.Wrap("This hark has no library.", p.width)))
	case !p.loaded:
		body = append(body, st.Dim.Render("loading…"))
	case p.watching:
		body = p.watchesBody(h)
	case p.notes:
		body = p.notesBody(h)
	case len(p.items) == 0 && strings.TrimSpace(p.query.Value()) != "":
		body = append(body, st.Dim.Render(common.Wrap("Nothing kept matches. Every word must appear; the last may be the start of a word.", p.width)))
	case len(p.items) == 0:
		msg := "Nothing kept yet. Research reports, searches, pages, crawls and maps are kept here as they come back, and stay after hark quits."
		switch {
		case p.others:
			msg = fmt.Sprintf("No %s kept yet; other kinds are: f shows the next kind, then all.", kindName(kinds[p.kind]))
		case p.c.LibraryOff:
			msg = "Keeping is off (library = false or HARK_LIBRARY=0), and nothing was kept before."
		}
		body = append(body, st.Dim.Render(common.Wrap(msg, p.width)))
	default:
		body = p.listLines(h)
	}
	b.WriteString(common.Fit(strings.Join(body, "\n"), p.width, h) + "\n")
	b.WriteString(p.footer())
	return common.Fit(b.String(), p.width, p.height)
}

// listLines draws the items from the one at offset, keeping the cursor's
// two lines in view.
func (p *Pane) listLines(h int) []string {
	st := p.c.Styles
	per := 2
	visible := max(1, h/per)
	start, end := p.list().Window(visible)
	var lines []string
	for i := start; i < end; i++ {
		it := p.items[i]
		when := it.Created.Local().Format("Jan 02 15:04")
		head := fmt.Sprintf("%-8s %s  ", it.Kind, when)
		title := common.Truncate(it.Title, max(1, p.width-len(head)-2))
		line := "  " + head + title
		// Where a page came from, then its opening words (or, while
		// searching, the words around the match).
		second := it.Snippet
		if it.URL != "" && it.Kind != library.KindResearch && it.Kind != library.KindSearch {
			second = strings.TrimSuffix(it.URL+" · "+second, " · ")
		}
		if second == "" {
			second = it.Gateway
		}
		second = "    " + common.Truncate(second, max(1, p.width-4))
		if i == p.cursor {
			line = st.Selected.Render(common.PadRight(common.Truncate("> "+head+title, p.width), p.width))
			if p.confirm == it.ID {
				second = st.Warn.Render(common.Truncate("    d again deletes this item; any other key keeps it", p.width))
			}
		}
		lines = append(lines, line, st.Dim.Render(second))
	}
	return lines
}

func (p *Pane) footer() string {
	st := p.c.Styles
	if p.saveAs.Active() {
		return p.saveAs.View(st, p.width)
	}
	if p.every.active() {
		return p.every.view(st, p.width)
	}
	if p.watching {
		return p.watchesFooter()
	}
	if p.notes {
		return p.notesFooter()
	}
	n := fmt.Sprintf("%d kept", len(p.items))
	if len(p.items) == listLimit {
		n = fmt.Sprintf("the newest %d", listLimit)
	}
	if strings.TrimSpace(p.query.Value()) != "" {
		n = fmt.Sprintf("%d found", len(p.items))
	}
	// w and W were named nowhere but in ?; where the line is short of
	// room (80 columns) they and / give way, "? keys" last of all.
	return st.Dim.Render(common.FitKeys([]string{n, "enter open", "r run again", "d d delete", "ctrl+s export", "w watch", "W watched", "/ search", "? keys"}, p.width))
}

// kindName is a kind as the filter line names it, plural.
func kindName(k string) string {
	switch k {
	case library.KindResearch:
		return "research reports"
	case library.KindSearch:
		return "searches"
	}
	return k + "s"
}
