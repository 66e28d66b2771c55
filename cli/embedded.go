package cli

import (
	"context"
	"errors"
	"io/fs"
	"log/slog"
	"net"
	"os"

	tea "charm.land/bubbletea/v2"

	gwconfig "hark/gateway/config"
	"hark/gateway/embedded"
	"hark/gateway/model"
	"hark/gateway/web"
)

// When no base URL is configured, hark runs the gateway in-process on
// 127.0.0.1 with a fresh key (package gateway/embedded), and talks to it
// over real HTTP and WebSocket like to any other gateway. Its web engine
// reads private and loopback addresses only when allow_private is set.
//
// The data directory is opened once per process (a.localData): the
// embedded gateway serves it, and `hark index` and the TUI's Index pane
// write to the same web engine the gateway's search reads. Nothing opens
// gateway.db a second time.

// hooks are the App's seams for tests; the zero value is the real thing.
type hooks struct {
	// startGateway runs the embedded gateway and returns its address, the
	// key it accepts and a stop function (default a.runEmbedded).
	startGateway func(ctx context.Context) (baseURL, apiKey string, stop func(), err error)
	// openLocal opens the data directory (default embedded.Open).
	openLocal func(dataDir string, opts embedded.Options) (*embedded.Local, error)
	// getenv reads the environment (default os.Getenv), so that tests
	// can run side by side, each with its own.
	getenv func(string) string
	// background runs the command line again in a process of its own
	// that outlives this one (runInBackground): a job detached from the
	// embedded gateway runs there. Run sets it; the in-process tests do
	// not, and their detached jobs wait for the next hark.
	background func(ctx context.Context) error
	// tui, when set, wraps the TUI's model and adds program options (no
	// input, an output and a window size), so that the TUI runs with no
	// terminal.
	tui func(tea.Model) (tea.Model, []tea.ProgramOption)
}

// getenv is the environment hark reads: settings, NO_COLOR, GLAMOUR_STYLE.
func (a *App) getenv(k string) string {
	if a.hooks.getenv != nil {
		return a.hooks.getenv(k)
	}
	return os.Getenv(k)
}

// runEmbedded serves the data directory's gateway on a loopback port.
func (a *App) runEmbedded(ctx context.Context) (baseURL, apiKey string, stop func(), err error) {
	l, err := a.localData()
	if err != nil {
		return "", "", nil, err
	}
	g, err := l.Serve()
	var netErr *net.OpError
	if errors.As(err, &netErr) {
		return "", "", nil, upstreamError{err} // no loopback port to listen on: exit 4
	}
	if err != nil {
		return "", "", nil, dataError{err}
	}
	return g.URL, g.APIKey, g.Stop, nil
}

// localData is the data directory, opened on first use and closed by
// a.close after the gateway served from it has stopped.
func (a *App) localData() (*embedded.Local, error) {
	a.localMu.Lock()
	defer a.localMu.Unlock()
	if a.local != nil {
		return a.local, nil
	}
	if a.localClosed {
		return nil, errors.New("hark is closing")
	}
	if a.cfg == nil {
		return nil, errors.New("settings are not loaded")
	}
	open := a.hooks.openLocal
	if open == nil {
		open = embedded.Open
	}
	// The engines' first-use work (the voice catalogue, the web index)
	// shows in hark.log.
	writer, err := a.localModel(context.Background())
	if err != nil {
		return nil, usageError{err}
	}
	voices, err := a.voiceProviders()
	if err != nil {
		return nil, usageError{err}
	}
	l, err := open(a.cfg.DataDir, embedded.Options{AllowPrivate: a.cfg.AllowPrivate, Trace: a.phase, Model: writer, Voices: voices})
	switch {
	case err == nil:
	case errors.As(err, new(*fs.PathError)):
		return nil, err // the data directory cannot be written: exit 2, naming it
	default:
		return nil, dataError{err} // gateway.db damaged or locked: exit 6
	}
	a.local = l
	return l, nil
}

// localWeb is the local web engine: the embedded gateway's own, whether
// or not the gateway is serving yet.
func (a *App) localWeb() (*web.Engine, error) {
	l, err := a.localData()
	if err != nil {
		return nil, err
	}
	e, err := l.Web()
	if err != nil {
		return nil, dataError{err}
	}
	return e, nil
}

// closeLocal closes the data directory, once whatever served it stopped.
func (a *App) closeLocal() {
	a.localMu.Lock()
	defer a.localMu.Unlock()
	a.localClosed = true
	if a.local != nil {
		a.local.Close()
		a.local = nil
	}
}

// modelSettings are the embedded gateway's model settings: the [model]
// section of gateway.toml (the default path), then HARK_MODEL_*.
func (a *App) modelSettings() (gwconfig.Model, error) {
	var m gwconfig.Model
	if p, err := gwconfig.PathFrom(a.getenv); err == nil {
		if m, err = gwconfig.ModelOf(p); err != nil {
			return m, err
		}
	}
	m = m.WithEnv(a.getenv)
	return m, m.Validate()
}

// voiceProviders are the embedded gateway's voice providers beside
// vendor_speech: gateway.toml's [voice.<code>] sections.
func (a *App) voiceProviders() (map[string]gwconfig.Voice, error) {
	p, err := gwconfig.PathFrom(a.getenv)
	if err != nil {
		return nil, nil
	}
	return gwconfig.VoicesOf(p)
}

// localModel is the embedded gateway's model client, nil without one.
func (a *App) localModel(ctx context.Context) (*model.Client, error) {
	m, err := a.modelSettings()
	if err != nil {
		return nil, err
	}
	return embedded.ModelClient(ctx, m, a.modelLog())
}

// modelLog is the model client's log: hark.log at the configured level,
// so that prompts and passages are written only with log_level = "debug".
func (a *App) modelLog() *slog.Logger {
	level := slog.LevelInfo
	if a.cfg != nil && a.cfg.LogLevel == "debug" {
		level = slog.LevelDebug
	}
	return slog.New(slog.NewTextHandler(lazyWriter(a.logWriter), &slog.HandlerOptions{Level: level}))
}
