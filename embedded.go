package main

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"sync"
	"time"

	"hark/api"
	"hark/config"
	"hark/gateway"
	"hark/gateway/engine"
	"hark/gateway/voice"
	"hark/gateway/web"
)

// The embedded gateway: when no base URL is configured, hark runs the
// gateway in-process on 127.0.0.1 with a fresh key, and talks to it over
// real HTTP and WebSocket like to any other gateway.

func init() { startEmbedded = runEmbedded }

// EmbeddedLogFile is where the embedded gateway logs, inside the data
// directory (the TUI owns the terminal).
const EmbeddedLogFile = "gateway.log"

func runEmbedded(ctx context.Context, cfg *config.Config) (baseURL, apiKey string, stop func(), err error) {
	key, err := gateway.NewAPIKey()
	if err != nil {
		return "", "", nil, err
	}
	db, err := gateway.OpenDB(cfg.DataDir)
	if err != nil {
		return "", "", nil, err
	}
	logf, err := os.OpenFile(filepath.Join(cfg.DataDir, EmbeddedLogFile), os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		db.Close()
		return "", "", nil, fmt.Errorf("embedded gateway log: %w", err)
	}
	logger := slog.New(slog.NewJSONHandler(logf, nil))
	eng := &localEngines{db: db, log: logger}
	gcfg := &gateway.Config{Workspaces: []gateway.WorkspaceConfig{gateway.LocalWorkspace(gateway.HashKey(key))}}
	srv, err := gateway.New(gateway.Options{Config: gcfg, DB: db, Engines: eng.engines(), Logger: logger})
	if err != nil {
		eng.Close()
		db.Close()
		logf.Close()
		return "", "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		eng.Close()
		db.Close()
		logf.Close()
		return "", "", nil, fmt.Errorf("embedded gateway: %w", err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		if err := srv.Serve(ln); err != nil {
			logger.Error("embedded gateway stopped", "error", err)
		}
	}()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			srv.Shutdown(sctx)
			<-served
			eng.Close()
			db.Close()
			logf.Close()
		})
	}
	return "http://" + ln.Addr().String(), key, stop, nil
}

// localEngines builds the engines a gateway config asks for, sharing one
// local web engine and one local voice provider across workspaces, and
// closes them at the end.
type localEngines struct {
	db           *sql.DB
	allowPrivate bool
	log          *slog.Logger

	mu       sync.Mutex
	web      *web.Engine
	voice    *voice.Local
	voiceErr error
}

func (l *localEngines) localWeb() (*web.Engine, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.web == nil {
		e, err := web.New(web.Config{DB: l.db, AllowPrivate: l.allowPrivate})
		if err != nil {
			return nil, err
		}
		l.web = e
	}
	return l.web, nil
}

func (l *localEngines) localVoice() (*voice.Local, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.voice == nil && l.voiceErr == nil {
		l.voice, l.voiceErr = voice.New(voice.Config{})
	}
	return l.voice, l.voiceErr
}

func (l *localEngines) engines() gateway.Engines {
	return gateway.Engines{
		Web: func(ws string, c gateway.SearchConfig) (engine.Web, error) {
			var local *web.Engine
			if c.Backend != gateway.BackendTavily {
				var err error
				if local, err = l.localWeb(); err != nil {
					return engine.Web{}, err
				}
			}
			return web.NewBackend(web.BackendConfig{Kind: c.Backend, URL: c.URL, APIKey: c.APIKey}, local)
		},
		Voice: func(ws, provider string, c gateway.VoiceConfig) (engine.VoiceProvider, error) {
			if c.Engine != "" && c.Engine != gateway.BackendLocal {
				l.log.Warn("voice engine not in this build", "workspace", ws, "provider", provider, "engine", c.Engine)
				return nil, nil
			}
			v, err := l.localVoice()
			if err != nil {
				// The gateway still starts; calls say why voice is missing.
				l.log.Warn("local voice engine unavailable", "error", err)
				return unavailableVoice{err}, nil
			}
			return v, nil
		},
	}
}

// Close closes the engines built.
func (l *localEngines) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	var errs []error
	if l.web != nil {
		errs = append(errs, l.web.Close())
	}
	if l.voice != nil {
		errs = append(errs, l.voice.Close())
	}
	return errors.Join(errs...)
}

// unavailableVoice answers every call with the reason the local voice
// engine could not start (e.g. espeak-ng is not installed).
type unavailableVoice struct{ err error }

func (u unavailableVoice) fail() error {
	return fmt.Errorf("local voice engine: %w: %v", engine.ErrUnavailable, u.err)
}

func (u unavailableVoice) Voices(context.Context) ([]api.Voice, error) { return nil, u.fail() }

func (u unavailableVoice) Synthesize(context.Context, api.TTSRequest, engine.AudioSink) (engine.Synthesis, error) {
	return engine.Synthesis{}, u.fail()
}

func (u unavailableVoice) Recognize(context.Context, api.STTRequest, io.Reader, func(engine.Transcript) error) error {
	return u.fail()
}
