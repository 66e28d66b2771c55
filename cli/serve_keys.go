package cli

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"hark/gateway/auth"
	"hark/gateway/config"
	"hark/gateway/store"
	"hark/gateway/workspaces"
)

// `hark serve keys`: API keys added, rotated and revoked in the database
// while the gateway (every replica of it) runs.

func newServeKeysCmd(a *App, cfgPath *string, dbf *serveDB) *cobra.Command {
	keys := &cobra.Command{
		Use:   "keys",
		Short: "Add, rotate, revoke and list the gateway's API keys while it runs",
		Long: `keys manages API keys in the gateway's database (gateway.db, or the
PostgreSQL of --database): every running gateway on it takes a change
within a second. A key belongs to a workspace of gateway.toml or of the
database (hark serve workspaces). Keys of gateway.toml are listed and can
be rotated and revoked too; a revoked key stays revoked even if
gateway.toml still lists it. A new key is shown once; only its SHA-256 is
stored.`,
		Args: cobra.NoArgs,
	}
	var workspace, name, expires string
	add := &cobra.Command{
		Use:   "add",
		Short: "Make a new key of a workspace and show it once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				if workspace == "" {
					return usagef("--workspace: is required (a workspace of gateway.toml or the database; see hark serve workspaces list)")
				}
				now := time.Now()
				end, err := parseWhen(expires, now, true)
				if err != nil {
					return usagef("--expires: %v", err)
				}
				names, err := workspaceNames(ctx, db, cfg)
				if err != nil {
					return dataError{err}
				}
				key, info, err := auth.NewStore(db).Add(ctx, cfg, names, auth.New{Workspace: workspace, Name: name, Expires: end}, now)
				if err != nil {
					return usageError{err}
				}
				// The one display of the key: it exists nowhere else.
				fmt.Fprintf(a.stdout, "New API key %s of workspace %q (shown only now):\n\n    %s\n\n", info.ID, info.Workspace, key)
				if !info.Expires.IsZero() {
					fmt.Fprintf(a.stdout, "It works until %s.\n", info.Expires.Format(time.RFC3339))
				}
				fmt.Fprintf(a.stdout, "Every gateway on this database accepts it within a second. Revoke it with:\n    hark serve keys revoke %s\n", info.ID)
				return nil
			})
		},
	}
	add.Flags().StringVar(&workspace, "workspace", "", "workspace the key belongs to (required)")
	add.Flags().StringVar(&name, "name", "", "a label for the key, such as its holder")
	add.Flags().StringVar(&expires, "expires", "", "when the key stops working: a time from now (90d, 12h) or a date (2027-01-31, RFC 3339); default never")

	var overlap string
	rotate := &cobra.Command{
		Use:   "rotate ID",
		Short: "Replace a key by a new one, shown once; the old one works for --overlap more",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				d, err := parseDuration(overlap)
				if err != nil {
					return usagef("--overlap: %v", err)
				}
				names, err := workspaceNames(ctx, db, cfg)
				if err != nil {
					return dataError{err}
				}
				key, info, old, err := auth.NewStore(db).Rotate(ctx, cfg, names, args[0], d, time.Now())
				if err != nil {
					return usageError{err}
				}
				fmt.Fprintf(a.stdout, "New API key %s of workspace %q, replacing %s (shown only now):\n\n    %s\n\n", info.ID, info.Workspace, old.ID, key)
				fmt.Fprintf(a.stdout, "The old key %s works until %s; move its holders to the new one by then.\n", old.ID, old.Expires.Format(time.RFC3339))
				return nil
			})
		},
	}
	rotate.Flags().StringVar(&overlap, "overlap", "24h", "how long the old key keeps working (0 ends it now)")

	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key: every gateway on the database refuses it within a second",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				info, err := auth.NewStore(db).Revoke(ctx, cfg, args[0], time.Now())
				if err != nil {
					return usageError{err}
				}
				fmt.Fprintf(a.stdout, "Revoked key %s of workspace %q (%s).\n", info.ID, info.Workspace, info.Revoked.Format(time.RFC3339))
				return nil
			})
		},
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the keys (IDs, names, workspaces, states; never secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withServeDB(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, db *store.DB, cfg *config.Config) error {
				ks, err := auth.NewStore(db).List(ctx, cfg)
				if err != nil {
					return dataError{err}
				}
				now := time.Now()
				if a.jsonOut {
					return writeJSON(a.stdout, keysJSON(ks, now))
				}
				tw := tabwriter.NewWriter(a.stdout, 2, 8, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tWORKSPACE\tNAME\tSOURCE\tCREATED\tSTATE")
				for _, k := range ks {
					created := "-"
					if !k.Created.IsZero() {
						created = k.Created.Format(time.RFC3339)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Workspace, dash(k.Name), k.Source, created, keyState(k, now))
				}
				return tw.Flush()
			})
		},
	}
	keys.AddCommand(add, rotate, revoke, list)
	return keys
}

// keyState says whether a key works, and until when.
func keyState(k auth.KeyInfo, now time.Time) string {
	switch {
	case !k.Revoked.IsZero():
		return "revoked " + k.Revoked.Format(time.RFC3339)
	case !k.Expires.IsZero() && !now.Before(k.Expires):
		return "ended " + k.Expires.Format(time.RFC3339)
	case !k.Expires.IsZero():
		return "active until " + k.Expires.Format(time.RFC3339)
	}
	return "active"
}

// keyJSON is a key as `keys list --json` prints it: never a secret, nor
// a whole hash; times in RFC 3339, null when none.
type keyJSON struct {
	ID        string     `json:"id"`
	Workspace string     `json:"workspace"`
	Name      string     `json:"name"`
	Source    string     `json:"source"`
	Created   *time.Time `json:"created"`
	Revoked   *time.Time `json:"revoked"`
	Expires   *time.Time `json:"expires"`
	Active    bool       `json:"active"`
}

func keysJSON(ks []auth.KeyInfo, now time.Time) []keyJSON {
	at := func(t time.Time) *time.Time {
		if t.IsZero() {
			return nil
		}
		return &t
	}
	out := make([]keyJSON, len(ks))
	for i, k := range ks {
		out[i] = keyJSON{ID: k.ID, Workspace: k.Workspace, Name: k.Name, Source: k.Source,
			Created: at(k.Created), Revoked: at(k.Revoked), Expires: at(k.Expires), Active: k.Active(now)}
	}
	return out
}

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// workspaceNames are the workspaces in force: gateway.toml's and the
// database's.
func workspaceNames(ctx context.Context, db *store.DB, cfg *config.Config) ([]string, error) {
	rows, err := workspaces.NewStore(db).List(ctx)
	if err != nil {
		return nil, err
	}
	return workspaces.Names(workspaces.Effective(cfg, rows)), nil
}

// withServeDB loads gateway.toml (which must exist) and opens the
// database the gateway uses, its tables up to date.
func withServeDB(ctx context.Context, a *App, cfgPath string, dbf serveDB, f func(context.Context, *store.DB, *config.Config) error) error {
	cfgPath, err := serveConfigPath(cfgPath)
	if err != nil {
		return err
	}
	gcfg, err := config.Load(cfgPath)
	switch {
	case errors.Is(err, fs.ErrNotExist) && dbf.fromOutside():
		// A team whose workspaces and keys live in its PostgreSQL alone
		// needs no gateway.toml where it manages them.
		gcfg = &config.Config{}
	case errors.Is(err, fs.ErrNotExist):
		return usagef("no gateway config at %s: hark serve writes one on its first run; give its path (--config), or a team's database (--database, HARK_DATABASE_URL)", cfgPath)
	case err != nil:
		return usageError{err}
	}
	dbURL, source := dbf.resolve(gcfg.DatabaseURL)
	if err := config.CheckDatabaseURL(dbURL); err != nil {
		return usagef("%s: %v", source, err)
	}
	db, _, closeStore, err := openStore(ctx, dbURL, source, serveDataDir(a, gcfg))
	if err != nil {
		return err
	}
	defer closeStore()
	return f(ctx, db, gcfg)
}

// days is a count of days ("90d"), which Go's durations lack.
var days = regexp.MustCompile(`^(\d+)d$`)

// parseDuration reads a Go duration or a count of days.
func parseDuration(s string) (time.Duration, error) {
	s = strings.TrimSpace(s)
	if m := days.FindStringSubmatch(s); m != nil {
		n, err := strconv.Atoi(m[1])
		if err != nil || n > 36500 {
			return 0, fmt.Errorf("%q: too many days", s)
		}
		return time.Duration(n) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("%q: want a duration such as 90d, 12h or 30m", s)
	}
	return d, nil
}

// parseWhen reads a moment: a date (2027-01-31, UTC midnight), an RFC
// 3339 time, or a duration from now (ahead when future, else back). ""
// is the zero time.
func parseWhen(s string, now time.Time, future bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	if t, err := time.Parse("2006-01-02", s); err == nil {
		return t, nil
	}
	d, err := parseDuration(s)
	if err != nil {
		return time.Time{}, errors.New(strings.Replace(err.Error(), "want a duration such as", "want a date (2027-01-31), an RFC 3339 time, or a duration such as", 1))
	}
	if future {
		return now.Add(d), nil
	}
	return now.Add(-d), nil
}
