// Command hark is a terminal client for the web search and speech gateway:
// a TUI when run bare, and scriptable subcommands for everything the
// gateway offers. main.go wires settings, the client and the commands; the
// work happens in api/, config/, gateway/ and ui/.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/config"
)

// Hooks for the other root-package files.
var (
	// startEmbedded runs the embedded gateway on loopback and returns its
	// address, the key it accepts, and a stop function; set by embedded.go.
	startEmbedded func(ctx context.Context, cfg *config.Config) (baseURL, apiKey string, stop func(), err error)
	// tuiMain runs the TUI until the user quits; set by tui.go.
	tuiMain func(ctx context.Context, a *app) error
	// subcommands add commands (serve, index, ...); files append in init().
	subcommands []func(a *app) *cobra.Command
)

// app is what every command shares: the settings and, once connected, the
// gateway client.
type app struct {
	cfg   *config.Config
	flags config.Flags
	// jsonOut is --json: print the raw data for scripts.
	jsonOut bool
	// onCall, when set before the first client call, observes every
	// gateway call (the TUI's status bar uses it).
	onCall func(api.CallInfo)

	stdin          io.Reader
	stdout, stderr io.Writer

	mu    sync.Mutex
	cl    *api.Client
	stops []func()
}

// client connects to the configured gateway, or starts the embedded one
// when no base URL is set. The embedded gateway is stopped by a.close.
func (a *app) client(ctx context.Context) (*api.Client, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.cl != nil {
		return a.cl, nil
	}
	if a.cfg == nil {
		return nil, errors.New("settings are not loaded")
	}
	base, key := a.cfg.BaseURL, a.cfg.APIKey
	if base == "" {
		if startEmbedded == nil {
			return nil, usageError{errors.New("no gateway is configured: set HARK_BASE_URL or base_url in " + configPathHint(a.cfg) + " (this build has no embedded gateway)")}
		}
		b, k, stop, err := startEmbedded(ctx, a.cfg)
		if err != nil {
			return nil, fmt.Errorf("starting the embedded gateway: %w", err)
		}
		if stop != nil {
			a.stops = append(a.stops, stop)
		}
		base, key = b, k
	}
	cl, err := api.New(api.Options{BaseURL: base, APIKey: key, OnCall: a.onCall})
	if err != nil {
		return nil, usageError{err}
	}
	a.cl = cl
	return cl, nil
}

// close stops what client started, most recent first.
func (a *app) close() {
	a.mu.Lock()
	stops := a.stops
	a.stops = nil
	a.mu.Unlock()
	for i := len(stops) - 1; i >= 0; i-- {
		stops[i]()
	}
}

func configPathHint(c *config.Config) string {
	if c.File != "" {
		return c.File
	}
	return config.Path(os.Getenv)
}

// scrub hides the API key in text about to be shown.
func (a *app) scrub(s string) string {
	if a.cfg != nil && len(a.cfg.APIKey) >= 4 {
		s = strings.ReplaceAll(s, a.cfg.APIKey, "****")
	}
	if len(a.flags.APIKey) >= 4 {
		s = strings.ReplaceAll(s, a.flags.APIKey, "****")
	}
	return s
}

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	a := &app{stdin: stdin, stdout: stdout, stderr: stderr}
	defer a.close()
	root := newRootCmd(a)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err == nil {
		return exitOK
	}
	fmt.Fprintln(stderr, "hark: "+a.scrub(errorText(err)))
	code := exitCode(err)
	if code == exitUsage {
		fmt.Fprintln(stderr, "Run 'hark --help' for usage.")
	}
	return code
}
