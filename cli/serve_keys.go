package cli

import (
	"context"
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"hark/gateway/auth"
	"hark/gateway/config"
)

// `hark serve keys`: API keys added and revoked in the database while the
// gateway (every replica of it) runs.

func newServeKeysCmd(a *App, cfgPath *string, dbf *serveDB) *cobra.Command {
	keys := &cobra.Command{
		Use:   "keys",
		Short: "Add, revoke and list the gateway's API keys while it runs",
		Long: `keys manages API keys in the gateway's database (gateway.db, or the
PostgreSQL of --database): every running gateway on it takes a change
within a second. Keys of gateway.toml are listed and can be revoked too; a
revoked key stays revoked even if gateway.toml still lists it. A new key
is shown once; only its SHA-256 is stored.`,
		Args: cobra.NoArgs,
	}
	var workspace, name string
	add := &cobra.Command{
		Use:   "add",
		Short: "Make a new key of a workspace and show it once",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withKeyStore(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, st *auth.Store, cfg *config.Config) error {
				if workspace == "" {
					return usagef("--workspace: is required (a [[workspace]] name of gateway.toml)")
				}
				key, info, err := st.Add(ctx, cfg, workspace, name, time.Now())
				if err != nil {
					return usageError{err}
				}
				// The one display of the key: it exists nowhere else.
				fmt.Fprintf(a.stdout, "New API key %s of workspace %q (shown only now):\n\n    %s\n\n", info.ID, info.Workspace, key)
				fmt.Fprintf(a.stdout, "Every gateway on this database accepts it within a second. Revoke it with:\n    hark serve keys revoke %s\n", info.ID)
				return nil
			})
		},
	}
	add.Flags().StringVar(&workspace, "workspace", "", "workspace of gateway.toml the key belongs to (required)")
	add.Flags().StringVar(&name, "name", "", "a label for the key, such as its holder")
	revoke := &cobra.Command{
		Use:   "revoke ID",
		Short: "Revoke a key: every gateway on the database refuses it within a second",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return withKeyStore(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, st *auth.Store, cfg *config.Config) error {
				info, err := st.Revoke(ctx, cfg, args[0], time.Now())
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
		Short: "List the keys (IDs, names, workspaces; never secrets)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			return withKeyStore(cmd.Context(), a, *cfgPath, *dbf, func(ctx context.Context, st *auth.Store, cfg *config.Config) error {
				ks, err := st.List(ctx, cfg)
				if err != nil {
					return dataError{err}
				}
				if a.jsonOut {
					return writeJSON(a.stdout, keysJSON(ks))
				}
				tw := tabwriter.NewWriter(a.stdout, 2, 8, 2, ' ', 0)
				fmt.Fprintln(tw, "ID\tWORKSPACE\tNAME\tSOURCE\tCREATED\tSTATE")
				for _, k := range ks {
					created, state := "-", "active"
					if !k.Created.IsZero() {
						created = k.Created.Format(time.RFC3339)
					}
					if !k.Revoked.IsZero() {
						state = "revoked " + k.Revoked.Format(time.RFC3339)
					}
					fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", k.ID, k.Workspace, dash(k.Name), k.Source, created, state)
				}
				return tw.Flush()
			})
		},
	}
	keys.AddCommand(add, revoke, list)
	return keys
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
	Active    bool       `json:"active"`
}

func keysJSON(ks []auth.KeyInfo) []keyJSON {
	at := func(t time.Time) *time.Time {
		if t.IsZero() {
			return nil
		}
		return &t
	}
	out := make([]keyJSON, len(ks))
	for i, k := range ks {
		out[i] = keyJSON{ID: k.ID, Workspace: k.Workspace, Name: k.Name, Source: k.Source,
			Created: at(k.Created), Revoked: at(k.Revoked), Active: k.Revoked.IsZero()}
	}
	return out
}

func dash(s string) string {
	if strings.TrimSpace(s) == "" {
		return "-"
	}
	return s
}

// withKeyStore loads gateway.toml (which must exist: its workspaces are
// what keys belong to) and opens the database the gateway uses.
func withKeyStore(ctx context.Context, a *App, cfgPath string, dbf serveDB, f func(context.Context, *auth.Store, *config.Config) error) error {
	cfgPath, err := serveConfigPath(cfgPath)
	if err != nil {
		return err
	}
	gcfg, err := config.Load(cfgPath)
	if err != nil {
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
	return f(ctx, auth.NewStore(db), gcfg)
}
