package cli

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/config"
)

var traverseHooks sync.Once

func newRootCmd(a *App) *cobra.Command {
	// Run the root's settings hook even when a subcommand (serve, index)
	// has its own. A cobra global: set once, not by every run (tests run
	// commands side by side).
	traverseHooks.Do(func() { cobra.EnableTraverseRunHooks = true })
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
			return runTUI(cmd.Context(), a)
		},
	}
	root.Flags().StringVar(&a.startQuery, "search", "", "open the TUI on Search with the results of this query")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error { return usageError{err} })
	pf := root.PersistentFlags()
	pf.StringVar(&a.flags.ConfigFile, "config", "", "config file (default $XDG_CONFIG_HOME/hark/config.toml; env HARK_CONFIG)")
	pf.StringVarP(&a.flags.Profile, "profile", "p", "", "config profile (env HARK_PROFILE)")
	pf.StringVar(&a.flags.BaseURL, "base-url", "", "gateway base URL; empty runs the embedded gateway (env HARK_BASE_URL)")
	pf.StringVar(&a.flags.APIKey, "api-key", "", "API key (prefer env HARK_API_KEY: flags are visible to other users in ps)")
	pf.StringVar(&a.flags.Provider, "provider", "", "voice provider (env HARK_PROVIDER, default vendor_speech)")
	pf.StringVar(&a.flags.Voice, "voice", "", "voice code for speech (env HARK_VOICE)")
	pf.StringVar(&a.flags.OutputDir, "output-dir", "", "where saved audio, reports and exports are written (env HARK_OUTPUT_DIR)")
	pf.StringVar(&a.flags.DataDir, "data-dir", "", "embedded gateway data (env HARK_DATA_DIR, default $XDG_DATA_HOME/hark)")
	pf.StringVar(&a.flags.AudioSink, "audio-sink", "", "audio output: auto, device, file or null (env HARK_AUDIO_SINK)")
	pf.BoolVar(&a.jsonOut, "json", false, "print the gateway's raw data as JSON, for scripts")
	root.RegisterFlagCompletionFunc("voice", a.completeVoices)
	root.RegisterFlagCompletionFunc("audio-sink", fixed(config.DefaultAudioSink, "device", "file", "null"))

	for _, mk := range []func(*App) *cobra.Command{
		newToolsCmd, newInvokeCmd, newSearchCmd, newExtractCmd, newCrawlCmd, newMapCmd, newResearchCmd,
		newVoicesCmd, newTTSCmd, newSTTCmd, newConfigCmd, newServeCmd, newIndexCmd, newLibraryCmd, newNotesCmd, newWatchCmd, newAuditionCmd, newDemoCmd, newReadCmd, newJobsCmd,
	} {
		root.AddCommand(mk(a))
	}
	markInterrupted(root)
	a.setHelp(root)
	return root
}

// markInterrupted makes every command's error after Ctrl-C (the context
// cancelled) an interruptedError, exit 130, however the part that broke
// words it: a stream, a site being indexed, a file half written.
func markInterrupted(c *cobra.Command) {
	if run := c.RunE; run != nil {
		c.RunE = func(cmd *cobra.Command, args []string) error {
			err := run(cmd, args)
			if ctx := cmd.Context(); err != nil && ctx != nil && errors.Is(ctx.Err(), context.Canceled) {
				return interruptedError{err}
			}
			return err
		}
	}
	for _, sub := range c.Commands() {
		markInterrupted(sub)
	}
}

// load reads the settings once, printing their warnings.
func (a *App) load(ctx context.Context) error {
	if a.cfg != nil {
		return nil
	}
	cfg, err := config.LoadWith(ctx, a.flags, a.getenv)
	if err != nil {
		return usageError{err}
	}
	for _, w := range cfg.Warnings {
		fmt.Fprintln(a.stderr, "hark: warning: "+w)
	}
	a.cfg = cfg
	a.phase("settings loaded")
	return nil
}
