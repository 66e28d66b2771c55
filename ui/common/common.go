package common

import (
	"context"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
	"hark/library"
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
	// ZoteroURL is Zotero's connector server, where highlights go.
	ZoteroURL string
	// AllowPrivate: the embedded gateway reads private and loopback
	// addresses, so a watch of one may be asked for.
	AllowPrivate bool
	// Audio opens the sound output lazily (the first call opens the device
	// or falls back to a file sink); it is safe to call from a tea.Cmd.
	Audio func() (*audio.Output, error)
	// Send delivers a message to the running program from a goroutine, for
	// streams that report progress (tea.Program.Send). Nil in unit tests.
	Send func(tea.Msg)

	// Connect, when Client is nil, connects to the gateway (starting the
	// embedded one if needed). The root calls it in a command after the
	// first frame, so the screen appears before the gateway is up.
	Connect func(ctx context.Context) (*api.Client, error)

	// AudioState describes the sound output for the status bar without
	// opening it ("not opened" until something plays). Nil hides it.
	AudioState func() string
	// Tools is the runtime tool list, once known (ToolsMsg fills it).
	Tools []api.Tool
	// Clock replaces time.Now in tests (elapsed times in golden views).
	Clock func() time.Time
	// Trace, when set, is told each start-up phase the root reaches
	// ("first frame", "gateway connected", "tool list loaded"), for the
	// start-up log. It must return at once.
	Trace func(phase string)
	// Log, when set, writes a line to hark.log: what is for diagnosis, not
	// for the screen (a recording tool's raw error). It must be safe to
	// call from commands.
	Log func(line string)
	// Library opens the library (the first call opens it; nil when the
	// client has none). LibraryOff says keeping is turned off (library =
	// false): what was kept before can still be read.
	Library    func() (*library.Store, error)
	LibraryOff bool
	// Index is the local search index when the gateway is the embedded
	// one (nil otherwise).
	Index Indexer

	// Record opens the microphone for dictation (s16le mono at 16 kHz);
	// nil means audio.Record. A test gives it a file instead.
	Record func(ctx context.Context) (io.ReadCloser, error)

	// dictations and readings number dictations and read-aloud runs
	// across panes (their messages are broadcast); touched in Update only.
	dictations, readings int
	// keys are the bindings (see Keys).
	keys *KeyMaps
	// sound is the one playback at a time, whichever pane started it
	// (see ClaimSound).
	sound sound
	// StartQuery, when set, is searched for as soon as the tool list
	// arrives (hark --search QUERY), so the first frame with content
	// shows its results.
	StartQuery string
}

// Logf writes a line to the log, if there is one.
func (c *Common) Logf(format string, args ...any) {
	if c.Log != nil {
		c.Log(fmt.Sprintf(format, args...))
	}
}

// TracePhase reports a start-up phase to Trace, if set.
func (c *Common) TracePhase(phase string) {
	if c.Trace != nil {
		c.Trace(phase)
	}
}

// Tool returns the runtime tool called slug, or nil.
func (c *Common) Tool(slug string) *api.Tool {
	for i := range c.Tools {
		if c.Tools[i].Slug == slug {
			return &c.Tools[i]
		}
	}
	return nil
}

// Enum returns the allowed values of a tool's field from the runtime list,
// or nil when the tool or field is unknown or has no enum.
func (c *Common) Enum(slug, field string) []string {
	if t := c.Tool(slug); t != nil {
		if f := t.Input(field); f != nil {
			return f.Enum
		}
	}
	return nil
}

// ReadingRun is the number of the last read-aloud run started (for tests
// that feed its messages by hand).
func (c *Common) ReadingRun() int { return c.readings }
