package ui

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
)

// palette is the command palette: type part of a tool's slug, name or
// description, or a pane's name; enter opens the tool's generated form or
// shows the pane.
type palette struct {
	m      *Model
	input  textinput.Model
	cursor int
	offset int // first item drawn, for clicks
	items  []paletteItem
}

type paletteItem struct {
	label, detail string
	slug          string // a tool, or "" for a pane
	pane          int
	msg           tea.Msg // an action of hark's own (the local index), when set
}

func newPalette(m *Model) *palette {
	in := common.NewInput(m.c.Styles)
	in.Prompt = ": "
	in.Placeholder = "run a tool or go to a pane…"
	in.SetWidth(max(10, m.width-8))
	p := &palette{m: m, input: in}
	p.filter()
	return p
}

func (p *palette) focus() tea.Cmd { return p.input.Focus() }

func (p *palette) all() []paletteItem {
	var out []paletteItem
	for _, t := range p.m.c.Tools {
		out = append(out, paletteItem{label: t.Slug, detail: common.OneLine(t.Name + " · " + t.Description), slug: t.Slug})
	}
	for i, pn := range p.m.panes {
		out = append(out, paletteItem{label: "go to " + pn.Title(), detail: fmt.Sprintf("pane %d", i+1), pane: i})
	}
	if p.m.c.Index != nil {
		out = append(out,
			paletteItem{label: "index a folder, URL or sitemap", detail: "add pages to the embedded gateway's search index", msg: common.IndexMsg{}},
			paletteItem{label: "index sources", detail: "what the local index holds: re-index or remove", msg: common.IndexMsg{Sources: true}})
	}
	return out
}

// filter keeps the items matching what was typed, those whose name
// matches first: "index" is the index's own entry before the search
// tool whose description says "pages this gateway has indexed".
func (p *palette) filter() {
	items := common.Filter(p.all(), p.input.Value(), func(it paletteItem) string { return it.label + " " + it.detail })
	byName := common.Filter(items, p.input.Value(), func(it paletteItem) string { return it.label })
	if len(byName) < len(items) {
		named := make(map[string]bool, len(byName))
		for _, it := range byName {
			named[it.label] = true
		}
		for _, it := range items {
			if !named[it.label] {
				byName = append(byName, it)
			}
		}
		items = byName
	}
	p.items = items
	p.list().Clamp()
}

func (p *palette) update(msg tea.Msg) tea.Cmd {
	if km, ok := msg.(tea.KeyPressMsg); ok {
		switch km.String() {
		case "esc":
			p.m.palette = nil
			return nil
		case "up", "ctrl+p":
			p.list().Move(-1)
			return nil
		case "down", "ctrl+n", "tab":
			p.list().Move(1)
			return nil
		case "enter":
			return p.choose()
		}
	}
	var cmd tea.Cmd
	p.input, cmd = p.input.Update(msg)
	p.filter()
	return cmd
}

// list is the cursor over the items matching the input.
func (p *palette) list() common.List { return common.NewList(&p.cursor, &p.offset, len(p.items)) }

func (p *palette) choose() tea.Cmd {
	if p.cursor < 0 || p.cursor >= len(p.items) {
		return nil
	}
	it := p.items[p.cursor]
	p.m.palette = nil
	if it.msg != nil {
		msg := it.msg
		return func() tea.Msg { return msg }
	}
	if it.slug == "" {
		p.m.goTo(it.pane)
		return nil
	}
	slug := it.slug
	return func() tea.Msg { return common.EditToolMsg{Slug: slug} }
}

// noMatch explains an empty list: which tools the gateway has, or that the
// list is still loading.
func (p *palette) noMatch() string {
	q := strings.TrimSpace(p.input.Value())
	switch {
	case p.m.loading:
		return fmt.Sprintf("No pane matches %q, and the tool list is still loading: wait a moment.", q)
	case len(p.m.c.Tools) == 0:
		return fmt.Sprintf("No pane matches %q, and the gateway listed no tools.", q)
	}
	slugs := make([]string, len(p.m.c.Tools))
	for i, t := range p.m.c.Tools {
		slugs[i] = t.Slug
	}
	return fmt.Sprintf("The gateway has no tool matching %q. Its tools: %s. Backspace to edit, esc closes.", q, strings.Join(slugs, ", "))
}

func (p *palette) click(msg tea.MouseClickMsg) tea.Cmd {
	// Below the tab line, the title, the input and a blank line.
	if again, ok := p.list().Click(msg.Y - 4); ok && again {
		return p.choose()
	}
	return nil
}

func (p *palette) view(w, h int) string {
	s := p.m.c.Styles
	lines := []string{s.Title.Render("Command palette") + s.Dim.Render("  enter opens · esc closes"), p.input.View(), ""}
	if len(p.items) == 0 {
		lines = append(lines, s.Warn.Render(common.Wrap(p.noMatch(), w)))
	}
	start, end := p.list().Pin(h - len(lines))
	for i := start; i < end; i++ {
		it := p.items[i]
		cur, ls := "  ", s.Text
		if i == p.cursor {
			cur, ls = s.Key.Render("▌ "), s.Selected
		}
		lines = append(lines, common.Truncate(cur+ls.Render(it.label)+"  "+s.Dim.Render(it.detail), w))
	}
	if p.m.toolsErr != nil && len(p.m.c.Tools) == 0 {
		lines = append(lines, "", common.ErrorView(s, p.m.toolsErr, w))
	}
	return common.Fit(strings.Join(lines, "\n"), w, h)
}
