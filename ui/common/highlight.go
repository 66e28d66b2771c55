package common

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/audio/prose"
	"hark/library"
)

// Marker selects a passage in a reader by sentence and shows the
// highlights kept in the text, the same in Pages and Research: v selects
// the sentence at the top of the view, j and k move the selection, J and
// K extend and shrink it, enter asks for a note (#words are tags) and
// hands the passage to the pane, which keeps it (SaveHighlight). Kept
// highlights are underlined.
type Marker struct {
	doc       string
	sents     []markSentence
	selecting bool
	from, to  int // the sentences selected, from..to
	noting    bool
	note      textinput.Model
	kept      []string // the quotes of the highlights kept in doc
	keptAt    []match  // where they are in the rendered lines
	selAt     []match  // where the selection is
}

// markSentence is a sentence the reader can select: its words as said,
// its place in the document, its first rendered line, the section it is
// in (the headings before it).
type markSentence struct {
	text       string
	start, end int
	line       int
	section    int
}

// Passage is a selected passage with the note typed for it. Start and
// End are offsets in the document the reader shows.
type Passage struct {
	Quote      string
	Start, End int
	Note       string
	Tags       []string
}

// Selecting reports that a selection or its note line has the keys.
func (m *Marker) Selecting() bool { return m.selecting || m.noting }

// Noting reports that the note line has the keys.
func (m *Marker) Noting() bool { return m.noting }

// markSentences are doc's sentences that stand in its text: what a voice
// would say, found again by their words (an announced code block or
// table is not text to highlight). A heading is no sentence: the voice
// says it, but selecting one put its words in the quote ("Summary If a
// working tree…"); it is stepped over, and it closes a section, which a
// selection does not extend across.
func markSentences(doc string) []markSentence {
	var out []markSentence
	from, section := 0, 0
	for _, sn := range prose.Sentences(doc) {
		if sn.Heading {
			section++
			if s, e, ok := api.Locate(doc, sn.Text, from); ok && s >= from {
				from = e // the next sentence is searched after the heading's words
			}
			continue
		}
		s, e, ok := api.Locate(doc, sn.Text, from)
		if !ok || s < from {
			continue
		}
		e = pastLinkEnd(doc, s, e)
		out = append(out, markSentence{text: sn.Text, start: s, end: e, line: -1, section: section})
		from = e
	}
	return out
}

// pastLinkEnd is e moved past the link destination that follows it when
// doc[s:e] ends inside a link's text: a sentence that ends on a link
// ("… check out the [official docs](https://…).") is found up to its
// last word, which left its quote "… the [official docs" with the
// bracket, kept so in the library, and not found as rendered.
func pastLinkEnd(doc string, s, e int) int {
	open := strings.LastIndexByte(doc[s:e], '[')
	if open < 0 || strings.IndexByte(doc[s+open:e], ']') >= 0 || !strings.HasPrefix(doc[e:], "](") {
		return e
	}
	end := strings.IndexAny(doc[e:], ")\n")
	if end < 0 || doc[e+end] != ')' {
		return e
	}
	return e + end + 1
}

// sentenceLines finds each sentence's first line in the rendered lines:
// its first two words, searched forward from the sentence before (-1
// when not found: the line before's). URLs are left out of both: the
// reader shows a link's URL after its text ("Rust https://… is a
// modern…"), which the sentence, as a voice says it, does not have.
func sentenceLines(texts []string, lines []string) []int {
	out := make([]int, len(texts))
	plain := make([]string, len(lines))
	for i, l := range lines {
		plain[i] = strings.ToLower(strings.Join(wordsNoURLs(ansi.Strip(l)), " "))
	}
	from := 0
	for i, t := range texts {
		out[i] = -1
		words := wordsNoURLs(strings.ToLower(t))
		key := strings.Trim(strings.Join(words[:min(2, len(words))], " "), ".,;:!?")
		if key != "" {
			for j := from; j < len(plain); j++ {
				if strings.Contains(plain[j], key) {
					out[i], from = j, j
					break
				}
			}
		}
		if out[i] < 0 && i > 0 {
			out[i] = out[i-1]
		}
	}
	return out
}

// wordsNoURLs is s's words without those that are URLs.
func wordsNoURLs(s string) []string {
	w := strings.Fields(s)
	out := w[:0]
	for _, x := range w {
		if i := strings.Index(x, "://"); i > 0 && i < 12 {
			continue
		}
		out = append(out, x)
	}
	return out
}

// Start selects the first sentence at or below the scroll's top line of
// doc (the markdown or text the reader renders); false when doc has no
// sentence to select.
func (m *Marker) Start(doc string, s *Scroll) bool {
	if doc != m.doc || m.sents == nil {
		m.doc, m.sents = doc, markSentences(doc)
	}
	if len(m.sents) == 0 {
		return false
	}
	m.locate(s)
	m.from = 0
	for i, sn := range m.sents {
		if sn.line >= s.offset {
			m.from = i
			break
		}
	}
	m.to, m.selecting = m.from, true
	m.Refresh(s)
	return true
}

func (m *Marker) locate(s *Scroll) {
	texts := make([]string, len(m.sents))
	for i, sn := range m.sents {
		texts[i] = sn.text
	}
	for i, l := range sentenceLines(texts, s.lines) {
		m.sents[i].line = l
	}
}

// SetKept sets the quotes of the highlights kept in the document shown.
func (m *Marker) SetKept(quotes []string, s *Scroll) {
	m.kept = quotes
	m.Refresh(s)
}

// Refresh finds the kept highlights and the selection in the scroll's
// lines again (they were rendered anew) and paints them.
func (m *Marker) Refresh(s *Scroll) {
	m.keptAt = nil
	for _, q := range m.kept {
		if sp, ok := findSpan(s.lines, q, 0); ok {
			m.keptAt = append(m.keptAt, sp)
		}
	}
	slices.SortFunc(m.keptAt, func(a, b match) int { return a.line*100000 + a.col - b.line*100000 - b.col })
	m.selAt = nil
	if m.selecting || m.noting {
		if m.sents[m.from].line < 0 || len(s.lines) > 0 && m.sents[m.from].line >= len(s.lines) {
			m.locate(s)
		}
		first := m.sents[m.from].line
		if sp, ok := findSpan(s.lines, m.Quote(), max(0, first-1)); ok {
			m.selAt = []match{sp}
		} else if first >= 0 {
			last := first
			if m.to+1 < len(m.sents) && m.sents[m.to+1].line > first {
				last = m.sents[m.to+1].line - 1
			}
			m.selAt = []match{{line: first, endLine: last, endCol: math.MaxInt}}
		}
	}
	if len(m.keptAt) == 0 && len(m.selAt) == 0 {
		s.marker = nil
		return
	}
	s.marker = m.paint
}

// findSpan is where quote is in lines (from line from on). When the
// whole is not found as rendered (the reader shows a link's URL after
// its words, which the quote as said does not have), it runs from the
// quote's first six words to its last words found after them (six,
// else three: the URL may fall among the last six) no more lines on
// than the quote has words, or is the first words alone when its end
// is not found so.
func findSpan(lines []string, quote string, from int) (match, bool) {
	if sp, ok := findFrom(lines, quote, from); ok {
		return sp, true
	}
	w := strings.Fields(quote)
	if len(w) <= 6 {
		return match{}, false
	}
	head, ok := findFrom(lines, strings.Join(w[:6], " "), from)
	if !ok {
		return match{}, false
	}
	for _, n := range []int{6, 3} {
		tail := strings.TrimRight(strings.Join(w[len(w)-n:], " "), ".,;:!?")
		for _, sp := range findAll(lines, tail) {
			if sp.endLine-head.line > len(w) {
				break // a line holds a word at least: this is further on
			}
			if sp.line > head.endLine || sp.line == head.endLine && sp.col >= head.endCol {
				return match{line: head.line, col: head.col, endLine: sp.endLine, endCol: sp.endCol}, true
			}
		}
	}
	return head, true
}

// findFrom is the first place q is in lines from line from on.
func findFrom(lines []string, q string, from int) (match, bool) {
	for _, sp := range findAll(lines, q) {
		if sp.line >= from {
			return sp, true
		}
	}
	return match{}, false
}

// paint underlines the kept highlights and shows the selection in
// reverse.
func (m *Marker) paint(i int, line string) string {
	line = paint(i, line, m.keptAt, func(int) string { return "\x1b[4m" })
	return paint(i, line, m.selAt, func(int) string { return "\x1b[7m" })
}

// Quote is the selected passage's text, on one line.
func (m *Marker) Quote() string {
	if len(m.sents) == 0 {
		return ""
	}
	return api.QuoteText(m.doc[m.sents[m.from].start:m.sents[m.to].end])
}

// Key handles a key while selecting or noting. A passage comes back when
// enter ended the note.
func (m *Marker) Key(msg tea.KeyPressMsg, st *Styles, s *Scroll) (*Passage, tea.Cmd) {
	if m.noting {
		switch msg.String() {
		case "enter":
			note, tags := library.SplitNote(m.note.Value())
			p := &Passage{Quote: m.Quote(), Start: m.sents[m.from].start, End: m.sents[m.to].end, Note: note, Tags: tags}
			m.Stop(s)
			return p, nil
		case "esc":
			m.Stop(s)
			return nil, nil
		}
		var cmd tea.Cmd
		m.note, cmd = m.note.Update(msg)
		return nil, cmd
	}
	switch msg.String() {
	case "j", "down":
		if m.to+1 < len(m.sents) {
			m.from, m.to = m.to+1, m.to+1
		}
	case "k", "up":
		if m.from > 0 {
			m.from, m.to = m.from-1, m.from-1
		}
	case "J", ">", "shift+down":
		if m.to+1 < len(m.sents) && m.sents[m.to+1].section == m.sents[m.from].section {
			m.to++ // a passage stops at a heading: its words are not the quote's
		}
	case "K", "<", "shift+up":
		m.to = max(m.from, m.to-1)
	case "enter", "h":
		m.noting = true
		m.note = textinput.New()
		m.note.Prompt = "note: "
		m.note.Placeholder = "a note; #words are tags (enter keeps, esc drops)"
		m.note.CharLimit = library.MaxNote
		m.note.SetStyles(st.InputStyles())
		m.note.SetWidth(60)
		return nil, m.note.Focus()
	case "esc", "v", "q":
		m.Stop(s)
		return nil, nil
	}
	m.Refresh(s)
	m.show(s)
	return nil, nil
}

// show scrolls the selection into view.
func (m *Marker) show(s *Scroll) {
	if len(m.selAt) == 0 {
		return
	}
	sp := m.selAt[0]
	if sp.line < s.offset || sp.endLine >= s.offset+s.height {
		s.offset = max(0, sp.line-2)
		s.clamp()
	}
}

// Stop leaves the selection (and the note line).
func (m *Marker) Stop(s *Scroll) {
	m.selecting, m.noting = false, false
	m.note.Blur()
	m.Refresh(s)
}

// Reset forgets the document (another is shown).
func (m *Marker) Reset(s *Scroll) {
	m.doc, m.sents, m.kept = "", nil, nil
	m.Stop(s)
}

// Status is the footer's line while selecting or noting.
func (m *Marker) Status() string {
	switch {
	case m.noting:
		return ""
	case m.selecting:
		n := m.to - m.from + 1
		return fmt.Sprintf("select %s · j/k move · J/K longer/shorter · enter highlight · esc leave", Count(n, "sentence"))
	}
	return ""
}

// NoteView is the note line.
func (m *Marker) NoteView() string { return m.note.View() }

// HighlightSource is the document a highlight is made in: a page (URL,
// Body as the reader shows it) or a report (its Question).
type HighlightSource struct {
	Kind     string // library.KindPage or library.KindResearch
	URL      string
	Title    string
	Body     string
	Question string
	Tool     string
	Gateway  string
}

// HighlightsMsg brings the highlights kept in a document (Key: its URL,
// or its question for a report), or what keeping one did.
type HighlightsMsg struct {
	Key    string
	Quotes []string
	Saved  *library.Highlight
	Err    error
}

// sourceItem is the library item a document shown is kept as: a page by
// its URL (the copy with the same text, else the newest, else kept now),
// a report by its question.
func sourceItem(ctx context.Context, s *library.Store, src HighlightSource) (library.Item, error) {
	if src.Kind == library.KindResearch {
		it, err := s.ReportFor(ctx, src.Question)
		if errors.Is(err, library.ErrNotFound) {
			return it, errors.New("highlight: this report is not in the library (reports are kept once completed, unless library = false)")
		}
		return it, err
	}
	it, err := s.PageFor(ctx, src.URL, src.Body)
	if errors.Is(err, library.ErrNotFound) {
		// Read but never kept (keeping failed, or the page came with no
		// call): kept now, for the highlight to live beside it.
		page := &library.Item{Kind: library.KindPage, Tool: src.Tool, Title: src.Title, Query: src.URL, URL: src.URL, Body: src.Body, Gateway: src.Gateway}
		if err := s.Add(ctx, page); err != nil {
			return library.Item{}, err
		}
		return *page, nil
	}
	return it, err
}

// SaveHighlight keeps a highlight of p in src, in a command.
func SaveHighlight(open func() (*library.Store, error), src HighlightSource, p Passage) tea.Cmd {
	key := src.URL
	if src.Kind == library.KindResearch {
		key = src.Question
	}
	return func() tea.Msg {
		if open == nil {
			return HighlightsMsg{Key: key, Err: errors.New("highlight: this hark has no library to keep highlights in")}
		}
		ctx := context.Background()
		s, err := open()
		if err != nil {
			return HighlightsMsg{Key: key, Err: err}
		}
		it, err := sourceItem(ctx, s, src)
		if err != nil {
			return HighlightsMsg{Key: key, Err: err}
		}
		start, end := p.Start, p.End
		if it.Body != src.Body {
			// The kept copy is not the text shown (a report shown with
			// its meta line): the passage is found in it by its words.
			var ok bool
			if start, end, ok = library.FindPassage(it, p.Quote, max(0, p.Start-200)); !ok {
				return HighlightsMsg{Key: key, Err: fmt.Errorf("highlight: the kept copy (item %d) does not hold the passage", it.ID)}
			}
		}
		h, err := s.AddHighlight(ctx, it, start, end, p.Note, p.Tags)
		if err != nil {
			return HighlightsMsg{Key: key, Err: err}
		}
		msg := loadHighlights(ctx, s, key, it)
		msg.Saved = &h
		return msg
	}
}

// LoadHighlights brings the highlights of src, in a command.
func LoadHighlights(open func() (*library.Store, error), src HighlightSource) tea.Cmd {
	if open == nil {
		return nil
	}
	key := src.URL
	if src.Kind == library.KindResearch {
		key = src.Question
	}
	return func() tea.Msg {
		ctx := context.Background()
		s, err := open()
		if err != nil {
			return nil // the client reports a library it cannot open
		}
		var it library.Item
		if src.Kind == library.KindResearch {
			it, err = s.ReportFor(ctx, src.Question)
		} else {
			it = library.Item{URL: src.URL}
		}
		if err != nil {
			return HighlightsMsg{Key: key}
		}
		return loadHighlights(ctx, s, key, it)
	}
}

func loadHighlights(ctx context.Context, s *library.Store, key string, it library.Item) HighlightsMsg {
	hs, err := s.HighlightsOf(ctx, it.ID, it.URL)
	if err != nil {
		return HighlightsMsg{Key: key, Err: err}
	}
	msg := HighlightsMsg{Key: key}
	for _, h := range hs {
		msg.Quotes = append(msg.Quotes, h.Quote)
	}
	return msg
}

// OpeningWords are a quote's first words, what the reader finds to open
// at a highlight: the whole may be rendered across markup.
func OpeningWords(quote string) string {
	w := strings.Fields(quote)
	return strings.Join(w[:min(6, len(w))], " ")
}

// FindQuote finds quote in the reader, highlighted whole, and jumps to
// it; where the rendered page does not hold it word for word (a code
// span's padding before a full stop), its opening words.
func FindQuote(r *Reader, quote string, s *Scroll) {
	r.query, r.orElse, r.at = strings.TrimSpace(quote), OpeningWords(quote), 0
	r.Refresh(s)
	r.show(s)
}
