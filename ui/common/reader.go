package common

import (
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	gwtext "hark/gateway/text"
)

// Reader adds what reading a long document needs to a Scroll of rendered
// lines, the same in Pages and Research: find (/, then n and N, matches
// highlighted), a table of contents that jumps to a heading (T), and
// hand-off to $EDITOR or $PAGER (e) and $BROWSER (o, by the pane).
type Reader struct {
	find    textinput.Model
	finding bool
	query   string
	// orElse is found instead of query where the lines do not hold
	// query (FindQuote's opening words), fellBack when it was; query is
	// looked for again in the lines rendered next.
	orElse   string
	fellBack bool
	matches  []match // every occurrence of the query, in reading order
	at       int     // the current match, index into matches
	toc      []Heading
	tocOpen  bool
	tocCur   int
	// jumped: the contents jumped to a heading from the place jumpedFrom
	// (words above the top line, Scroll.Place): esc comes back there.
	jumped     bool
	jumpedFrom int
}

// match is one occurrence of the query in the rendered lines, from line,
// col to endLine, endCol (columns count the runes of a line's visible
// text; endCol is exclusive). A phrase wrapped onto the next line ends on
// a later line than it starts.
type match struct{ line, col, endLine, endCol int }

// Heading is one entry of a document's table of contents.
type Heading struct {
	Level int
	Text  string
	Line  int // in the rendered lines; -1 when not found there
}

// Finding reports that the find line has the keys.
func (r *Reader) Finding() bool { return r.finding }

// TOCOpen reports that the table of contents is shown instead of the text.
func (r *Reader) TOCOpen() bool { return r.tocOpen }

// StartFind puts the cursor in the find line.
func (r *Reader) StartFind(st *Styles) tea.Cmd {
	if r.find.CharLimit == 0 {
		r.find = textinput.New()
		r.find.Prompt = "find: "
		r.find.CharLimit = 200
	}
	if st != nil {
		r.find.SetStyles(st.InputStyles())
	}
	// A new find starts empty, as in less: what is typed is the new term,
	// never appended to the old one. The old term is the placeholder, and
	// enter on the empty line finds it again.
	r.finding = true
	r.find.SetValue("")
	r.find.Placeholder = r.query
	// A line with no width shows only the placeholder's first letter.
	r.find.SetWidth(max(40, utf8.RuneCountInString(r.query)+1))
	return r.find.Focus()
}

// Reset forgets the find and the contents (a new document is shown).
func (r *Reader) Reset() {
	r.query, r.matches, r.at, r.finding, r.tocOpen, r.jumped = "", nil, 0, false, false, false
	r.orElse, r.fellBack = "", false
	r.find.Blur()
}

// FindKey handles a key while the find line has focus: enter finds and
// jumps to the first match at or after the top line, esc leaves.
func (r *Reader) FindKey(msg tea.KeyPressMsg, s *Scroll) tea.Cmd {
	switch msg.String() {
	case "enter":
		r.finding = false
		r.find.Blur()
		if q := strings.TrimSpace(r.find.Value()); q != "" {
			r.query, r.orElse = q, ""
		}
		r.Refresh(s)
		r.at = 0
		for i, m := range r.matches {
			if m.line >= s.Offset() {
				r.at = i
				break
			}
		}
		r.show(s)
		return nil
	case "esc":
		r.finding = false
		r.find.Blur()
		return nil
	}
	var cmd tea.Cmd
	r.find, cmd = r.find.Update(msg)
	return cmd
}

// Refresh finds the query again in the scroll's lines (after they were
// rendered anew, at another width) and highlights the matches.
func (r *Reader) Refresh(s *Scroll) {
	r.matches = nil
	s.mark = nil
	if r.query == "" {
		return
	}
	r.matches, r.fellBack = findAll(s.lines, r.query), false
	if len(r.matches) == 0 && r.orElse != "" {
		r.matches = findAll(s.lines, r.orElse)
		r.fellBack = len(r.matches) > 0
	}
	r.at = min(r.at, max(0, len(r.matches)-1))
	if len(r.matches) > 0 {
		s.mark = r.highlight
	}
}

// findAll finds every occurrence of query in lines, case-insensitively
// (rune by rune, so that positions stay true whatever the letters: "Ⱥ"
// and "ⱥ" differ in length in UTF-8) and with any run of blanks matching
// any other, a line break included: a phrase wrapped onto the next line
// is found. A blank line ends a paragraph, which no match crosses.
func findAll(lines []string, query string) []match {
	q := foldQuery(query)
	if len(q) == 0 {
		return nil
	}
	var out []match
	// The line's visible text, folded and blanks collapsed, each rune
	// knowing where it came from, after the end of the lines before it
	// that a match could start in.
	var text []rune
	var from []pos
	for i, l := range lines {
		blank := true
		col := int32(0)
		for j := 0; j < len(l); {
			if l[j] == 0x1b {
				j += escLen(l[j:])
				continue
			}
			c, n := utf8.DecodeRuneInString(l[j:])
			j += n
			switch {
			case c == ' ' || unicode.IsSpace(c):
				if len(text) > 0 && text[len(text)-1] != ' ' {
					text, from = append(text, ' '), append(from, pos{int32(i), col})
				}
			default:
				blank = false
				text, from = append(text, fold(c)), append(from, pos{int32(i), col})
			}
			col++
		}
		if blank {
			text, from = text[:0], from[:0]
			continue
		}
		if text[len(text)-1] != ' ' {
			// The line break is a blank between the last word and the next.
			text, from = append(text, ' '), append(from, pos{int32(i), col})
		}
		next := 0 // where the next match may start: matches do not overlap
		for k := 0; k+len(q) <= len(text); k++ {
			if text[k] == q[0] && hasAt(text, q, k) {
				a, z := from[k], from[k+len(q)-1]
				out = append(out, match{line: int(a.line), col: int(a.col), endLine: int(z.line), endCol: int(z.col) + 1})
				k += len(q) - 1
				next = k + 1
			}
		}
		// Carry the end of the line that a match wrapped onto the next line
		// may start in.
		keep := max(next, len(text)-(len(q)-1))
		text, from = text[:copy(text, text[keep:])], from[:copy(from, from[keep:])]
	}
	return out
}

type pos struct{ line, col int32 }

func hasAt(text, q []rune, i int) bool {
	for j, c := range q {
		if text[i+j] != c {
			return false
		}
	}
	return true
}

// foldQuery is the query as findAll compares it: folded, blanks collapsed
// to one space, none at either end.
func foldQuery(query string) []rune {
	var q []rune
	for _, c := range strings.TrimSpace(query) {
		switch {
		case !unicode.IsSpace(c):
			q = append(q, fold(c))
		case q[len(q)-1] != ' ':
			q = append(q, ' ')
		}
	}
	return q
}

// fold maps a rune to one representative of its case: the smallest rune
// its simple case folding reaches (K, k and the Kelvin sign alike). One
// rune for one rune, never a longer string as strings.ToLower("İ") is.
func fold(c rune) rune {
	switch {
	case c < 0x80:
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		return c
	}
	m := c
	for f := unicode.SimpleFold(c); f != c; f = unicode.SimpleFold(f) {
		m = min(m, f)
	}
	return m
}

// highlight shows each match on line i in reverse video, the current one
// also bold, keeping the line's own styles and hyperlinks around and
// inside them.
func (r *Reader) highlight(i int, line string) string {
	return paint(i, line, r.matches, func(k int) string {
		if k == r.at {
			return "\x1b[1;7m"
		}
		return "\x1b[7m"
	})
}

// paint styles the parts of line i that the spans ms cover (in reading
// order) with on(k) for span k, keeping the line's own styles and
// hyperlinks around and inside them.
func paint(i int, line string, ms []match, on func(k int) string) string {
	k := sort.Search(len(ms), func(k int) bool { return ms[k].endLine >= i })
	type span struct {
		from, to int // runes of the visible text
		on       string
	}
	var spans []span
	for ; k < len(ms) && ms[k].line <= i; k++ {
		m := ms[k]
		sp := span{from: 0, to: math.MaxInt, on: on(k)}
		if m.line == i {
			sp.from = m.col
		}
		if m.endLine == i {
			sp.to = m.endCol
		}
		if m.endLine < i {
			continue
		}
		spans = append(spans, sp)
	}
	if len(spans) == 0 {
		return line
	}
	var b strings.Builder
	b.Grow(len(line) + 16*len(spans))
	var pen []string // the line's styles in force: replayed after a match
	col, in := 0, false
	for j := 0; j < len(line); {
		if line[j] == 0x1b {
			n := escLen(line[j:])
			seq := line[j : j+n]
			b.WriteString(seq)
			if isSGR(seq) {
				if p := seq[2 : len(seq)-1]; p == "" || p == "0" {
					pen = pen[:0]
				} else {
					pen = append(pen, seq)
				}
				if in {
					b.WriteString(spans[0].on) // the line's style may have reset ours
				}
			}
			j += n
			continue
		}
		c, n := utf8.DecodeRuneInString(line[j:])
		if !in && len(spans) > 0 && col >= spans[0].from && !unicode.IsSpace(c) {
			// A match wrapped from the line above starts at this line's text,
			// not at its indent.
			b.WriteString(spans[0].on)
			in = true
		}
		b.WriteString(line[j : j+n])
		j += n
		col++
		if in && col >= spans[0].to {
			b.WriteString("\x1b[m")
			b.WriteString(strings.Join(pen, ""))
			in, spans = false, spans[1:]
		}
	}
	if in {
		b.WriteString("\x1b[m")
	}
	return b.String()
}

// isSGR reports a Select Graphic Rendition sequence (a style).
func isSGR(seq string) bool {
	return len(seq) >= 3 && seq[1] == '[' && seq[len(seq)-1] == 'm'
}

// Find finds query as if typed after / and jumps to its first match.
func (r *Reader) Find(query string, s *Scroll) {
	r.query, r.orElse, r.at = strings.TrimSpace(query), "", 0
	r.Refresh(s)
	r.show(s)
}

// FindState is a find to come back to: its term and current match.
type FindState struct {
	Query string
	At    int
}

// FindState is the find now, for Restore.
func (r *Reader) FindState() FindState { return FindState{Query: r.query, At: r.at} }

// Restore finds st's term again in the scroll's lines, at its match,
// without moving the view: going back to a page shows it as it was left.
func (r *Reader) Restore(st FindState, s *Scroll) {
	r.query, r.orElse, r.at = st.Query, "", st.At
	r.Refresh(s)
}

// FirstMatch jumps to the first match again (the lines were rendered
// anew since Find).
func (r *Reader) FirstMatch(s *Scroll) {
	r.at = 0
	r.show(s)
}

// RarestWord is the word of query that text holds least often (at least
// once; the longer of equals), "" when it holds none: where a search for
// "abort a fetch request" should open a page that says "fetch" on every
// line and "abort" once. Words of under three letters, common words
// and the index's stop words are passed over: a question that ends "…
// the question mark operator there?" opened a page at its one "there".
func RarestWord(query, text string) string {
	lower := strings.ToLower(text)
	best, bestN := "", 0
	for _, w := range strings.FieldsFunc(strings.ToLower(query), func(r rune) bool { return !isWordRune(r) }) {
		if len([]rune(w)) < 3 || commonWords[w] || gwtext.StopWord(w) {
			continue
		}
		n := strings.Count(lower, w)
		if n > 0 && (best == "" || n < bestN || n == bestN && len(w) > len(best)) {
			best, bestN = w, n
		}
	}
	return best
}

var commonWords = map[string]bool{"the": true, "and": true, "for": true, "with": true, "what": true, "how": true,
	"does": true, "that": true, "this": true, "from": true, "are": true, "was": true, "why": true, "when": true,
	"which": true, "who": true, "into": true, "about": true, "can": true, "not": true, "you": true, "your": true,
	"its": true, "has": true, "have": true, "but": true, "all": true, "any": true, "use": true, "using": true}

// Next moves to the next match (n) or, with back, the previous one (N).
func (r *Reader) Next(s *Scroll, back bool) {
	if len(r.matches) == 0 {
		return
	}
	if back {
		r.at = (r.at - 1 + len(r.matches)) % len(r.matches)
	} else {
		r.at = (r.at + 1) % len(r.matches)
	}
	r.show(s)
}

// show scrolls the current match into view, a few lines from the top.
func (r *Reader) show(s *Scroll) {
	if len(r.matches) == 0 {
		return
	}
	m := r.matches[r.at]
	if m.line < s.offset || m.endLine >= s.offset+s.height {
		s.offset = max(0, m.line-2)
		s.clamp()
	}
}

// Status is the find's state for a footer: "find “x”: 3 of 12 (n/N)",
// "“x” not found", or "" when nothing is being found.
func (r *Reader) Status() string {
	switch {
	case r.query == "":
		return ""
	case len(r.matches) == 0:
		return fmt.Sprintf("“%s” not found", shortQuery(r.query))
	case r.fellBack:
		return fmt.Sprintf("“%s” %d of %d (n/N)", shortQuery(r.orElse), r.at+1, len(r.matches))
	}
	return fmt.Sprintf("“%s” %d of %d (n/N)", shortQuery(r.query), r.at+1, len(r.matches))
}

// shortQuery is a find's term as a footer or title line names it: a
// quote found whole (a report's, a highlight's) by its first four words,
// so that the page's address still fits beside it.
func shortQuery(q string) string {
	if w := strings.Fields(q); len(w) > 4 {
		return strings.Join(w[:4], " ") + "…"
	}
	return q
}

// FindView is the find line while it has focus.
func (r *Reader) FindView() string { return r.find.View() }

var (
	mdHeading = lazyRegexp(`^(#{1,6})\s+(.+?)\s*#*\s*$`)
	mdFence   = lazyRegexp("^\\s*(```|~~~)")
)

// OpenTOC builds the contents of markdown (its ATX headings, code
// blocks skipped), finds each heading in the scroll's rendered lines, in
// order, and shows the list. It reports false when there are no headings.
func (r *Reader) OpenTOC(markdown string, s *Scroll) bool {
	r.toc = markdownHeadings(markdown)
	return r.openTOC(s)
}

func markdownHeadings(markdown string) []Heading {
	var toc []Heading
	fenced := false
	for _, l := range strings.Split(markdown, "\n") {
		if mdFence().MatchString(l) {
			fenced = !fenced
			continue
		}
		if m := mdHeading().FindStringSubmatch(l); m != nil && !fenced {
			toc = append(toc, Heading{Level: len(m[1]), Text: plainHeading(m[2]), Line: -1})
		}
	}
	return toc
}

// textHeading is a heading in plain text: a numbered title on a line of
// its own ("8.1.1. Multithreaded Programming Paradigms").
var textHeading = lazyRegexp(`^((?:\d+\.)+\d*\.?)\s+(\p{Lu}.{0,80})$`)

// OpenTextTOC builds the contents of plain text from its numbered
// headings: lines of their own, between blank lines, that open with a
// section number; the level is the number's depth.
func (r *Reader) OpenTextTOC(text string, s *Scroll) bool {
	r.toc = textHeadings(text)
	return r.openTOC(s)
}

func textHeadings(text string) []Heading {
	var toc []Heading
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		t := strings.TrimSpace(l)
		m := textHeading().FindStringSubmatch(t)
		if m == nil || strings.ContainsAny(t[len(t)-1:], ".!?:;,") || len(strings.Fields(t)) > 10 {
			continue
		}
		if i > 0 && strings.TrimSpace(lines[i-1]) != "" || i+1 < len(lines) && strings.TrimSpace(lines[i+1]) != "" {
			continue
		}
		level := strings.Count(strings.TrimSuffix(m[1], "."), ".") + 1
		toc = append(toc, Heading{Level: min(level, 6), Text: t, Line: -1})
	}
	return toc
}

// locate finds each heading in the scroll's lines, in order.
func locate(toc []Heading, s *Scroll) {
	from := 0
	for i := range toc {
		for j := from; j < len(s.lines); j++ {
			if strings.Contains(ansi.Strip(s.lines[j]), toc[i].Text) {
				toc[i].Line, from = j, j+1
				break
			}
		}
	}
}

// openTOC finds the contents' headings in the rendered lines and shows
// the list.
func (r *Reader) openTOC(s *Scroll) bool {
	locate(r.toc, s)
	if len(r.toc) == 0 {
		return false
	}
	r.tocOpen, r.tocCur = true, 0
	// Start on the heading at or above the top line.
	for i, h := range r.toc {
		if h.Line >= 0 && h.Line <= s.offset {
			r.tocCur = i
		}
	}
	return true
}

// plainHeading is a heading's text without inline markup, as rendered:
// links, code spans, emphasis ("Do we need *non*-standalone Wasm?") and
// escapes ("\*" is a literal star) are taken out; an underscore inside a
// word (snake_case) is text.
func plainHeading(s string) string {
	s = mdLink().ReplaceAllString(s, "$1")
	rs := []rune(s)
	var b strings.Builder
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == '\\' && i+1 < len(rs) && unicode.IsPunct(rs[i+1]) || r == '\\' && i+1 < len(rs) && unicode.IsSymbol(rs[i+1]):
			i++
			b.WriteRune(rs[i])
		case r == '*' || r == '`':
		case r == '_' && (i == 0 || i+1 == len(rs) || !isWordRune(rs[i-1]) || !isWordRune(rs[i+1])):
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

var mdLink = lazyRegexp(`\[([^\]]*)\]\([^)]*\)`)

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// TOCKey handles a key while the contents are shown: up and down move,
// enter jumps to the heading, esc or T closes.
func (r *Reader) TOCKey(msg tea.KeyPressMsg, s *Scroll) {
	switch msg.String() {
	case "up", "k":
		r.tocCur = max(0, r.tocCur-1)
	case "down", "j":
		r.tocCur = min(len(r.toc)-1, r.tocCur+1)
	case "g", "home":
		r.tocCur = 0
	case "G", "end":
		r.tocCur = len(r.toc) - 1
	case "enter":
		if h := r.toc[r.tocCur]; h.Line >= 0 {
			if !r.jumped {
				r.jumped, r.jumpedFrom = true, s.Place()
			}
			s.offset = h.Line
			s.clamp()
		}
		r.tocOpen = false
	case "esc", "T", "q":
		r.tocOpen = false
	}
}

// Back returns to where the view was before the contents jumped (esc
// after T, enter), as a link's back does; false when no jump is to be
// undone.
func (r *Reader) Back(s *Scroll) bool {
	if !r.jumped {
		return false
	}
	r.jumped = false
	s.SetPlace(r.jumpedFrom)
	return true
}

// Jumped reports that esc would go back to where the contents jumped
// from.
func (r *Reader) Jumped() bool { return r.jumped }

// TOCView draws the contents in w×h.
func (r *Reader) TOCView(st *Styles, w, h int) string {
	lines := []string{st.Title.Render("Contents") + st.Dim.Render("  enter jumps · esc back")}
	off := max(0, r.tocCur-(h-2))
	for i := off; i < len(r.toc) && len(lines) < h; i++ {
		hd := r.toc[i]
		text := strings.Repeat("  ", hd.Level-1) + hd.Text
		if hd.Line < 0 {
			text += st.Dim.Render(" (not shown)")
		}
		if i == r.tocCur {
			lines = append(lines, st.Selected.Render(PadRight(Truncate("> "+text, w), w)))
		} else {
			lines = append(lines, Truncate("  "+text, w))
		}
	}
	return strings.Join(lines, "\n")
}

// Edit opens markdown in $EDITOR, else $PAGER, else less, on a
// temporary file named after name; the TUI is suspended until it exits.
// The file is removed afterwards: edits are the user's to save elsewhere.
// The file is written in the command, not while the key is handled; the
// command then hands the program the suspension (tea.ExecProcess's message).
func Edit(markdown, name string) tea.Cmd {
	return func() tea.Msg {
		prog := os.Getenv("EDITOR")
		if prog == "" {
			prog = os.Getenv("PAGER")
		}
		if prog == "" {
			prog = "less"
		}
		dir, err := os.MkdirTemp("", "hark-read-")
		if err != nil {
			return ErrorMsg{Err: fmt.Errorf("open in editor: %w", err)}
		}
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(markdown), 0o600); err != nil {
			os.RemoveAll(dir)
			return ErrorMsg{Err: fmt.Errorf("open in editor: %w", err)}
		}
		args := strings.Fields(prog)
		cmd := exec.Command(args[0], append(args[1:], path)...)
		return tea.ExecProcess(cmd, func(err error) tea.Msg {
			os.RemoveAll(dir)
			if err != nil {
				return ErrorMsg{Err: fmt.Errorf("%s: %w", prog, err)}
			}
			return NoticeMsg{Text: "back from " + args[0]}
		})()
	}
}

// Browse opens u in $BROWSER (or xdg-open), in the background.
func Browse(u string) tea.Cmd {
	return func() tea.Msg {
		prog := os.Getenv("BROWSER")
		if prog == "" {
			if _, err := exec.LookPath("xdg-open"); err != nil {
				return ErrorMsg{Err: fmt.Errorf("open %s: no browser: set $BROWSER (y copies the URL)", u)}
			}
			prog = "xdg-open"
		}
		args := strings.Fields(prog)
		cmd := exec.Command(args[0], append(args[1:], u)...)
		if err := cmd.Start(); err != nil {
			return ErrorMsg{Err: fmt.Errorf("open %s with %s: %w", u, args[0], err)}
		}
		go cmd.Wait()
		return NoticeMsg{Text: "opened " + u + " with " + args[0]}
	}
}
