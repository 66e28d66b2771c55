package common

import (
	"image/color"

	"charm.land/bubbles/v2/textinput"
	"charm.land/lipgloss/v2"
)

// Styles are the TUI's styles. Build them once with NewStyles from the
// terminal's background; panes never build their own colours.
type Styles struct {
	Dark    bool
	NoColor bool

	Accent, Muted, Subtle, Error, Success, Warning color.Color

	Title      lipgloss.Style
	Text       lipgloss.Style
	Dim        lipgloss.Style
	Selected   lipgloss.Style
	Err        lipgloss.Style
	OK         lipgloss.Style
	Warn       lipgloss.Style
	Border     lipgloss.Style
	TabActive  lipgloss.Style
	TabIdle    lipgloss.Style
	StatusBar  lipgloss.Style
	Key        lipgloss.Style
	Label      lipgloss.Style
	FocusLabel lipgloss.Style
}

// NewStyles builds the styles for a dark or light background. With noColor
// every style is plain (NO_COLOR), keeping only bold and reverse for focus.
func NewStyles(dark, noColor bool) *Styles {
	ld := lipgloss.LightDark(dark)
	s := &Styles{Dark: dark, NoColor: noColor}
	s.Accent = ld(lipgloss.Color("#5A4FCF"), lipgloss.Color("#A99CFF"))
	s.Muted = ld(lipgloss.Color("#6B6B6B"), lipgloss.Color("#9A9A9A"))
	s.Subtle = ld(lipgloss.Color("#D0D0D0"), lipgloss.Color("#3A3A3A"))
	s.Error = ld(lipgloss.Color("#C0392B"), lipgloss.Color("#FF6B6B"))
	s.Success = ld(lipgloss.Color("#1E8449"), lipgloss.Color("#6BD98B"))
	s.Warning = ld(lipgloss.Color("#B9770E"), lipgloss.Color("#F5C26B"))
	if noColor {
		plain := lipgloss.NewStyle()
		s.Title, s.Text, s.Dim, s.Err, s.OK, s.Warn = plain.Bold(true), plain, plain, plain, plain, plain
		s.Selected = plain.Reverse(true)
		s.Border = plain.Border(lipgloss.NormalBorder())
		s.TabActive = plain.Bold(true).Reverse(true).Padding(0, 1)
		s.TabIdle = plain.Padding(0, 1)
		s.StatusBar, s.Key, s.Label = plain, plain.Bold(true), plain
		s.FocusLabel = plain.Bold(true)
		return s
	}
	s.Title = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Text = lipgloss.NewStyle()
	s.Dim = lipgloss.NewStyle().Foreground(s.Muted)
	s.Selected = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Err = lipgloss.NewStyle().Foreground(s.Error)
	s.OK = lipgloss.NewStyle().Foreground(s.Success)
	s.Warn = lipgloss.NewStyle().Foreground(s.Warning)
	s.Border = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(s.Subtle)
	s.TabActive = lipgloss.NewStyle().Bold(true).Foreground(s.Accent).Padding(0, 1).Underline(true)
	s.TabIdle = lipgloss.NewStyle().Foreground(s.Muted).Padding(0, 1)
	s.StatusBar = lipgloss.NewStyle().Foreground(s.Muted)
	s.Key = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	s.Label = lipgloss.NewStyle().Foreground(s.Muted)
	s.FocusLabel = lipgloss.NewStyle().Bold(true).Foreground(s.Accent)
	return s
}

// InputStyles are text input styles matching s. The cursor does not
// blink: a blinking cursor redraws twice a second, which costs bytes over
// SSH while nothing happens.
func (s *Styles) InputStyles() textinput.Styles {
	st := textinput.DefaultStyles(s.Dark)
	st.Cursor.Blink = false
	if s.NoColor {
		plain := lipgloss.NewStyle()
		st.Focused = textinput.StyleState{Text: plain, Placeholder: plain, Suggestion: plain, Prompt: plain.Bold(true)}
		st.Blurred = textinput.StyleState{Text: plain, Placeholder: plain, Suggestion: plain, Prompt: plain}
		st.Cursor.Color = nil
		return st
	}
	st.Focused.Prompt = s.Key
	st.Blurred.Prompt = s.Dim
	return st
}

// NewInput returns a text input styled with s.
func NewInput(s *Styles) textinput.Model {
	in := textinput.New()
	in.SetStyles(s.InputStyles())
	return in
}
