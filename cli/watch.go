package cli

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"hark/api"
	"hark/library"
)

func newWatchCmd(a *App) *cobra.Command {
	var allowPrivate bool
	cmd := &cobra.Command{
		Use:   "watch",
		Short: "Watch pages (or a report's sources) for changes: add, list, rm, check, diff",
		Long: `The gateway reads a watched page again when it falls due (and when hark
runs, on the embedded gateway), politely: robots.txt, a conditional
request (ETag, Last-Modified), backing off after failures. A change is
measured on the page's extracted text; hark watch diff prints it as a word
diff, with the highlights and report quotes it touches.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usagef("unknown command %q for hark watch", args[0])
			}
			return usagef("watch: want add, list, rm, check or diff")
		},
	}
	cmd.PersistentFlags().BoolVar(&allowPrivate, "allow-private", false, "let the embedded gateway read private and loopback addresses (and watch them)")
	client := func(ctx context.Context) (*api.Client, error) {
		if allowPrivate {
			a.cfg.AllowPrivate = true
		}
		return a.client(ctx)
	}
	cmd.AddCommand(newWatchAddCmd(a, client, &allowPrivate), newWatchListCmd(a, client), newWatchRmCmd(a, client),
		newWatchCheckCmd(a, client), newWatchDiffCmd(a, client))
	return cmd
}

type watchClient func(ctx context.Context) (*api.Client, error)

func newWatchAddCmd(a *App, client watchClient, allowPrivate *bool) *cobra.Command {
	var every, label string
	cmd := &cobra.Command{
		Use:   "add URL|ID [--every 1d]",
		Short: "Watch a page by its URL, a kept page by its library ID, or every source of a kept report",
		Args:  exactArgs(1, "URL or ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if _, err := api.ParseEvery(every); err != nil {
				return usagef("--every: %v", err)
			}
			urls, lbl, err := a.watchTargets(cmd, args[0])
			if err != nil {
				return err
			}
			if label != "" {
				lbl = label
			}
			cl, err := client(cmd.Context())
			if err != nil {
				return err
			}
			// The setting that lets the embedded gateway read private
			// addresses (allow_private, HARK_ALLOW_PRIVATE) lets it watch
			// them too, as the TUI's w does; --allow-private says so for
			// one command.
			private := *allowPrivate || a.cfg.AllowPrivate && a.cfg.BaseURL == ""
			var added []api.Watch
			for _, u := range urls {
				w, err := cl.AddWatch(cmd.Context(), api.WatchAdd{URL: u, Every: every, Label: lbl, AllowPrivate: private})
				if err != nil {
					var e *api.Error
					if errors.As(err, &e) && e.Refused() && strings.Contains(e.Message, "private") && !private {
						return usagef("watch add %s: %s", u, e.Message)
					}
					return fromGateway(fmt.Errorf("watch add %s: %w", u, err))
				}
				added = append(added, *w)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, added)
			}
			for _, w := range added {
				fmt.Fprintf(a.stdout, "watching %s every %s (watch %s)\n", w.URL, api.EveryText(w.Every()), w.ID)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&every, "every", "1d", "how often: 30m, 12h, 1d, 1w (1m to 52w)")
	cmd.Flags().StringVar(&label, "label", "", "a name for the watch (default: the kept item's title)")
	return cmd
}

// watchTargets are the URLs arg names: itself, a kept page's URL, or a
// kept report's sources.
func (a *App) watchTargets(cmd *cobra.Command, arg string) ([]string, string, error) {
	if _, err := strconv.ParseInt(arg, 10, 64); err != nil {
		if !strings.HasPrefix(arg, "http://") && !strings.HasPrefix(arg, "https://") {
			return nil, "", usagef("watch add: %q is neither an http(s) URL nor a library ID (hark library list shows them)", arg)
		}
		return []string{arg}, "", nil
	}
	_, it, err := a.getItem(cmd, arg)
	if err != nil {
		return nil, "", err
	}
	switch it.Kind {
	case library.KindPage:
		if !strings.HasPrefix(it.URL, "http") {
			return nil, "", usagef("watch add: item %d is %s, not a web page", it.ID, it.URL)
		}
		return []string{it.URL}, api.WatchLabel(it.Title), nil
	case library.KindResearch:
		var urls []string
		for _, s := range library.Sources(it) {
			if strings.HasPrefix(s.URL, "http") {
				urls = append(urls, s.URL)
			}
		}
		if len(urls) == 0 {
			return nil, "", usagef("watch add: report %d cites no web page", it.ID)
		}
		return urls, api.WatchLabel(fmt.Sprintf("report %d: %s", it.ID, it.Title)), nil
	}
	return nil, "", usagef("watch add: item %d is a %s; watch a page or a report's sources", it.ID, it.Kind)
}

func (a *App) printWatches(l *api.WatchList) error {
	if a.jsonOut {
		return writeJSON(a.stdout, l)
	}
	if len(l.Watches) == 0 {
		fmt.Fprintln(a.stdout, "no watched pages (hark watch add URL)")
		return nil
	}
	tw := tabwriter.NewWriter(a.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tEVERY\tSTATE\tCHECKED\tURL")
	for _, w := range l.Watches {
		state := w.State()
		checked := "-"
		if w.CheckedAt != nil {
			checked = w.CheckedAt.Local().Format("2006-01-02 15:04")
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", w.ID, api.EveryText(w.Every()), state, checked, w.URL)
		if w.Error != "" {
			fmt.Fprintf(tw, "\t\t\t\t  %s (next try %s)\n", excerpt(w.Error, 70), w.NextAt.Local().Format("15:04"))
		}
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if l.Changed > 0 {
		fmt.Fprintf(a.stdout, "%s changed since last looked at (hark watch diff ID)\n", plural(l.Changed, "watched page"))
	}
	return nil
}

func newWatchListCmd(a *App, client watchClient) *cobra.Command {
	return &cobra.Command{
		Use:   "list",
		Short: "List watched pages: how often, whether they changed, when last read",
		Args:  exactArgs(0, ""),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := client(cmd.Context())
			if err != nil {
				return err
			}
			l, err := cl.Watches(cmd.Context())
			if err != nil {
				return fromGateway(err)
			}
			return a.printWatches(l)
		},
	}
}

func newWatchRmCmd(a *App, client watchClient) *cobra.Command {
	return &cobra.Command{
		Use:   "rm ID",
		Short: "Stop watching a page",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := client(cmd.Context())
			if err != nil {
				return err
			}
			id, err := watchID(cmd.Context(), cl, args[0])
			if err != nil {
				return err
			}
			if err := cl.RemoveWatch(cmd.Context(), id); err != nil {
				return watchErr(err)
			}
			return a.done(map[string]any{"removed": id}, "stopped watching "+id)
		},
	}
}

// fullWatchID is a watch's whole ID, as the gateway names watches.
var fullWatchID = regexp.MustCompile(`^[0-9a-fA-F]{16}$`)

// watchID is the watch arg names: its whole ID, or the start of one
// watch's ID (see byPrefix).
func watchID(ctx context.Context, cl *api.Client, arg string) (string, error) {
	if fullWatchID.MatchString(arg) {
		return arg, nil
	}
	return byPrefix(arg, "watch", "hark watch list", func() ([]string, error) {
		l, err := cl.Watches(ctx)
		if err != nil {
			return nil, err
		}
		ids := make([]string, len(l.Watches))
		for i, w := range l.Watches {
			ids[i] = w.ID
		}
		return ids, nil
	})
}

// watchErr maps a refused or unknown watch ID to a usage error.
func watchErr(err error) error {
	var e *api.Error
	if errors.As(err, &e) && (e.HTTPStatus == 400 || e.HTTPStatus == 404) {
		return usageError{err}
	}
	return fromGateway(err)
}

func newWatchCheckCmd(a *App, client watchClient) *cobra.Command {
	return &cobra.Command{
		Use:   "check [ID]",
		Short: "Read a watched page now (or every one due), then list them",
		Args:  cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := client(cmd.Context())
			if err != nil {
				return err
			}
			id := ""
			if len(args) == 1 {
				if id, err = watchID(cmd.Context(), cl, args[0]); err != nil {
					return err
				}
			}
			l, err := cl.CheckWatch(cmd.Context(), id)
			if err != nil {
				return watchErr(err)
			}
			return a.printWatches(l)
		},
	}
}

// watchReport is what hark watch diff says.
type watchReport struct {
	Watch api.Watch        `json:"watch"`
	Diff  []library.DiffOp `json:"diff"`
	Flags []library.Flag   `json:"flags"`
}

func newWatchDiffCmd(a *App, client watchClient) *cobra.Command {
	return &cobra.Command{
		Use:   "diff ID",
		Short: "Print a watched page's last change as a word diff, with the highlights and report quotes it touches",
		Args:  exactArgs(1, "ID"),
		RunE: func(cmd *cobra.Command, args []string) error {
			cl, err := client(cmd.Context())
			if err != nil {
				return err
			}
			id, err := watchID(cmd.Context(), cl, args[0])
			if err != nil {
				return err
			}
			t, err := cl.WatchTexts(cmd.Context(), id)
			if err != nil {
				return watchErr(err)
			}
			rep := watchReport{Watch: t.Watch, Diff: []library.DiffOp{}, Flags: []library.Flag{}}
			if t.ChangedAt != nil {
				rep.Diff = library.WordDiff(t.Previous, t.Current)
				if s, err := a.openLibrary(); err == nil {
					if flags, err := s.Touched(cmd.Context(), t.URL, t.Previous, t.Current, rep.Diff); err == nil && flags != nil {
						rep.Flags = flags
					}
				}
			}
			// Looked at: the TUI's count of changed pages drops it.
			if err := cl.SeenWatch(cmd.Context(), t.ID); err != nil {
				return watchErr(err)
			}
			if a.jsonOut {
				return writeJSON(a.stdout, rep)
			}
			if t.ChangedAt == nil {
				fmt.Fprintln(a.stdout, t.Watch.NoChange(t.URL))
				return nil
			}
			fmt.Fprintf(a.stdout, "%s changed %s:\n\n", t.URL, t.ChangedAt.Local().Format("2006-01-02 15:04"))
			for _, l := range library.DiffLines(rep.Diff, 6, 78) {
				fmt.Fprintln(a.stdout, "  "+l)
			}
			if len(rep.Flags) > 0 {
				fmt.Fprintln(a.stdout)
			}
			for _, f := range rep.Flags {
				if f.Highlight != nil {
					fmt.Fprintf(a.stdout, "! highlight %d (%s): “%s”\n", f.Highlight.ID, f.State, excerpt(f.Quote, 60))
				} else {
					fmt.Fprintf(a.stdout, "! report %d quote (%s): “%s”\n", f.Report, f.State, excerpt(f.Quote, 60))
				}
			}
			return nil
		},
	}
}
