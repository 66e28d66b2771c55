// Package workspaces keeps workspaces in the database, beside
// gateway.toml's: a workspace of the database alone (its quota, period,
// rate, search backend and local voice), and the changes made to one of
// the file's (its quota, period and rate) without a restart. Every gateway
// on the database reads the table again within a second, so `hark serve
// workspaces set` holds on every replica at once. No secret is kept here:
// a backend that needs credentials (tavily) stays gateway.toml's.
package workspaces

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"time"

	"hark/api"
	"hark/gateway/config"
	"hark/gateway/store"
)

// Schema is the workspaces' table, for both databases.
var Schema = store.Schema{Owner: "workspaces", Migrations: []store.Migration{
	{Name: "workspaces kept in the database, and changes to gateway.toml's", SQLite: table, Postgres: table},
}}

// table: a row is a workspace of the database (source 'database') or the
// changes to one of gateway.toml's (source 'gateway.toml'); a NULL keeps
// the file's value.
const table = `CREATE TABLE gateway_workspaces (
	name            TEXT PRIMARY KEY,
	source          TEXT NOT NULL,
	credit_quota    BIGINT,
	quota_period    TEXT,
	rate_per_second DOUBLE PRECISION,
	rate_burst      BIGINT,
	search_backend  TEXT NOT NULL DEFAULT '',
	search_url      TEXT NOT NULL DEFAULT '',
	voice_local     BOOLEAN NOT NULL DEFAULT false,
	updated_ms      BIGINT NOT NULL
);`

// Sources of a row.
const (
	SourceDB     = "database"
	SourceConfig = "gateway.toml"
)

// Row is a row of the table.
type Row struct {
	Name   string
	Source string
	Change
	// Search and VoiceLocal are a database workspace's engines.
	Search     config.Search
	VoiceLocal bool
	Updated    time.Time
}

// Change is what `workspaces set` changes; nil leaves a value as it is.
type Change struct {
	Quota  *int64
	Period *string
	Rate   *float64
	Burst  *int
}

// Store keeps gateway_workspaces.
type Store struct{ db *store.DB }

// NewStore is the store of db; its table is Schema's.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

// List reads every row, by name.
func (st *Store) List(ctx context.Context) ([]Row, error) {
	rows, err := st.db.Query(ctx, `SELECT name, source, credit_quota, quota_period, rate_per_second, rate_burst,
		search_backend, search_url, voice_local, updated_ms FROM gateway_workspaces ORDER BY name`)
	if err != nil {
		return nil, fmt.Errorf("read workspaces: %w", err)
	}
	out, err := store.Rows(rows, func(scan func(...any) error) (Row, error) {
		var r Row
		var quota, burst sql.NullInt64
		var period sql.NullString
		var rate sql.NullFloat64
		var updated int64
		if err := scan(&r.Name, &r.Source, &quota, &period, &rate, &burst, &r.Search.Backend, &r.Search.URL, &r.VoiceLocal, &updated); err != nil {
			return r, err
		}
		if quota.Valid {
			r.Quota = &quota.Int64
		}
		if period.Valid {
			r.Period = &period.String
		}
		if rate.Valid {
			r.Rate = &rate.Float64
		}
		if burst.Valid {
			b := int(burst.Int64)
			r.Burst = &b
		}
		r.Updated = time.UnixMilli(updated).UTC()
		return r, nil
	})
	if err != nil {
		return nil, fmt.Errorf("read workspaces: %w", err)
	}
	return out, nil
}

// namePattern is what a workspace's name may be: it goes into the usage
// history and the logs.
var namePattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

// New is a workspace of the database to add.
type New struct {
	Name string
	Change
	Search     config.Search // backend local or searxng (with URL); empty: none
	VoiceLocal bool          // the local voice engine as vendor_speech
}

// Add adds a workspace of the database. Its name is not one of cfg's nor
// one the database holds; its backend needs no credentials.
func (st *Store) Add(ctx context.Context, cfg *config.Config, n New, now time.Time) error {
	if !namePattern.MatchString(n.Name) {
		return errors.New("name: must be 1 to 64 letters, digits, '_', '.' or '-', starting with a letter or digit")
	}
	for _, w := range cfg.Workspaces {
		if w.Name == n.Name {
			return fmt.Errorf("name: %q is a workspace of gateway.toml; change it with workspaces set", n.Name)
		}
	}
	switch n.Search.Backend {
	case "", config.BackendLocal, config.BackendSearXNG:
	case config.BackendTavily:
		return errors.New("search: tavily needs an API key, which the database does not keep: declare the workspace in gateway.toml")
	default:
		return errors.New("search: must be local, searxng or none")
	}
	w := apply(config.Workspace{Name: n.Name, Search: searchOf(n.Search)}, n.Change)
	if err := w.Check(); err != nil {
		return err
	}
	period := w.QuotaPeriod
	_, err := st.db.Exec(ctx, `INSERT INTO gateway_workspaces(name, source, credit_quota, quota_period, rate_per_second, rate_burst,
		search_backend, search_url, voice_local, updated_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		n.Name, SourceDB, w.CreditQuota, nullString(period), nullFloat(n.Rate), nullInt(n.Burst), n.Search.Backend, n.Search.URL, n.VoiceLocal, now.UnixMilli())
	if store.IsUniqueViolation(err) {
		return fmt.Errorf("name: the database holds a workspace %q already", n.Name)
	}
	return err
}

// Set changes a workspace's quota, period or rate, of gateway.toml's or
// the database's; every gateway on the database takes it within a
// second.
func (st *Store) Set(ctx context.Context, cfg *config.Config, name string, c Change, now time.Time) error {
	rows, err := st.List(ctx)
	if err != nil {
		return err
	}
	var cur *Row
	for i := range rows {
		if rows[i].Name == name {
			cur = &rows[i]
		}
	}
	var base *config.Workspace
	for i := range cfg.Workspaces {
		if cfg.Workspaces[i].Name == name {
			base = &cfg.Workspaces[i]
		}
	}
	if base == nil && (cur == nil || cur.Source != SourceDB) {
		return fmt.Errorf("workspace: no workspace %q in gateway.toml or the database (see workspaces list)", name)
	}
	if cur == nil {
		cur = &Row{Name: name, Source: SourceConfig}
	}
	merged := mergeChange(cur.Change, c)
	w := config.Workspace{Name: name}
	if base != nil {
		w = *base
	}
	if err := apply(w, merged).Check(); err != nil {
		return err
	}
	_, err = st.db.Exec(ctx, `INSERT INTO gateway_workspaces(name, source, credit_quota, quota_period, rate_per_second, rate_burst, updated_ms)
		VALUES (?, ?, ?, ?, ?, ?, ?)
		ON CONFLICT(name) DO UPDATE SET credit_quota = excluded.credit_quota, quota_period = excluded.quota_period,
		rate_per_second = excluded.rate_per_second, rate_burst = excluded.rate_burst, updated_ms = excluded.updated_ms`,
		name, cur.Source, nullInt64(merged.Quota), nullString(deref(merged.Period)), nullFloat(merged.Rate), nullInt(merged.Burst), now.UnixMilli())
	return err
}

// Remove removes a workspace of the database; its keys stop working
// within a second. gateway.toml's are removed from the file.
func (st *Store) Remove(ctx context.Context, cfg *config.Config, name string) error {
	for _, w := range cfg.Workspaces {
		if w.Name == name {
			return fmt.Errorf("workspace: %q is gateway.toml's: remove it from the file (its changes stay until then)", name)
		}
	}
	res, err := st.db.Exec(ctx, `DELETE FROM gateway_workspaces WHERE name = ? AND source = ?`, name, SourceDB)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fmt.Errorf("workspace: the database holds no workspace %q (see workspaces list)", name)
	}
	return nil
}

// Effective is the workspaces in force: gateway.toml's with the
// database's changes, then the database's own, by name.
func Effective(cfg *config.Config, rows []Row) []config.Workspace {
	byName := map[string]Row{}
	for _, r := range rows {
		byName[r.Name] = r
	}
	var out []config.Workspace
	seen := map[string]bool{}
	for _, w := range cfg.Workspaces {
		seen[w.Name] = true
		if r, ok := byName[w.Name]; ok {
			w = apply(w, r.Change)
		}
		out = append(out, w)
	}
	for _, r := range rows {
		if r.Source != SourceDB || seen[r.Name] {
			continue
		}
		w := apply(config.Workspace{Name: r.Name, Search: searchOf(r.Search)}, r.Change)
		if r.VoiceLocal {
			w.Voice = map[string]config.Voice{api.DefaultProvider: {Enabled: true, Engine: config.BackendLocal}}
		}
		out = append(out, w)
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Names are the names of the workspaces in force.
func Names(ws []config.Workspace) []string {
	out := make([]string, len(ws))
	for i, w := range ws {
		out[i] = w.Name
	}
	return out
}

func apply(w config.Workspace, c Change) config.Workspace {
	if c.Quota != nil {
		w.CreditQuota = *c.Quota
	}
	if c.Period != nil {
		w.QuotaPeriod = *c.Period
	}
	if c.Rate != nil {
		w.RatePerSecond = *c.Rate
	}
	if c.Burst != nil {
		w.RateBurst = *c.Burst
	}
	return w
}

func mergeChange(old, c Change) Change {
	if c.Quota != nil {
		old.Quota = c.Quota
	}
	if c.Period != nil {
		old.Period = c.Period
	}
	if c.Rate != nil {
		old.Rate = c.Rate
	}
	if c.Burst != nil {
		old.Burst = c.Burst
	}
	return old
}

func searchOf(s config.Search) *config.Search {
	if s.Backend == "" {
		return nil
	}
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func nullString(s string) any {
	if s == "" {
		return nil
	}
	return s
}

func nullInt64(v *int64) any {
	if v == nil {
		return nil
	}
	return *v
}

func nullFloat(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}

func nullInt(v *int) any {
	if v == nil {
		return nil
	}
	return int64(*v)
}
