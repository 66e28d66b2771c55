package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"sync"
	"sync/atomic"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
	"hark/config"
	"hark/ui"
	"hark/ui/common"
)

// runTUI runs the terminal UI: it turns the settings into a common.Common
// (client, styles, gateway description, audio) and runs the root model.
// Nothing in ui/ reads settings or the environment itself.

// logMu keeps lines the TUI's commands log from interleaving.
var logMu sync.Mutex

func runTUI(ctx context.Context, a *App) error {
	var prog atomic.Pointer[tea.Program]
	c := a.tuiCommon(&prog)
	return a.runProgram(ctx, &prog, ui.New(c))
}

// tuiCommon turns the settings into the common.Common every screen of
// hark is drawn with: client, styles, gateway description, audio; the
// program it runs in receives its streams' messages.
func (a *App) tuiCommon(prog *atomic.Pointer[tea.Program]) *common.Common {
	send := func(msg tea.Msg) {
		if p := prog.Load(); p != nil {
			p.Send(msg)
		}
	}
	// The status bar shows every call's trace_id and latency.
	a.onCall = func(ci api.CallInfo) { send(common.CallMsg(ci)) }

	gw := gatewayLabel(a.cfg.BaseURL, a.cfg.Profile)
	c := &common.Common{
		Styles:    common.NewStyles(true, a.getenv("NO_COLOR") != ""),
		Gateway:   gw,
		Provider:  a.cfg.Provider,
		Voice:     a.cfg.Voice,
		OutputDir: a.cfg.OutputDir,
		ZoteroURL: a.cfg.ZoteroURL,
		// A watch of a private page: allowed where the embedded gateway
		// reads them.
		AllowPrivate: a.cfg.AllowPrivate && a.cfg.BaseURL == "",
		Send:         send,
		// The embedded gateway starts after the first frame is drawn.
		Connect:    a.client,
		Trace:      a.phase,
		StartQuery: a.startQuery,
		Log: func(line string) {
			logMu.Lock()
			defer logMu.Unlock()
			fmt.Fprintln(a.logWriter(), line)
		},
	}
	// The library: results are kept by the client (keep.go); the TUI reads
	// it for the Library pane and research history, and hears of changes.
	c.Library, c.LibraryOff = a.library, !a.cfg.Library
	if a.cfg.BaseURL == "" {
		// The embedded gateway's index can be filled from the TUI.
		c.Index = &localIndex{a: a}
	}
	a.lib.changed = func() { send(common.LibraryChangedMsg{}) }
	a.lib.warn = func(msg string) { send(common.ErrorMsg{Err: errors.New(msg)}) }
	c.Audio, c.AudioState = lazyAudio(audio.Options{
		Sink: a.cfg.AudioSink,
		// Audio played with no sound device is a bounded cache; w saves
		// a file where the user asks.
		Dir:  a.cfg.PlayedDir(),
		Keep: config.PlayedKeep,
	}, a.logWriter)

	// api_key_command runs while the TUI draws: its stderr must not
	// reach the screen.
	a.cfg.KeyCommandStderr = lazyWriter(a.logWriter)
	return c
}

// runProgram runs model full-screen until it quits.
func (a *App) runProgram(ctx context.Context, prog *atomic.Pointer[tea.Program], model tea.Model) error {
	// main turns SIGINT and SIGTERM into ctx's end already. Bubble Tea's
	// own handler would race it: having taken the signal, it blocks
	// sending a quit message that no one reads once ctx has ended, and
	// the program then never exits.
	opts := []tea.ProgramOption{tea.WithContext(ctx), tea.WithoutSignalHandler()}
	if a.hooks.tui != nil {
		var more []tea.ProgramOption
		model, more = a.hooks.tui(model)
		opts = append(opts, more...)
	}
	p := tea.NewProgram(model, opts...)
	prog.Store(p)
	_, err := p.Run()
	if errors.Is(err, tea.ErrProgramKilled) && ctx.Err() != nil {
		return nil // interrupted by a signal: a normal way out
	}
	var pathErr *fs.PathError
	if errors.As(err, &pathErr) && pathErr.Path == "/dev/tty" {
		// Run from a pipe, cron or a service: say what to do instead.
		return targetError{fmt.Errorf("the TUI needs a terminal, and %s cannot be opened here; run a command instead (hark search QUERY, hark --help)", pathErr.Path)}
	}
	if err != nil {
		return fmt.Errorf("tui: %w", err)
	}
	return nil
}

// lazyAudio opens the sound output with opts on first use; diagnostics go
// to the log (LogFile), never to the terminal the TUI draws on.
func lazyAudio(opts audio.Options, log func() io.Writer) (open func() (*audio.Output, error), state func() string) {
	var (
		mu     sync.Mutex
		out    *audio.Output
		err    error
		opened bool
	)
	open = func() (*audio.Output, error) {
		mu.Lock()
		defer mu.Unlock()
		if !opened {
			opened = true
			o := opts
			if o.Log == nil {
				o.Log = log()
			}
			out, err = audio.Open(o)
		}
		return out, err
	}
	state = func() string {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case !opened:
			s := opts.Sink
			if s == "" {
				s = "auto"
			}
			return "audio " + s + ", idle"
		case err != nil:
			return "audio unavailable"
		}
		return out.Describe()
	}
	return open, state
}

// gatewayLabel describes the gateway for the status bar: the embedded one
// (which serves the single workspace "local"), or the URL without any
// user information, with the settings profile when one is chosen (the
// workspace of a remote gateway follows from the API key, which is never
// shown).
func gatewayLabel(base, profile string) string {
	if base == "" {
		return "embedded · workspace local"
	}
	label := base
	if u, err := url.Parse(base); err == nil && u.Host != "" {
		u.User = nil
		label = u.Redacted()
	}
	if profile != "" && profile != config.DefaultProfile {
		label += " · profile " + profile
	}
	return label
}
