package ui

import (
	"math/rand/v2"
	"testing"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// TestRandomKeysNeverPanic presses random keys, clicks and wheel turns at
// sizes down to a single cell, with data in every pane, and renders after
// each: nothing may panic, and every frame must fit the terminal.
func TestRandomKeysNeverPanic(t *testing.T) {
	keys := []string{"j", "k", "enter", "esc", "tab", "shift+tab", "1", "2", "3", "5", "?", ":", "/", "m", "e", "x",
		"s", "h", "w", "p", "o", "d", "t", "r", "+", "-", "a", "D", "f", "space", "left", "right", "up", "down",
		"pgup", "pgdown", "g", "G", "E", "C", "A", "c", "M", "y", "backspace", "z", "ctrl+k"}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, sz := range [][2]int{{80, 24}, {1, 1}, {20, 5}, {200, 60}} {
		srv := apitest.New(t)
		m := newModel(t, srv, sz[0], sz[1])
		m.c.OutputDir = t.TempDir()
		// Put data in every pane through the scripted gateway.
		settle := func(msg tea.Msg) {
			uitest.Settle(func(x tea.Msg) tea.Cmd { _, c := m.Update(x); return c }, func() tea.Cmd { _, c := m.Update(msg); return c }())
		}
		for _, k := range uitest.Type("zebra") {
			m.Update(k)
		}
		settle(uitest.Press("enter"))
		settle(common.OpenPagesMsg{URLs: []string{"https://a.test/x", "https://a.test/fail"}})
		settle(common.RunToolMsg{Tool: *m.c.Tool(api.ToolMap), Inputs: map[string]any{"url": "https://b.test"}})
		settle(common.RunToolMsg{Tool: *m.c.Tool(api.ToolResearch), Inputs: map[string]any{"input": "q"}})
		settle(common.EditToolMsg{Slug: api.ToolCrawl})
		settle(uitest.Press("esc"))
		for i := 0; i < 600; i++ {
			var msg tea.Msg
			switch rng.IntN(10) {
			case 0:
				msg = tea.MouseClickMsg{X: rng.IntN(sz[0] + 2), Y: rng.IntN(sz[1] + 2), Button: tea.MouseLeft}
			case 1:
				msg = tea.MouseWheelMsg{X: 1, Y: rng.IntN(sz[1] + 1), Button: tea.MouseWheelDown}
			default:
				k := keys[rng.IntN(len(keys))]
				if k == "ctrl+c" || k == "q" {
					continue
				}
				msg = uitest.Press(k)
			}
			if m.Active() == 3 { // the voice studio is tested in its own package
				m.active = 4
			}
			_, cmd := m.Update(msg)
			_ = cmd // commands would call the (absent) gateway; not run here
			out := m.Render()
			if n := len(splitLines(out)); sz[1] >= 2 && n != sz[1] {
				t.Fatalf("%v: frame has %d lines after %v", sz, n, msg)
			}
		}
		m.Update(common.RunToolMsg{Tool: api.Tool{Slug: "x"}, Inputs: nil})
	}
}

func splitLines(s string) []string {
	var out []string
	start := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '\n' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	return append(out, s[start:])
}
