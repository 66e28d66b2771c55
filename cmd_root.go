package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/config"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // anything else: local files, I/O
	exitUsage   = 2
	exitAuth    = 3
	exitGateway = 4
	exitTimeout = 5
	// exitInterrupted is the shell's convention for SIGINT.
	exitInterrupted = 130
)

// usageError marks an error as the caller's mistake (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// exitCode maps an error onto hark's exit codes.
func exitCode(err error) int {
	var ae *api.Error
	var se *api.StreamError
	switch {
	case err == nil:
		return exitOK
	case errors.Is(err, api.ErrResearchTimeout), errors.Is(err, context.DeadlineExceeded):
		return exitTimeout
	case errors.As(err, &ae) && ae.Auth():
		return exitAuth
	case errors.As(err, new(usageError)), isCobraUsage(err):
		return exitUsage
	case errors.As(err, &ae):
		if ae.HTTPStatus == 408 || ae.HTTPStatus == 504 || ae.Code == 408 || ae.Code == 504 {
			return exitTimeout
		}
		return exitGateway
	case errors.As(err, &se):
		if isTimeoutErr(se.Err) {
			return exitTimeout
		}
		return exitGateway
	case errors.Is(err, context.Canceled):
		return exitInterrupted
	case isNetErr(err):
		if isTimeoutErr(err) {
			return exitTimeout
		}
		return exitGateway
	}
	return exitFailure
}

func isTimeoutErr(err error) bool {
	var t interface{ Timeout() bool }
	return err != nil && errors.As(err, &t) && t.Timeout()
}

// isCobraUsage recognises cobra's own argument and flag errors, which are
// plain errors.
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "required flag", "accepts ", "requires at least", "if any flags in the group"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// errorText is the message shown for err, with the trace_id on its own
// line when the gateway gave one.
func errorText(err error) string {
	msg := err.Error()
	var ae *api.Error
	if errors.As(err, &ae) && ae.TraceID != "" && !strings.Contains(msg, ae.TraceID) {
		msg += "\ntrace_id: " + ae.TraceID
	}
	switch {
	case errors.Is(err, api.ErrCredentialsMissing):
		msg += "\nhint: the gateway has no credentials for this vendor in your workspace; its operator must configure them"
	case errors.As(err, &ae) && ae.Auth():
		msg += "\nhint: check the API key (HARK_API_KEY, or api_key in the config profile; 'hark config' shows which is used)"
	case errors.Is(err, api.ErrRateLimited) && ae != nil && ae.RetryAfter > 0:
		msg += fmt.Sprintf("\nhint: the gateway asks to wait %v before trying again", ae.RetryAfter)
	}
	return msg
}

func newRootCmd(a *app) *cobra.Command {
	// Run the root's settings hook even when a subcommand (serve, index)
	// has its own.
	cobra.EnableTraverseRunHooks = true
	root := &cobra.Command{
		Use:   "hark",
		Short: "Search the web and speak with the gateway, from a TUI or scripts",
		Long: `hark talks to a web search and speech gateway (search, extract, crawl, map,
research, text to speech, speech to text). Run bare, it opens the TUI; the
subcommands are for scripts. With no base URL configured it runs the gateway
embedded in hark itself.`,
		Version:       api.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for hark", args[0])
			}
			return nil
		},
		PersistentPreRunE: func(cmd *cobra.Command, args []string) error {
			if cmd.Name() == "completion" || cmd.HasParent() && cmd.Parent().Name() == "completion" || cmd.Name() == "__complete" {
				return nil
			}
			return a.load(cmd.Context())
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if tuiMain == nil {
				return errors.New("this build of hark has no TUI; see 'hark --help' for the commands")
			}
			return tuiMain(cmd.Context(), a)
		},
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.ConfigFile, "config", "", "config file (default $XDG_CONFIG_HOME/hark/config.toml; env HARK_CONFIG)")
	pf.StringVarP(&a.flags.Profile, "profile", "p", "", "config profile (env HARK_PROFILE)")
	pf.StringVar(&a.flags.BaseURL, "base-url", "", "gateway base URL; empty runs the embedded gateway (env HARK_BASE_URL)")
	pf.StringVar(&a.flags.APIKey, "api-key", "", "API key (prefer env HARK_API_KEY: flags are visible to other users in ps)")
	pf.StringVar(&a.flags.Provider, "provider", "", "voice provider (env HARK_PROVIDER, default vendor_speech)")
	pf.StringVar(&a.flags.Voice, "voice", "", "voice code for speech (env HARK_VOICE)")
	pf.StringVar(&a.flags.OutputDir, "output-dir", "", "where audio files are written (env HARK_OUTPUT_DIR)")
	pf.StringVar(&a.flags.DataDir, "data-dir", "", "embedded gateway data (env HARK_DATA_DIR, default $XDG_DATA_HOME/hark)")
	pf.StringVar(&a.flags.AudioSink, "audio-sink", "", "audio output: auto, device, file or null (env HARK_AUDIO_SINK)")
	pf.BoolVar(&a.jsonOut, "json", false, "print the gateway's raw data as JSON, for scripts")

	for _, mk := range []func(*app) *cobra.Command{
		newToolsCmd, newInvokeCmd, newSearchCmd, newExtractCmd, newCrawlCmd, newMapCmd, newResearchCmd,
		newVoicesCmd, newTTSCmd, newSTTCmd, newConfigCmd,
	} {
		root.AddCommand(mk(a))
	}
	for _, mk := range subcommands {
		if c := mk(a); c != nil {
			root.AddCommand(c)
		}
	}
	return root
}

// load reads the settings once, printing their warnings.
func (a *app) load(ctx context.Context) error {
	if a.cfg != nil {
		return nil
	}
	cfg, err := config.Load(ctx, a.flags)
	if err != nil {
		return usageError{err}
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(a.stderr, "hark: warning: "+w)
	}
	a.cfg = cfg
	return nil
}

// isNetErr recognises failures to reach the gateway at all.
func isNetErr(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe)
}
