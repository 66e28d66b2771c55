// Package libview is the Library pane: what hark kept (research
// reports, searches, pages, crawls, maps), newest first, filtered by kind
// and searched as you type, offline. An item reopens where it belongs
// without calling the gateway; it can be re-run, deleted or exported.
package libview

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

// listLimit bounds the items listed at once.
const listLimit = 500

// Pane is the Library pane.
type Pane struct {
	c       *common.Common
	query   textinput.Model
	kind    int // index into kinds; 0 is every kind
	items   []library.Item
	err     error
	cursor  int
	offset  int
	seq     int                        // of the last load asked for
	runs    map[int]context.CancelFunc // the load under way (Calls)
	loaded  bool
	others  bool  // nothing of the kind chosen, but other kinds kept
	confirm int64 // the item d was pressed on once
	saveAs  common.SaveAs
	every   everyPrompt // w's line: how often to read the pages again
	saving  library.Item
	// notes shows the highlights (notes.go) instead of the items.
	notes       bool
	hs          []library.Highlight
	savingNotes bool // the save-as line asks for the notes' folder
	// watching shows the watched pages (watches.go).
	watching bool
	ws       []api.Watch
	width    int
	height   int
}

var kinds = append([]string{""}, library.Kinds...)

// New returns the Library pane.
func New(c *common.Common) *Pane {
	q := common.NewInput(c.Styles)
	q.Prompt = "/ "
	q.Placeholder = "search what was kept…"
	return &Pane{c: c, query: q, runs: map[int]context.CancelFunc{}}
}

func (p *Pane) Title() string       { return "Library" }
func (p *Pane) KeyMap() help.KeyMap { return p.c.Keys().Library }

// Capturing is true while the search line or the save-as line has focus.
func (p *Pane) Capturing() bool { return p.query.Focused() || p.saveAs.Active() || p.every.active() }

// OwnsKeys reports that a path is being typed into the save-as line, or
// an interval into w's.
func (p *Pane) OwnsKeys() bool { return p.saveAs.Active() || p.every.active() }

// LineEmpty reports that the search line has focus and nothing typed, so
// the digits still switch panes.
func (p *Pane) LineEmpty() bool { return p.query.Focused() && p.query.Value() == "" }

// Init loads the list.
func (p *Pane) Init() tea.Cmd { return p.load() }

// Shown reloads the list (in a command): another hark process (hark
// search in a shell) may have kept something since.
func (p *Pane) Shown() tea.Cmd { return p.load() }

// SetSize is given the pane's whole area.
func (p *Pane) SetSize(w, h int) {
	p.width, p.height = max(0, w), max(0, h)
	p.query.SetWidth(max(10, w-4))
}

type loadedMsg struct {
	seq   int
	items []library.Item
	err   error
	// others says that, with a kind chosen and none of it kept, items of
	// other kinds are.
	others bool
}

type openedMsg struct {
	item library.Item
	err  error
	then func(library.Item) tea.Cmd
}

// load lists (or searches) the library in a command.
func (p *Pane) load() tea.Cmd {
	if p.c.Library == nil {
		return nil
	}
	if p.notes {
		return p.loadNotes()
	}
	if p.watching {
		return p.loadWatches()
	}
	open, q, kind := p.c.Library, strings.TrimSpace(p.query.Value()), kinds[p.kind]
	// A newer load (a letter typed) cancels this one: its answer would be
	// dropped anyway.
	return p.calls().Run(func(ctx context.Context, seq int) tea.Msg {
		s, err := open()
		if err != nil {
			return loadedMsg{seq: seq, err: err}
		}
		var items []library.Item
		if q == "" {
			items, err = s.List(ctx, kind, listLimit)
		} else {
			items, err = s.Search(ctx, q, kind, listLimit)
		}
		var others bool
		if err == nil && len(items) == 0 && kind != "" && q == "" {
			all, err := s.List(ctx, "", 1)
			others = err == nil && len(all) > 0
		}
		return loadedMsg{seq: seq, items: items, err: err, others: others}
	})
}

// calls runs the loads, one at a time.
func (p *Pane) calls() common.Calls { return common.NewCalls(&p.seq, p.runs, nil) }

// withItem fetches the selected item whole, then runs then with it.
func (p *Pane) withItem(then func(library.Item) tea.Cmd) tea.Cmd {
	it, ok := p.selected()
	if !ok || p.c.Library == nil {
		return nil
	}
	open, id := p.c.Library, it.ID
	return func() tea.Msg {
		s, err := open()
		if err != nil {
			return openedMsg{err: err}
		}
		full, err := s.Get(context.Background(), id)
		return openedMsg{item: full, err: err, then: then}
	}
}

func (p *Pane) selected() (library.Item, bool) {
	if p.cursor < 0 || p.cursor >= len(p.items) {
		return library.Item{}, false
	}
	return p.items[p.cursor], true
}

// Update handles keys and the pane's messages.
func (p *Pane) Update(msg tea.Msg) (common.Pane, tea.Cmd) {
	if cmd, ok := p.notesMsg(msg); ok {
		return p, cmd
	}
	if cmd, ok := p.watchesMsg(msg); ok {
		return p, cmd
	}
	switch msg := msg.(type) {
	case loadedMsg:
		if !p.calls().Done(msg.seq) {
			return p, nil // an older query's answer
		}
		p.loaded, p.err, p.others = true, msg.err, msg.others
		if msg.err == nil {
			p.items = msg.items
		}
		p.list().Clamp()
		return p, nil
	case openedMsg:
		if msg.err != nil {
			return p, errCmd(msg.err)
		}
		return p, msg.then(msg.item)
	case common.LibraryChangedMsg:
		return p, p.load()
	case exportedMsg:
		if msg.err != nil {
			return p, errCmd(msg.err)
		}
		text := "exported " + common.HomeShort(msg.path)
		return p, func() tea.Msg { return common.NoticeMsg{Text: text} }
	case tea.KeyPressMsg:
		return p, p.key(msg)
	case tea.PasteMsg:
		if p.saveAs.Active() {
			return p, p.saveAs.Update(msg)
		}
		if p.query.Focused() {
			var cmd tea.Cmd
			p.query, cmd = p.query.Update(msg)
			return p, tea.Batch(cmd, p.load())
		}
	case tea.MouseWheelMsg:
		switch msg.Button {
		case tea.MouseWheelUp:
			p.move(-3)
		case tea.MouseWheelDown:
			p.move(3)
		}
		return p, nil
	}
	var cmd tea.Cmd
	p.query, cmd = p.query.Update(msg)
	return p, tea.Batch(cmd, p.saveAs.Update(msg))
}

func errCmd(err error) tea.Cmd { return func() tea.Msg { return common.ErrorMsg{Err: err} } }

// list is the cursor over the items listed.
func (p *Pane) list() common.List {
	if p.watching {
		return common.NewList(&p.cursor, &p.offset, len(p.ws))
	}
	if p.notes {
		return common.NewList(&p.cursor, &p.offset, len(p.hs))
	}
	return common.NewList(&p.cursor, &p.offset, len(p.items))
}

func (p *Pane) move(d int) {
	p.list().Move(d)
	p.confirm = 0
}

func (p *Pane) key(msg tea.KeyPressMsg) tea.Cmd {
	if p.every.active() {
		it, every, ok, cmd := p.every.key(msg)
		if ok {
			return p.watchItem(it, every)
		}
		return cmd
	}
	if p.saveAs.Active() {
		path, cmd := p.saveAs.Key(msg)
		if path != "" && p.savingNotes {
			p.savingNotes = false
			return p.exportObsidian(path)
		}
		if path != "" {
			return export(p.saving, path, p.saveAs.Unedited())
		}
		if !p.saveAs.Active() {
			p.savingNotes = false
		}
		return cmd
	}
	if p.query.Focused() {
		switch msg.String() {
		case "enter", "esc", "down":
			p.query.Blur()
			if msg.String() == "esc" && p.query.Value() != "" {
				p.query.SetValue("")
				return p.load()
			}
			return nil
		}
		before := p.query.Value()
		var cmd tea.Cmd
		p.query, cmd = p.query.Update(msg)
		if p.query.Value() != before {
			p.list().Reset()
			return tea.Batch(cmd, p.load())
		}
		return cmd
	}
	confirm := p.confirm
	p.confirm = 0
	switch {
	case p.watching:
		if cmd, ok := p.watchesKey(msg, confirm); ok {
			return cmd
		}
	case key.Matches(msg, p.c.Keys().Library.Watches):
		return p.toggleWatches()
	case p.notes:
		if cmd, ok := p.notesKey(msg, confirm); ok {
			return cmd
		}
	case key.Matches(msg, p.c.Keys().Library.Notes):
		return p.toggleNotes()
	case key.Matches(msg, p.c.Keys().Library.Watch):
		return p.withItem(p.askEvery)
	}
	switch {
	case key.Matches(msg, p.c.Keys().Library.Search):
		return p.query.Focus()
	case key.Matches(msg, p.c.Keys().Library.Kind):
		p.kind = (p.kind + 1) % len(kinds)
		p.list().Reset()
		return p.load()
	case key.Matches(msg, p.c.Keys().Library.Up):
		p.move(-1)
	case key.Matches(msg, p.c.Keys().Library.Down):
		p.move(1)
	case msg.String() == "pgup":
		p.move(-p.listHeight())
	case msg.String() == "pgdown":
		p.move(p.listHeight())
	case msg.String() == "g" || msg.String() == "home":
		p.move(-len(p.items) - len(p.hs))
	case msg.String() == "G" || msg.String() == "end":
		p.move(len(p.items) + len(p.hs))
	case key.Matches(msg, p.c.Keys().Library.Open):
		return p.withItem(p.open)
	case key.Matches(msg, p.c.Keys().Library.Rerun):
		return p.withItem(p.rerun)
	case key.Matches(msg, p.c.Keys().Library.Delete):
		it, ok := p.selected()
		if !ok {
			return nil
		}
		if confirm != it.ID {
			p.confirm = it.ID
			return nil
		}
		open, id := p.c.Library, it.ID
		return func() tea.Msg {
			s, err := open()
			if err == nil {
				err = s.Delete(context.Background(), id)
			}
			if err != nil {
				return common.ErrorMsg{Err: err}
			}
			return common.LibraryChangedMsg{}
		}
	case key.Matches(msg, p.c.Keys().Library.Export):
		return p.withItem(func(it library.Item) tea.Cmd {
			p.saving = it
			dir := p.c.OutputDir
			if dir == "" {
				dir = "."
			}
			return p.saveAs.Open(filepath.Join(dir, exportName(it)), false, p.c.Styles)
		})
	}
	return nil
}

// open shows an item where it belongs, from what was kept: the root
// routes it by kind (research to Research, a search to Search, pages,
// crawls and maps to Pages).
func (p *Pane) open(it library.Item) tea.Cmd {
	return func() tea.Msg { return common.ShowKeptMsg{Item: it} }
}

// rerun runs the item's tool again with the inputs it was run with.
func (p *Pane) rerun(it library.Item) tea.Cmd {
	t := p.c.Tool(it.Tool)
	if t == nil {
		return errCmd(fmt.Errorf("run again: the gateway's tool list has no %s (yet)", it.Tool))
	}
	var inputs map[string]any
	if err := json.Unmarshal([]byte(it.Inputs), &inputs); err != nil || inputs == nil {
		return errCmd(fmt.Errorf("run again: item %d kept no inputs", it.ID))
	}
	tool := *t
	return func() tea.Msg { return common.RunToolMsg{Tool: tool, Inputs: inputs} }
}

type exportedMsg struct {
	path string
	err  error
}

// exportName is the file name offered for an item's export.
func exportName(it library.Item) string {
	name := strings.TrimSuffix(library.FileName(it.Title), ".md")
	if it.Kind == library.KindCrawl {
		return name
	}
	return name + ".md"
}

// export writes it to path; fresh (the offered name, accepted as it
// was) numbers the name past a file that exists.
func export(it library.Item, path string, fresh bool) tea.Cmd {
	return func() tea.Msg {
		if fresh {
			path = common.FreePath(path)
		}
		path, err := library.Export(it, path, "")
		return exportedMsg{path: path, err: err}
	}
}
