// Package common holds what every pane of hark's TUI shares: the pane
// contract, the Common value handed to each pane (client, styles, settings,
// audio), and the styles built once from the terminal's background. It
// holds no package-level state, so that the TUI could be served per SSH
// session.
package common

import (
	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"
)

// Pane is one tab of the TUI. The root model owns the panes, computes the
// layout once per tea.WindowSizeMsg and pushes sizes down with SetSize.
// Mouse messages reach the active pane with Y relative to the pane's first
// row (the tab line is above it).
// A pane does no I/O in Update: network calls, audio and rendering run in
// tea.Cmds that report back with typed messages.
type Pane interface {
	// Title is the tab label.
	Title() string
	Init() tea.Cmd
	Update(msg tea.Msg) (Pane, tea.Cmd)
	// View renders the pane into exactly the size last given to SetSize.
	View() string
	SetSize(width, height int)
	// KeyMap gives the pane's bindings for the help view.
	KeyMap() help.KeyMap
	// Capturing reports that a text input has focus: the root then sends
	// every key to the pane and handles none itself (tab switching, quit
	// on q, the palette), except ctrl+c.
	Capturing() bool
}

// TextAreaPane is a pane that can give a multi-line text area the keys.
// While OwnsKeys is true the root hands it every key but ctrl+c, ctrl+k
// (the palette, which a text line gives way to) included: in a text area
// ctrl+k deletes to the end of the line.
type TextAreaPane interface {
	OwnsKeys() bool
}

// Rester is a pane that can say esc has nothing in it to close (a list
// with no filter, no reader, no line with a cursor). When another pane
// sent the user there (a search result, a research source opened in
// Pages), the root then takes esc back to that pane.
type Rester interface {
	Resting() bool
}

// DocumentShower is a pane that can show a document in a reader. While
// one is shown q closes it, as it leaves less; the root quits on q only
// from a pane's list.
type DocumentShower interface {
	ShowingDocument() bool
}

// KeyClaimer is a pane that, in some state, means a key the root would
// otherwise take: H, the root's "previous pane", selects a passage to
// highlight while a reader is shown, as its key line says.
type KeyClaimer interface {
	Claims(msg tea.KeyPressMsg) bool
}

// Shower is a pane that wants to know when it is shown (a digit, a tab,
// a click, or a message routed to it): the Library reloads then, so that
// what another hark process kept is listed. Shown must not block: work
// goes in the command it returns.
type Shower interface {
	Shown() tea.Cmd
}
