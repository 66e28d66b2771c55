package cli

import (
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// LogFile is hark's own log (start-up phases at debug level, audio
// diagnostics and ALSA noise) inside the data directory, next to the
// embedded gateway's: the TUI owns the terminal, so none of it may reach
// the screen.
const LogFile = "hark.log"

// hlog is LogFile, opened on first use.
type hlog struct {
	once sync.Once
	f    *os.File
	err  error
}

// file opens (creating) LogFile in dataDir for appending, once; it is kept
// open for the process's life.
func (l *hlog) file(dataDir string) (*os.File, error) {
	l.once.Do(func() { l.f, l.err = openLog(dataDir) })
	return l.f, l.err
}

// openLog opens (creating) LogFile in dataDir for appending.
func openLog(dataDir string) (*os.File, error) {
	if dataDir == "" {
		return nil, errors.New("no data directory")
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return nil, err
	}
	return os.OpenFile(filepath.Join(dataDir, LogFile), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
}

// logWriter is LogFile as a writer, or io.Discard when it cannot be opened.
func (a *App) logWriter() io.Writer {
	if a.cfg == nil {
		return io.Discard
	}
	f, err := a.log.file(a.cfg.DataDir)
	if err != nil {
		return io.Discard
	}
	return f
}

// lazyWriter writes to the writer it returns, asked for at each write: a
// log file then opens only when something is written.
type lazyWriter func() io.Writer

func (w lazyWriter) Write(p []byte) (int, error) { return w().Write(p) }

// phase records that start-up reached a phase, with the milliseconds
// since Run began and since the previous phase, at debug level in
// LogFile (log_level = "debug"), so that a slow start can be told apart.
// At other levels it costs nothing and opens no file.
func (a *App) phase(name string) {
	if a.cfg == nil || a.cfg.LogLevel != "debug" {
		return
	}
	a.phaseMu.Lock()
	now := time.Now()
	since, prev := now.Sub(a.begun), now.Sub(a.lastPhase)
	a.lastPhase = now
	a.phaseMu.Unlock()
	slog.New(slog.NewTextHandler(a.logWriter(), &slog.HandlerOptions{Level: slog.LevelDebug})).
		Debug("start-up", "phase", name, "at_ms", ms(since), "step_ms", ms(prev), "pid", os.Getpid())
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
