package voices

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
)

// KeyMap is every binding of the voice studio; the help shows those of the
// current section.
type KeyMap struct {
	PrevSection, NextSection key.Binding

	// Voices
	Up, Down, Home, End, PageUp, PageDown key.Binding
	Filter, ClearFilter, Order            key.Binding
	Preview, UseVoice, Reload             key.Binding
	Mark, Audition, Replay, AB, Star      key.Binding
	SaveSet, PickText                     key.Binding

	// Speak
	Edit, Done, Speak, SpeakNow key.Binding
	PrevControl, NextControl    key.Binding
	Less, More, Reset           key.Binding
	Transport, Pause            key.Binding

	// Listen and round trip
	OpenFile, Microphone, Recognise, Copy, Run key.Binding
	CopyPath                                   key.Binding

	Stop, Save key.Binding
}

// DefaultKeyMap avoids the keys the TUI shell keeps for itself (tab,
// shift+tab, q, ?, ctrl+c, the digits) so the pane never shadows them.
func DefaultKeyMap() KeyMap {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	return KeyMap{
		PrevSection: b([]string{"["}, "[", "prev section"),
		NextSection: b([]string{"]"}, "]", "next section"),

		Up:          b([]string{"up", "k"}, "↑/k", "up"),
		Down:        b([]string{"down", "j"}, "↓/j", "down"),
		Home:        b([]string{"home", "g"}, "g", "first"),
		End:         b([]string{"end", "G"}, "G", "last"),
		PageUp:      b([]string{"pgup"}, "pgup", "page up"),
		PageDown:    b([]string{"pgdown"}, "pgdn", "page down"),
		Filter:      b([]string{"/"}, "/", "filter"),
		ClearFilter: b([]string{"esc"}, "esc", "clear filter"),
		Order:       b([]string{"s"}, "s", "group/sort"),
		Preview:     b([]string{"p"}, "p", "preview"),
		Mark:        b([]string{"space"}, "space", "mark for audition"),
		Audition:    b([]string{"a"}, "a", "audition the marked"),
		Replay:      b([]string{"r"}, "r", "replay take"),
		AB:          b([]string{"b"}, "b", "A/B: b on two takes"),
		Star:        b([]string{"*"}, "*", "star take"),
		SaveSet:     b([]string{"W"}, "W", "save the set"),
		PickText:    b([]string{"t"}, "t", "audition text: a ready sentence"),
		UseVoice:    b([]string{"enter"}, "enter", "speak with voice"),
		Reload:      b([]string{"ctrl+r"}, "ctrl+r", "reload"),

		Edit:        b([]string{"e", "i"}, "e", "edit text"),
		Done:        b([]string{"esc"}, "esc", "done editing"),
		Speak:       b([]string{"enter"}, "enter", "speak"),
		SpeakNow:    b([]string{"ctrl+s", "alt+enter"}, "ctrl+s", "speak"),
		PrevControl: b([]string{"up", "k"}, "↑/k", "control"),
		NextControl: b([]string{"down", "j"}, "↓/j", "control"),
		Less:        b([]string{"left", "h", "-"}, "←/-", "less"),
		More:        b([]string{"right", "l", "+", "="}, "→/+", "more"),
		Reset:       b([]string{"0"}, "0", "reset control"),
		Transport:   b([]string{"t"}, "t", "stream/REST"),
		Pause:       b([]string{"space"}, "space", "pause"),

		OpenFile:   b([]string{"o"}, "o", "open file"),
		Microphone: b([]string{"m"}, "m", "record/stop mic"),
		Recognise:  b([]string{"enter"}, "enter", "recognise again"),
		Copy:       b([]string{"c"}, "c", "copy text"),
		CopyPath:   b([]string{"y"}, "y", "copy the saved audio file's path"),
		Run:        b([]string{"enter"}, "enter", "run round trip"),

		Stop: b([]string{"x"}, "x", "stop"),
		Save: b([]string{"w"}, "w", "save audio"),
	}
}

// sectionHelp is the help.KeyMap of one section.
type sectionHelp struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h sectionHelp) ShortHelp() []key.Binding  { return h.short }
func (h sectionHelp) FullHelp() [][]key.Binding { return h.full }

var _ help.KeyMap = sectionHelp{}

func (k KeyMap) help(s Section, capturing bool) sectionHelp {
	nav := []key.Binding{k.PrevSection, k.NextSection}
	switch s {
	case SectionVoices:
		if capturing {
			return sectionHelp{short: []key.Binding{k.UseVoice, k.ClearFilter}}
		}
		return sectionHelp{
			short: []key.Binding{k.Filter, k.Preview, k.UseVoice, k.Order, k.Stop, k.NextSection},
			full: [][]key.Binding{
				{k.Up, k.Down, k.Home, k.End, k.PageUp, k.PageDown},
				{k.Filter, k.ClearFilter, k.Order, k.Reload},
				{k.Preview, k.UseVoice, k.Stop},
				{k.Mark, k.Audition, k.PickText, k.Replay, k.AB, k.Star, k.SaveSet},
				nav,
			},
		}
	case SectionSpeak:
		if capturing {
			return sectionHelp{short: []key.Binding{k.Done, k.SpeakNow}}
		}
		return sectionHelp{
			short: []key.Binding{k.Edit, k.Speak, k.Less, k.More, k.Stop, k.Save},
			full: [][]key.Binding{
				{k.Edit, k.Speak, k.Stop, k.Pause, k.Save},
				{k.PrevControl, k.NextControl, k.Less, k.More, k.Reset, k.Transport},
				nav,
			},
		}
	case SectionListen:
		if capturing {
			return sectionHelp{short: []key.Binding{k.Done}}
		}
		return sectionHelp{
			short: []key.Binding{k.OpenFile, k.Microphone, k.Transport, k.Copy, k.Stop},
			full: [][]key.Binding{
				{k.OpenFile, k.Microphone, k.Recognise, k.Transport},
				{k.Copy, k.Stop},
				nav,
			},
		}
	default:
		if capturing {
			return sectionHelp{short: []key.Binding{k.Done, k.Run}}
		}
		return sectionHelp{
			short: []key.Binding{k.Edit, k.Run, k.Copy, k.Save, k.Stop},
			full: [][]key.Binding{
				{k.Edit, k.Run, k.Stop},
				{k.Copy, k.Save},
				nav,
			},
		}
	}
}
