// Package cli is hark's command line: one cobra command per file group
// (web tools, voice, config, serve, index, the TUI), all sharing one App
// that carries the settings, the gateway client, the output streams and the
// mapping of errors to exit codes. It wires the other packages together and
// holds no engine or screen logic of its own: requests go through api/,
// screens are ui/, and the embedded gateway is gateway/embedded.
package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"hark/api"
	"hark/config"
	"hark/gateway/embedded"
)

// App is what every command shares: the settings and, once connected, the
// gateway client, and where output goes.
type App struct {
	cfg   *config.Config
	flags config.Flags
	// jsonOut is --json: print the raw data for scripts.
	jsonOut bool
	// startQuery is --search: the TUI opens on Search with its results.
	startQuery string
	// onCall, when set before the first client call, observes every
	// gateway call (the TUI's status bar uses it).
	onCall func(api.CallInfo)
	// retry is the client's retry policy (zero: the defaults).
	retry api.RetryPolicy
	// jsonl is --jsonl: one result per line (search, extract, crawl).
	jsonl bool
	// detach is --detach of research and crawl, jobsAllowPrivate jobs's
	// --allow-private (jobs.go).
	detach, jobsAllowPrivate bool
	// question is the research question asked.
	question string
	// lib is the library results are kept in (see keep.go).
	lib libraryState
	// seen is what the last web call answered (see sites.go).
	seen resultSeen

	stdin          io.Reader
	stdout, stderr io.Writer

	// begun is when Run started; phase logs start-up against it.
	begun, lastPhase time.Time
	phaseMu          sync.Mutex
	keyPhase         sync.Once
	log              hlog

	hooks hooks

	// localMu guards the data directory opened once (see embedded.go).
	localMu     sync.Mutex
	local       *embedded.Local
	localClosed bool

	mu    sync.Mutex
	cl    *api.Client
	stops []func()
	// closed is set by close: a client asked for after it (a TUI command
	// still running as the program ends) starts nothing close would miss.
	closed bool
}

// client connects to the configured gateway, or starts the embedded one
// when no base URL is set. The embedded gateway is stopped by a.close.
func (a *App) client(ctx context.Context) (*api.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cl != nil {
		return a.cl, nil
	}
	if a.closed {
		return nil, errors.New("hark is closing")
	}
	if a.cfg == nil {
		return nil, errors.New("settings are not loaded")
	}
	base, key := a.cfg.BaseURL, a.cfg.APIKey
	var keyFunc func(context.Context) (string, error)
	if a.cfg.KeyFromCommand() {
		// Run on the first request, so the TUI draws (and shows the
		// gateway connecting) while a password manager answers.
		keyFunc = a.commandKey
	}
	if base == "" {
		start := a.hooks.startGateway
		if start == nil {
			start = a.runEmbedded
		}
		b, k, stop, err := start(ctx)
		if err != nil {
			return nil, fmt.Errorf("starting the embedded gateway: %w", err)
		}
		a.phase("embedded gateway listening")
		if stop != nil {
			a.stops = append(a.stops, stop)
		}
		base, key, keyFunc = b, k, nil
	}
	opts := api.Options{BaseURL: base, APIKey: key, KeyFunc: keyFunc, OnCall: a.onCall, Retry: a.retry, OnResult: a.observe}
	if a.cfg.BaseURL != "" {
		opts.Fallbacks = a.cfg.FallbackURLs
	}
	if a.cfg.Library {
		// Open the library while the first call is under way, not after;
		// close waits for it.
		a.lib.opening.Add(1)
		go func() {
			defer a.lib.opening.Done()
			a.library()
		}()
	}
	cl, err := api.New(opts)
	if err != nil {
		return nil, usageError{err}
	}
	a.cl = cl
	return cl, nil
}

// commandKey is the key api_key_command prints (config.Config.Key), its
// run logged as a start-up phase. A failure is the settings' fault: exit
// 2, naming the setting.
func (a *App) commandKey(ctx context.Context) (string, error) {
	k, err := a.cfg.Key(ctx)
	if err != nil && ctx.Err() != nil {
		return "", err
	}
	a.keyPhase.Do(func() {
		if err != nil {
			a.phase("api key command failed")
		} else {
			a.phase("api key command done")
		}
	})
	if err != nil {
		return "", usageError{err}
	}
	return k, nil
}

// close stops what client started, most recent first.
func (a *App) close() {
	a.mu.Lock()
	a.closed = true
	a.mu.Unlock()
	// The library's opening began under a.mu before closed was set, or
	// never will: Wait cannot race its Add. The opening adds the
	// library's own stop, so stops are taken after it.
	a.lib.opening.Wait()
	a.mu.Lock()
	stops := a.stops
	a.stops = nil
	a.mu.Unlock()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
	a.closeLocal()
}

func (a *App) configPathHint(c *config.Config) string {
	if c.File != "" {
		return c.File
	}
	return config.Path(a.getenv)
}

// scrub hides the API key in text about to be shown.
func (a *App) scrub(s string) string {
	if a.cfg != nil {
		if k := a.cfg.KnownKey(); len(k) >= 4 {
			s = strings.ReplaceAll(s, k, "****")
		}
	}
	if len(a.flags.APIKey) >= 4 {
		s = strings.ReplaceAll(s, a.flags.APIKey, "****")
	}
	return s
}

// Run executes one command line and returns the process's exit code.
func Run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := newApp(stdin, stdout, stderr)
	a.hooks.background = func(ctx context.Context) error { return runInBackground(ctx, args, stdin, stdout, stderr) }
	return a.run(ctx, args)
}

func newApp(stdin io.Reader, stdout, stderr io.Writer) *App {
	now := time.Now()
	return &App{stdin: stdin, stdout: stdout, stderr: stderr, begun: now, lastPhase: now}
}

// run is Run on an App tests may have given hooks.
func (a *App) run(ctx context.Context, args []string) int {
	defer a.close()
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetIn(a.stdin)
	root.SetOut(a.stdout)
	root.SetErr(a.stderr)
	cmd, err := root.ExecuteContextC(ctx)
	if err == nil {
		return exitOK
	}
	var ew exitWith
	if errors.As(err, &ew) {
		return ew.code // said already, by the background run
	}
	code := exitCode(err)
	switch {
	case code == exitInterrupted:
		// The user stopped it: "context canceled" says nothing more.
		fmt.Fprintln(a.stderr, "hark: interrupted")
	case a.cfg != nil && a.cfg.BaseURL != "" && api.Unreachable(err):
		fmt.Fprintf(a.stderr, "hark: the gateway at %s cannot be reached: %s\nhint: %s\n", a.scrub(a.cfg.BaseURL), netReason(err), api.UnreachableHint)
	default:
		fmt.Fprintln(a.stderr, "hark: "+a.scrub(errorText(err)))
	}
	if code == exitUsage && (errors.As(err, new(usageError)) || isCobraUsage(err)) {
		// A mistake in the command line itself; a file or an input the
		// gateway refused is named in the message already.
		// The help of the command that was run, where its flags are.
		path := "hark"
		if cmd != nil {
			path = cmd.CommandPath()
		}
		fmt.Fprintf(a.stderr, "Run '%s --help' for usage.\n", path)
	}
	return code
}
