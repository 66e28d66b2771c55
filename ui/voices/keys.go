package voices

import (
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"

	"hark/ui/common"
)

// sectionHelp is the help.KeyMap of one section.
type sectionHelp struct {
	short []key.Binding
	full  [][]key.Binding
}

func (h sectionHelp) ShortHelp() []key.Binding  { return h.short }
func (h sectionHelp) FullHelp() [][]key.Binding { return h.full }

var _ help.KeyMap = sectionHelp{}

// sectionKeys gives the help of section s from the voice studio's
// bindings.
func sectionKeys(k common.VoicesKeys, s Section, capturing bool) sectionHelp {
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
				{k.Mark, k.Audition, k.Blind, k.PickText, k.Replay, k.AB, k.Star, k.SaveSet},
				{k.Demo},
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
	case SectionDemo:
		return sectionHelp{short: []key.Binding{k.OpenDeck, k.PlayDeck, k.NextSection}, full: [][]key.Binding{{k.OpenDeck, k.PlayDeck}, nav}}
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
