package common

import (
	"fmt"
	"time"

	"charm.land/bubbles/v2/spinner"
	tea "charm.land/bubbletea/v2"
)

// Progress is a spinner with the elapsed time of a running call.
type Progress struct {
	Label   string
	Started time.Time
	Active  bool
	spin    spinner.Model
}

// NewProgress returns an idle Progress.
func NewProgress() Progress {
	return Progress{spin: spinner.New(spinner.WithSpinner(spinner.MiniDot))}
}

// Start marks the call as running and starts the spinner.
func (p *Progress) Start(label string, now time.Time) tea.Cmd {
	wasActive := p.Active
	p.Label, p.Started, p.Active = label, now, true
	if wasActive {
		return nil // its ticks are already running; a second loop would double the speed
	}
	return p.spin.Tick
}

// Stop marks the call as finished.
func (p *Progress) Stop() { p.Active = false }

// Update advances the spinner on its own ticks only.
func (p *Progress) Update(msg tea.Msg) tea.Cmd {
	if t, ok := msg.(spinner.TickMsg); ok && p.Active && t.ID == p.spin.ID() {
		var cmd tea.Cmd
		p.spin, cmd = p.spin.Update(msg)
		return cmd
	}
	return nil
}

// View is "⠋ searching… 3.2s".
func (p *Progress) View(s *Styles, now time.Time) string {
	if !p.Active {
		return ""
	}
	el := now.Sub(p.Started)
	return s.Title.Render(p.spin.View()) + " " + p.Label + "… " + s.Dim.Render(Elapsed(el))
}

// Spinner is the spinner's current frame.
func (p *Progress) Spinner(s *Styles) string { return s.Title.Render(p.spin.View()) }

// Elapsed formats a duration as 3.2s or 1m05s.
func Elapsed(d time.Duration) string {
	if d < time.Minute {
		return fmt.Sprintf("%.1fs", d.Seconds())
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
