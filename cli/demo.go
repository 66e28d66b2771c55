package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"hark/deck"
	"hark/ui/demo"
)

// hark demo plays a demo deck in front of people: each line in its
// voice, the caption large, the next line fetched while one plays.

func newDemoCmd(a *App) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "demo DECK.toml",
		Short: "Play a demo deck: lines in their voices, captions large; or save it as one WAV",
		Long: `demo plays DECK.toml full screen: each line spoken in its voice at its
speed, its caption shown large, the next line fetched while one plays, so
no gap opens between lines; pauses are silence. Keys: space pauses, n
goes to the next line, r replays the line, w saves the performance as
one WAV, q stops (q again quits). With no sound device (over SSH) the
screen says where the audio goes.

With -o FILE the whole deck is written to FILE as one WAV, nothing played.
The deck's format is in docs/demo.md.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usagef("demo: want one DECK.toml, got %d arguments", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			d, err := deck.Load(args[0])
			if err != nil {
				return usagef("demo: %v", err)
			}
			if out == "" {
				var prog atomic.Pointer[tea.Program]
				c := a.tuiCommon(&prog)
				return a.runProgram(ctx, &prog, demo.NewApp(c, args[0]))
			}
			if err := checkOutputParent(out); err != nil {
				return err
			}
			cl, err := a.client(ctx)
			if err != nil {
				return err
			}
			if _, err := d.Check(ctx, cl, a.cfg.Provider); err != nil {
				var mistake *deck.CheckError
				if errors.As(err, &mistake) {
					return usagef("demo: %s: %v", args[0], err)
				}
				return fromGateway(err)
			}
			show := deck.NewShow(d, cl, a.cfg.Provider)
			defer show.Close()
			var length time.Duration
			err = a.writeOutput(ctx, out, func(w io.Writer) error {
				rctx, cancel := context.WithTimeout(ctx, 10*time.Minute)
				defer cancel()
				length, err = show.Render(rctx, w, nil)
				return err
			})
			if err != nil {
				return fromGateway(err)
			}
			if out != "-" {
				fmt.Fprintf(a.stderr, "hark: wrote the deck's %s (%.1f s) to %s\n", plural(len(d.Lines), "line"), length.Seconds(), out)
			}
			return nil
		},
	}
	cmd.Flags().StringVarP(&out, "output", "o", "", "write the whole deck as one WAV to FILE instead of playing it")
	return cmd
}
