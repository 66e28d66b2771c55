package common

import (
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
)

// Common is handed to every pane instead of package-level globals.
type Common struct {
	// Client talks to the gateway (embedded or remote) over HTTP and WebSocket.
	Client *api.Client
	// Styles is built once from the terminal's background (and NO_COLOR).
	Styles *Styles
	// Gateway describes the gateway for the status bar: "embedded" or its URL.
	Gateway string
	// Provider and Voice are the configured default voice provider and voice.
	Provider, Voice string
	// OutputDir is where exports and saved audio go.
	OutputDir string
	// Audio opens the sound output lazily (the first call opens the device
	// or falls back to a file sink); it is safe to call from a tea.Cmd.
	Audio func() (*audio.Output, error)
	// Send delivers a message to the running program from a goroutine, for
	// streams that report progress (tea.Program.Send). Nil in unit tests.
	Send func(tea.Msg)
}
