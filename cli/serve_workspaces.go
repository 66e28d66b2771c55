package cli

import (
	"context"
	"encoding/csv"
	"fmt"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"hark/gateway/config"
	"hark/gateway/store"
	"hark/gateway/usage"
	"hark/gateway/workspaces"
)

// `hark serve workspaces`: workspaces kept in the database, and changes to
// gateway.toml's quotas and rates, taken by every running gateway within
// a second. `hark serve usage`: what they spent.

func newServeWorkspacesCmd(a *App, cfgPath *string, dbf *serveDB) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "workspaces",
		Short: "Add, change, remove and list workspaces while the gateway runs",
		Long: `workspaces manages workspaces in the gateway's database (gateway.db, or
the PostgreSQL of --database): a workspace of the database alone (no
gateway.toml entry, no seed key: add keys with hark serve keys add), and
the quota, quota period and rate of any workspace, gateway.toml's
included. Every running gateway on the database takes a change within a
second, without a restart. A backend that needs credentials (tavily)
stays gateway.toml's: the database keeps no secret.`,
		Args: cobra.NoArgs,
	}
	var ch changeFlags
	var search, searchURL, voice string
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Add a workspace of the database",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := ch.change(cmd)
			if err != nil {
				return err
			}
			n := workspaces.New{Name: args[0], Change: c}
			switch search {
			case "none", "":
			case config.BackendLocal, config.BackendSearXNG:
				n.Search = config.Search{Backend: search, URL: searchURL}
			default:
				return usagef("--search: must be local, searxng or none, got %q", search)
			}
			switch voice {
			case "local":
				n.VoiceLocal = true
			case "none", "":
			default:
				return usagef("--voice: must be local or none, got %q", voice)
			}
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				if err := workspaces.NewStore(db).Add(ctx, cfg, n, time.Now()); err != nil {
					return usageError{err}
				}
				fmt.Fprintf(a.stdout, "Added workspace %q; every gateway on this database serves it within a second.\nGive it a key:\n    hark serve keys add --workspace %s\n", n.Name, n.Name)
				return nil
			})
		},
	}
	ch.flags(add)
	add.Flags().StringVar(&search, "search", "local", "its search backend: local, searxng (with --search-url) or none")
	add.Flags().StringVar(&searchURL, "search-url", "", "the SearXNG address, for --search searxng")
	add.Flags().StringVar(&voice, "voice", "local", "its voice provider vendor_speech: local (this machine's engines) or none")

	var setCh changeFlags
	set := &cobra.Command{
		Use:   "set NAME",
		Short: "Change a workspace's quota, period or rate (gateway.toml's or the database's)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			c, err := setCh.change(cmd)
			if err != nil {
				return err
			}
			if c == (workspaces.Change{}) {
				return usagef("set %s: give at least one of --quota, --period, --rate, --burst", args[0])
			}
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				if err := workspaces.NewStore(db).Set(ctx, cfg, args[0], c, time.Now()); err != nil {
					return usageError{err}
				}
				fmt.Fprintf(a.stdout, "Changed workspace %q; every gateway on this database holds to it within a second.\n", args[0])
				return nil
			})
		},
	}
	setCh.flags(set)

	rm := &cobra.Command{
		Use:   "rm NAME",
		Short: "Remove a workspace of the database; its keys stop working within a second",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				if err := workspaces.NewStore(db).Remove(ctx, cfg, args[0]); err != nil {
					return usageError{err}
				}
				fmt.Fprintf(a.stdout, "Removed workspace %q; its usage history stays.\n", args[0])
				return nil
			})
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the workspaces in force, gateway.toml's and the database's",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				rows, err := workspaces.NewStore(db).List(ctx)
				if err != nil {
					return dataError{err}
				}
				source := map[string]string{}
				for _, w := range cfg.Workspaces {
					source[w.Name] = workspaces.SourceConfig
				}
				for _, r := range rows {
					if r.Source == workspaces.SourceConfig {
						source[r.Name] = workspaces.SourceConfig + " (changed)"
					} else if source[r.Name] == "" {
						source[r.Name] = workspaces.SourceDB
					}
				}
				type wsJSON struct {
					Name          string  `json:"name"`
					Source        string  `json:"source"`
					CreditQuota   int64   `json:"credit_quota"`
					QuotaPeriod   string  `json:"quota_period"`
					RatePerSecond float64 `json:"rate_per_second"`
					RateBurst     int     `json:"rate_burst"`
					Search        string  `json:"search"`
				}
				lim := cfg.Limits.WithDefaults()
				var out []wsJSON
				for _, w := range workspaces.Effective(cfg, rows) {
					j := wsJSON{Name: w.Name, Source: source[w.Name], CreditQuota: w.CreditQuota, QuotaPeriod: w.QuotaPeriod,
						RatePerSecond: w.RatePerSecond, RateBurst: w.RateBurst, Search: "none"}
					if j.QuotaPeriod == "" {
						j.QuotaPeriod = "month"
					}
					if j.RatePerSecond == 0 {
						j.RatePerSecond = lim.RatePerSecond
					}
					if j.RateBurst == 0 {
						j.RateBurst = lim.RateBurst
					}
					if w.Search != nil && w.Search.Backend != "" {
						j.Search = w.Search.Backend
					}
					out = append(out, j)
				}
				if a.jsonOut {
					if out == nil {
						out = []wsJSON{}
					}
					return writeJSON(a.stdout, out)
				}
				tw := tabwriter.NewWriter(a.stdout, 2, 8, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSOURCE\tQUOTA\tPERIOD\tRATE/S\tBURST\tSEARCH")
				for _, j := range out {
					quota := "unlimited"
					if j.CreditQuota > 0 {
						quota = strconv.FormatInt(j.CreditQuota, 10)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%g\t%d\t%s\n", j.Name, j.Source, quota, j.QuotaPeriod, j.RatePerSecond, j.RateBurst, j.Search)
				}
				return tw.Flush()
			})
		},
	}
	cmd.AddCommand(add, set, rm, list)
	return cmd
}

// changeFlags are the flags of a workspace's quota and rate.
type changeFlags struct {
	quota  int64
	period string
	rate   float64
	burst  int
}

func (f *changeFlags) flags(cmd *cobra.Command) {
	cmd.Flags().Int64Var(&f.quota, "quota", 0, "credits per period; 0 is unlimited")
	cmd.Flags().StringVar(&f.period, "period", "", "the quota's period: day or month")
	cmd.Flags().Float64Var(&f.rate, "rate", 0, "requests a second per key (0: [limits]')")
	cmd.Flags().IntVar(&f.burst, "burst", 0, "requests a key may save up (0: [limits]')")
}

// change is what the flags given change.
func (f *changeFlags) change(cmd *cobra.Command) (workspaces.Change, error) {
	var c workspaces.Change
	fl := cmd.Flags()
	if fl.Changed("quota") {
		c.Quota = &f.quota
	}
	if fl.Changed("period") {
		if f.period != "day" && f.period != "month" {
			return c, usagef("--period: must be day or month, got %q", f.period)
		}
		c.Period = &f.period
	}
	if fl.Changed("rate") {
		c.Rate = &f.rate
	}
	if fl.Changed("burst") {
		c.Burst = &f.burst
	}
	return c, nil
}

func newServeUsageCmd(a *App, cfgPath *string, dbf *serveDB) *cobra.Command {
	var since, until, workspace, by string
	var asCSV bool
	cmd := &cobra.Command{
		Use:   "usage",
		Short: "Credits and calls per workspace, key and tool over a period",
		Long: `usage sums the settled calls of the gateway's usage history (gateway.db,
or the PostgreSQL of --database) by workspace, key and tool (--by), from
--since to --until (default: this month, UTC), as a table, --json or
--csv. A key is its ID (hark serve keys list), never a secret.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			now := time.Now().UTC()
			from, err := parseWhen(since, now, false)
			if err != nil {
				return usagef("--since: %v", err)
			}
			if from.IsZero() {
				from = usage.PeriodStart(now, "month")
			}
			to, err := parseWhen(until, now, false)
			if err != nil {
				return usagef("--until: %v", err)
			}
			if to.IsZero() {
				to = now.Add(time.Millisecond)
			}
			if !from.Before(to) {
				return usagef("--since: %s is not before --until (%s)", from.Format(time.RFC3339), to.Format(time.RFC3339))
			}
			var groups []string
			for _, g := range splitComma(by) {
				if usage.ReportBy[g] == "" {
					return usagef("--by: %q is not workspace, key or tool", g)
				}
				groups = append(groups, g)
			}
			if asCSV && a.jsonOut {
				return usagef("--csv and --json: give one")
			}
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				rows, err := usage.NewLedger(db).Report(ctx, from, to, workspace, groups)
				if err != nil {
					return dataError{err}
				}
				if rows == nil {
					rows = []usage.ReportRow{}
				}
				switch {
				case a.jsonOut:
					return writeJSON(a.stdout, map[string]any{"since": from.Format(time.RFC3339), "until": to.Format(time.RFC3339), "rows": rows})
				case asCSV:
					w := csv.NewWriter(a.stdout)
					w.Write(append(append([]string{}, groups...), "calls", "errors", "credits"))
					for _, r := range rows {
						w.Write(append(reportCells(r, groups), strconv.FormatInt(r.Calls, 10), strconv.FormatInt(r.Errors, 10), strconv.FormatInt(r.Credits, 10)))
					}
					w.Flush()
					return w.Error()
				}
				fmt.Fprintf(a.stdout, "Usage from %s to %s (UTC)\n\n", from.Format(time.RFC3339), to.Format(time.RFC3339))
				tw := tabwriter.NewWriter(a.stdout, 2, 8, 2, ' ', tabwriter.AlignRight)
				head := ""
				for _, g := range groups {
					head += upper(g) + "\t"
				}
				fmt.Fprintln(tw, head+"CALLS\tERRORS\tCREDITS\t")
				var calls, errs, credits int64
				for _, r := range rows {
					line := ""
					for _, c := range reportCells(r, groups) {
						line += c + "\t"
					}
					fmt.Fprintf(tw, "%s%d\t%d\t%d\t\n", line, r.Calls, r.Errors, r.Credits)
					calls, errs, credits = calls+r.Calls, errs+r.Errors, credits+r.Credits
				}
				if len(groups) > 0 {
					line := "total\t"
					for range groups[1:] {
						line += "\t"
					}
					fmt.Fprintf(tw, "%s%d\t%d\t%d\t\n", line, calls, errs, credits)
				}
				return tw.Flush()
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&since, "since", "", "the period's start: a date (2026-11-01), an RFC 3339 time, or a time ago (7d, 24h); default the month's start")
	f.StringVar(&until, "until", "", "the period's end (not included), as --since; default now")
	f.StringVar(&workspace, "workspace", "", "one workspace's calls only")
	f.StringVar(&by, "by", "workspace,key,tool", "what to sum by: any of workspace, key, tool, comma-separated (none: one total)")
	f.BoolVar(&asCSV, "csv", false, "print CSV, for a spreadsheet")
	return cmd
}

func reportCells(r usage.ReportRow, groups []string) []string {
	var out []string
	for _, g := range groups {
		switch g {
		case "workspace":
			out = append(out, r.Workspace)
		case "key":
			out = append(out, r.KeyID)
		case "tool":
			out = append(out, r.Tool)
		}
	}
	return out
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 32
		}
	}
	return string(b)
}

func splitComma(s string) []string {
	var out []string
	for _, p := range strings.Split(s, ",") {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return out
}
