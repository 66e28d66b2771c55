package libview

// w asks how often to read the item's pages again before watching them:
// a line offering 1d, which enter accepts and typing changes (30m, 12h,
// 1w: the intervals hark watch add --every takes).

import (
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"hark/api"
	"hark/library"
	"hark/ui/common"
)

// everyPrompt is the line w opens: the interval, and the item it is for.
type everyPrompt struct {
	input   textinput.Model
	item    *library.Item
	refused string // why enter did not watch: the interval's rule
}

func (e *everyPrompt) active() bool { return e.item != nil }

// open offers the default interval for it.
func (e *everyPrompt) open(it library.Item, st *common.Styles) tea.Cmd {
	if e.input.CharLimit == 0 {
		e.input = textinput.New()
		e.input.Prompt = ""
		e.input.CharLimit = 8
	}
	e.input.SetStyles(st.InputStyles())
	e.input.SetValue(api.EveryText(api.DefaultWatchEvery))
	e.input.CursorEnd()
	e.item, e.refused = &it, ""
	return e.input.Focus()
}

func (e *everyPrompt) close() {
	e.item, e.refused = nil, ""
	e.input.Blur()
}

// key handles a key while the line is open: enter with a valid interval
// returns the item and the interval to watch it at; esc closes.
func (e *everyPrompt) key(msg tea.KeyPressMsg) (it library.Item, every string, ok bool, cmd tea.Cmd) {
	switch msg.String() {
	case "esc":
		e.close()
		return library.Item{}, "", false, nil
	case "enter":
		v := e.input.Value()
		if _, err := api.ParseEvery(v); err != nil {
			e.refused = err.Error()
			return library.Item{}, "", false, nil
		}
		it = *e.item
		e.close()
		return it, v, true, nil
	}
	e.refused = ""
	e.input, cmd = e.input.Update(msg)
	return library.Item{}, "", false, cmd
}

func (e *everyPrompt) view(st *common.Styles, w int) string {
	label := "▶ watch every "
	e.input.SetWidth(max(4, min(10, w-lipgloss.Width(label)-1)))
	help := st.Dim.Render(common.Truncate("30m, 12h, 1d, 1w… (1m to 52w) · enter watches · esc cancels", w))
	if e.refused != "" {
		help = st.Err.Render(common.Truncate("✗ "+e.refused, w))
	}
	return st.Selected.Render(label) + e.input.View() + "\n" + help
}
