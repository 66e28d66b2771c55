package voices

import (
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
)

// The Demo section performs demo decks on ui/demo's stage: D in the voice
// list, or o here, chooses a deck file in a file picker, and it plays at
// once; while it plays the stage has every key (space, n, r, w, q).

// openDeckPicker shows the Demo section with the deck picker open.
func (p *Pane) openDeckPicker() tea.Cmd {
	p.SetSection(SectionDemo)
	p.pickingDeck = true
	return p.deckPicker.Init()
}

func (p *Pane) pickDeckKey(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "esc" {
		p.pickingDeck = false
		return nil
	}
	var cmd tea.Cmd
	p.deckPicker, cmd = p.deckPicker.Update(msg)
	if ok, path := p.deckPicker.DidSelectFile(msg); ok {
		p.pickingDeck = false
		p.lastDeck = path
		return tea.Batch(cmd, p.stage.Open(path))
	}
	return cmd
}

func (p *Pane) demoKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys().Voices
	switch {
	case key.Matches(msg, k.OpenDeck):
		return p.openDeckPicker()
	case key.Matches(msg, k.PlayDeck) && p.lastDeck != "":
		return p.stage.Open(p.lastDeck)
	}
	return nil
}

// viewDemo is the stage while a deck is on it, else how to put one there.
func (p *Pane) viewDemo(w, h int) string {
	if p.stage.Active() {
		return p.stage.View()
	}
	st := p.styles()
	var b strings.Builder
	b.WriteString(st.Title.Render("Demo decks") + "\n")
	if p.pickingDeck {
		b.WriteString(st.Dim.Render("choose a deck (.toml) · enter plays it · esc cancels") + "\n")
		b.WriteString(st.Dim.Render(ansi.TruncateLeft(p.deckPicker.CurrentDirectory, max(0, ansi.StringWidth(p.deckPicker.CurrentDirectory)-w+1), "…")) + "\n")
		b.WriteString(p.deckPicker.View())
		return b.String()
	}
	intro := "A deck is a small TOML file of lines, each with its voice, speed and caption, and pauses. " +
		"It plays full screen, the caption large, the next line fetched while one plays. " +
		"Keys while it plays: space pause, n next line, r replay, w save the performance as one WAV, q stop."
	b.WriteString(wrap(intro, w) + "\n\n")
	b.WriteString(wrap("o chooses a deck file (docs/demo.md has the format; hark demo DECK.toml plays one from the command line)", w) + "\n")
	if p.lastDeck != "" {
		b.WriteString(wrap("enter plays "+p.lastDeck+" again", w) + "\n")
	}
	return b.String()
}
