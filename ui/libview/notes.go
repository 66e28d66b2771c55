package libview

// The highlights' list (n): every highlight with its note and tags,
// searched as you type over quote, note and tags; enter opens one in
// its kept copy at its place; z sends them to Zotero, O writes them to
// an Obsidian folder.

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

type notesLoadedMsg struct {
	seq int
	hs  []library.Highlight
	err error
}

// loadNotes lists (or searches) the highlights, with where each stands
// in the newest kept copy of its page.
func (p *Pane) loadNotes() tea.Cmd {
	if p.c.Library == nil {
		return nil
	}
	open, q := p.c.Library, strings.TrimSpace(p.query.Value())
	return p.calls().Run(func(ctx context.Context, seq int) tea.Msg {
		s, err := open()
		if err != nil {
			return notesLoadedMsg{seq: seq, err: err}
		}
		hs, err := s.Highlights(ctx, q, listLimit)
		if err == nil {
			err = s.Check(ctx, hs)
		}
		return notesLoadedMsg{seq: seq, hs: hs, err: err}
	})
}

// toggleNotes switches between the items and the highlights.
func (p *Pane) toggleNotes() tea.Cmd {
	p.notes = !p.notes
	p.loaded = false
	p.list().Reset()
	if p.notes {
		p.query.Placeholder = "search highlights, notes, #tags…"
	} else {
		p.query.Placeholder = "search what was kept…"
	}
	return p.load()
}

func (p *Pane) selectedNote() (library.Highlight, bool) {
	if p.cursor < 0 || p.cursor >= len(p.hs) {
		return library.Highlight{}, false
	}
	return p.hs[p.cursor], true
}

// notesKey handles the keys of the highlights' list; ok is false for
// the keys the list shares with the items' (moving, searching).
func (p *Pane) notesKey(msg tea.KeyPressMsg, confirm int64) (tea.Cmd, bool) {
	k := p.c.Keys().Library
	h, ok := p.selectedNote()
	switch {
	case key.Matches(msg, k.Notes):
		return p.toggleNotes(), true
	case key.Matches(msg, k.Open):
		if !ok {
			return nil, true
		}
		return p.openNote(h), true
	case key.Matches(msg, k.Delete):
		if !ok {
			return nil, true
		}
		if confirm != h.ID {
			p.confirm = h.ID
			return nil, true
		}
		open := p.c.Library
		return func() tea.Msg {
			s, err := open()
			if err == nil {
				err = s.DeleteHighlights(context.Background(), []int64{h.ID})
			}
			if err != nil {
				return common.ErrorMsg{Err: err}
			}
			return common.LibraryChangedMsg{}
		}, true
	case key.Matches(msg, k.Zotero):
		return p.exportZotero(), true
	case key.Matches(msg, k.Obsidian):
		if len(p.hs) == 0 {
			return nil, true
		}
		dir := p.c.OutputDir
		if dir == "" {
			dir = "."
		}
		p.savingNotes = true
		return p.saveAs.OpenFolder(filepath.Join(dir, "notes"), p.c.Styles), true
	case key.Matches(msg, k.Rerun), key.Matches(msg, k.Export), key.Matches(msg, k.Kind):
		return nil, true
	}
	return nil, false
}

// openNote opens the highlight's kept copy at its quote: a page in
// Pages, a report in Research. With no copy kept, the quote is shown.
func (p *Pane) openNote(h library.Highlight) tea.Cmd {
	open := p.c.Library
	return func() tea.Msg {
		s, err := open()
		if err != nil {
			return common.ErrorMsg{Err: err}
		}
		it, ok, err := s.SourceOf(context.Background(), h)
		if err != nil {
			return common.ErrorMsg{Err: err}
		}
		if !ok {
			return common.NoticeMsg{Text: fmt.Sprintf("no copy of %s is kept any more: “%s”", h.Title, h.Quote)}
		}
		return common.ShowKeptMsg{Item: it, At: h.Quote}
	}
}

type notesExportedMsg struct {
	text string
	err  error
}

// exportZotero sends the highlights listed to Zotero's connector.
func (p *Pane) exportZotero() tea.Cmd {
	if len(p.hs) == 0 || p.c.Library == nil {
		return nil
	}
	open, hs, z := p.c.Library, p.hs, library.Zotero{URL: p.c.ZoteroURL}
	return func() tea.Msg {
		ctx := context.Background()
		s, err := open()
		if err != nil {
			return notesExportedMsg{err: err}
		}
		srcs, err := s.NoteSources(ctx, hs)
		if err != nil {
			return notesExportedMsg{err: err}
		}
		res, err := s.ExportZotero(ctx, z, srcs)
		if errors.Is(err, library.ErrZoteroNotRunning) {
			// What to do first: the command's words are cut at 80
			// columns before "start Zotero".
			return notesExportedMsg{err: fmt.Errorf("nothing was sent: Zotero is not running on %s (start it, then z)", z.Addr())}
		}
		if err != nil {
			return notesExportedMsg{err: err}
		}
		text := fmt.Sprintf("Zotero: %s and %s sent", common.Count(res.Items, "new item"), common.Count(res.Notes, "note"))
		if res.Already > 0 {
			text += fmt.Sprintf(", %d already there", res.Already)
		}
		if len(res.Changed) > 0 {
			text += fmt.Sprintf(", %d edited since sent (edit in Zotero)", len(res.Changed))
		}
		return notesExportedMsg{text: text}
	}
}

// exportObsidian writes the highlights listed into dir.
func (p *Pane) exportObsidian(dir string) tea.Cmd {
	open, hs := p.c.Library, p.hs
	return func() tea.Msg {
		s, err := open()
		if err != nil {
			return notesExportedMsg{err: err}
		}
		srcs, err := s.NoteSources(context.Background(), hs)
		if err != nil {
			return notesExportedMsg{err: err}
		}
		res, err := library.ExportObsidian(dir, srcs)
		if err != nil {
			return notesExportedMsg{err: err}
		}
		return notesExportedMsg{text: fmt.Sprintf("wrote %s to %s (%d unchanged)", common.Count(len(res.Written), "note"), common.HomeShort(dir), len(res.Unchanged))}
	}
}

func (p *Pane) notesMsg(msg tea.Msg) (tea.Cmd, bool) {
	switch msg := msg.(type) {
	case notesLoadedMsg:
		if !p.calls().Done(msg.seq) {
			return nil, true
		}
		p.loaded, p.err = true, msg.err
		if msg.err == nil {
			p.hs = msg.hs
		}
		p.list().Clamp()
		return nil, true
	case notesExportedMsg:
		if msg.err != nil {
			return errCmd(msg.err), true
		}
		return func() tea.Msg { return common.NoticeMsg{Text: msg.text} }, true
	}
	return nil, false
}

// notesLines draws the highlights from the one at offset: the state,
// the source and the quote, then the note and tags.
func (p *Pane) notesLines(h int) []string {
	st := p.c.Styles
	visible := max(1, h/2)
	start, end := p.list().Window(visible)
	var lines []string
	for i := start; i < end; i++ {
		hl := p.hs[i]
		state := map[string]string{api.PassageStands: "", api.PassageMoved: "moved ", api.PassageGone: "gone "}[hl.State]
		head := fmt.Sprintf("%s“%s”", state, library.Wrapped(hl.Quote))
		line := "  " + common.Truncate(head, max(1, p.width-2))
		var more []string
		if hl.Note != "" {
			more = append(more, hl.Note)
		}
		if len(hl.Tags) > 0 {
			more = append(more, "#"+strings.Join(hl.Tags, " #"))
		}
		more = append(more, hl.Title)
		second := "    " + common.Truncate(strings.Join(more, " · "), max(1, p.width-4))
		if i == p.cursor {
			line = st.Selected.Render(common.PadRight(common.Truncate("> "+head, p.width), p.width))
			if p.confirm == hl.ID {
				second = st.Warn.Render(common.Truncate("    d again removes this highlight; any other key keeps it", p.width))
			}
		}
		lines = append(lines, line, st.Dim.Render(second))
	}
	return lines
}

// notesBody is the highlights' list, or why it is empty.
func (p *Pane) notesBody(h int) []string {
	st := p.c.Styles
	switch {
	case len(p.hs) == 0 && strings.TrimSpace(p.query.Value()) != "":
		return []string{st.Dim.Render(common.Wrap("No highlight matches. Every word must appear in the quote, note or tags; the last may be the start of a word.", p.width))}
	case len(p.hs) == 0:
		return []string{st.Dim.Render(common.Wrap("No highlights yet. In a page, v selects a sentence (in a report, H does: v verifies there), enter highlights it and asks for a note (#words are tags).", p.width))}
	}
	return p.notesLines(h)
}

func (p *Pane) notesFooter() string {
	n := common.Count(len(p.hs), "highlight")
	return p.c.Styles.Dim.Render(common.FitKeys([]string{n, "enter open", "d d remove", "z Zotero", "O Obsidian", "/ search", "n items"}, p.width))
}
