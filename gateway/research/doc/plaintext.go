package doc

import (
	"strings"

	"hark/gateway/text"
)

// ReadText reads plain text, where a heading is only a short line of
// its own and code is indented by four spaces or a tab.
func ReadText(body, title string) *Page {
	b := newDocBuilder(title)
	prose := func(lines []string) {
		if h, level, rest := text.BlockHeading(lines); level > 0 {
			b.heading(level, h)
			lines = rest
		}
		list := -2
		for _, l := range text.UnwrapLines(strings.Join(lines, "\n")) {
			if m := listMarker(l); m != "" {
				n := len(b.d.Blocks)
				b.block(ListItem, markCode(strings.TrimSpace(l[len(m):])), 1, list)
				if list == -2 && len(b.d.Blocks) > n {
					list = n
				}
				continue
			}
			b.block(Paragraph, markCode(l), 0, -1)
			list = -2
		}
	}
	code := func(lines []string) {
		if len(lines) > 0 {
			b.code(lines)
		}
	}
	text.Blocks(body, prose, code)
	return b.d
}

// markCode drops the two marker bytes from plain text, which holds no
// inline code marks of its own.
func markCode(s string) string { return strings.Map(dropMarks, s) }

// para adds a paragraph. A paragraph of hard-broken lines (a plain-text
// file shown in HTML, such as NEWS) is read as the lines it holds:
// underlined or framed lines are headings, "* " and "- " start items.
func (b *docBuilder) para(t string) {
	if strings.Contains(t, "\n") {
		b.lines(strings.Split(t, "\n"))
		return
	}
	if h := framed(t); h != "" {
		b.heading(6, h) // "* ==== CORE CHANGES ===="
		return
	}
	b.block(Paragraph, t, 0, -1)
}

func (b *docBuilder) lines(lines []string) {
	var cur []string
	flush := func() {
		for _, l := range text.UnwrapLines(strings.Join(cur, "\n")) {
			if m := listMarker(l); m != "" {
				b.block(ListItem, strings.TrimSpace(l[len(m):]), 1, -2)
			} else {
				b.block(Paragraph, l, 0, -1)
			}
		}
		cur = cur[:0]
	}
	for _, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case underline(t) && len(cur) > 0:
			h := cur[len(cur)-1]
			cur = cur[:len(cur)-1]
			flush()
			b.heading(5, h)
		case framed(t) != "":
			flush()
			b.heading(6, framed(t))
		case underline(t):
		case t == "":
			flush()
		default:
			cur = append(cur, t)
		}
	}
	flush()
}

// underline is a line of ~, = or - that underlines the line above it.
func underline(t string) bool {
	return len(t) >= 3 && strings.Trim(t, "~=-") == ""
}

// framed is the title of a line such as "* ==== CORE CHANGES ====".
func framed(t string) string {
	if strings.Count(t, "=") < 6 {
		return ""
	}
	inner := strings.TrimSpace(strings.Trim(strings.TrimLeft(t, "*- "), "= "))
	if inner == "" || strings.ContainsAny(inner, "=.") {
		return ""
	}
	return inner
}

// listMarker is the marker that opens a list item in a line of plain
// text, or "".
func listMarker(t string) string {
	if !text.ListItem(t) {
		return ""
	}
	if i := strings.IndexByte(t, ' '); i > 0 {
		return t[:i+1]
	}
	return ""
}
