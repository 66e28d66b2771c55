package auth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sort"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"hark/gateway/config"
	"hark/gateway/store"
)

// API keys kept in the database (gateway_keys), so that `hark serve keys`
// adds and revokes them while replicas run. gateway.toml's keys are not
// copied in: they hold as long as the file lists them, unless the database
// holds a revoked row of the same hash. So the embedded gateway's key of
// one TUI session never lands in the table.

// Schema is the keys' table, for both databases.
var Schema = store.Schema{Owner: "auth", Migrations: []store.Migration{
	{Name: "API keys added and revoked while the gateway runs", SQLite: keysSchema, Postgres: keysSchema},
}}

// keysSchema: only the key's SHA-256 is stored; id is its first 8 hex
// digits, the key_id of the usage history. A revoked key keeps its row,
// so that seeding it again does not revive it.
const keysSchema = `CREATE TABLE gateway_keys (
	id         TEXT   PRIMARY KEY,
	key_sha256 TEXT   NOT NULL UNIQUE,
	workspace  TEXT   NOT NULL,
	name       TEXT   NOT NULL DEFAULT '',
	source     TEXT   NOT NULL,
	created_ms BIGINT NOT NULL,
	revoked_ms BIGINT
);`

// KeySourceConfig and KeySourceDB say where a key was declared.
const (
	KeySourceConfig = "gateway.toml"
	KeySourceDB     = "database"
)

// KeyInfo describes a key without its secret: what `keys list` shows.
type KeyInfo struct {
	ID        string // the first 8 hex digits of its SHA-256: the usage history's key_id
	Name      string
	Workspace string
	Source    string    // KeySourceConfig or KeySourceDB
	Created   time.Time // zero for a key of gateway.toml
	Revoked   time.Time // zero while the key works
}

// storedKey is a row of gateway_keys.
type storedKey struct {
	KeyInfo
	hash string // hex SHA-256
}

// Store keeps gateway_keys in the gateway's database.
type Store struct{ db *store.DB }

// NewStore is the key store of db; its table is Schema's.
func NewStore(db *store.DB) *Store { return &Store{db: db} }

var errKeyTaken = errors.New("key id taken")

func keyIDOf(hash string) string { return hash[:8] }

// keyColumns are what rows reads of a key, in scanKey's order.
const keyColumns = `id,key_sha256,workspace,name,source,created_ms,revoked_ms`

// rows lists every row, revoked ones included.
func (st *Store) rows(ctx context.Context) ([]storedKey, error) {
	rows, err := st.db.Query(ctx, `SELECT `+keyColumns+` FROM gateway_keys`)
	if err != nil {
		return nil, err
	}
	return store.Rows(rows, scanKey)
}

// scanKey reads one row of keyColumns.
func scanKey(scan func(dest ...any) error) (storedKey, error) {
	var k storedKey
	var created int64
	var revoked sql.NullInt64
	if err := scan(&k.ID, &k.hash, &k.Workspace, &k.Name, &k.Source, &created, &revoked); err != nil {
		return storedKey{}, err
	}
	if k.Source == KeySourceDB {
		k.Created = time.UnixMilli(created).UTC()
	}
	if revoked.Valid {
		k.Revoked = time.UnixMilli(revoked.Int64).UTC()
	}
	return k, nil
}

// insert adds a row; errKeyTaken when its id or hash is in use.
func (st *Store) insert(ctx context.Context, k storedKey) error {
	_, err := st.db.Exec(ctx, `INSERT INTO gateway_keys(id,key_sha256,workspace,name,source,created_ms) VALUES(?,?,?,?,?,?)`,
		k.ID, k.hash, k.Workspace, k.Name, k.Source, k.Created.UnixMilli())
	if store.IsUniqueViolation(err) {
		return errKeyTaken
	}
	return err
}

// revoke marks the row of k.hash revoked at k.Revoked, inserting k when
// there is none (a key of gateway.toml), and keeps an earlier
// revocation's time.
func (st *Store) revoke(ctx context.Context, k storedKey) error {
	_, err := st.db.Exec(ctx, `INSERT INTO gateway_keys(id,key_sha256,workspace,name,source,created_ms,revoked_ms) VALUES(?,?,?,?,?,?,?)
		ON CONFLICT(key_sha256) DO UPDATE SET revoked_ms=COALESCE(gateway_keys.revoked_ms, excluded.revoked_ms)`,
		k.ID, k.hash, k.Workspace, k.Name, k.Source, k.Created.UnixMilli(), zeroOrMs(k.Revoked))
	return err
}

func zeroOrMs(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// activeKeys is what a gateway accepts: cfg's keys without a revoked row,
// and the database's keys not revoked, of a workspace this gateway has.
func activeKeys(cfg []config.Workspace, rows []storedKey, hasWorkspace func(string) bool) []storedKey {
	byHash := map[string]storedKey{}
	for _, r := range rows {
		byHash[r.hash] = r
	}
	var out []storedKey
	for _, w := range cfg {
		for _, h := range w.APIKeySHA256 {
			h = strings.ToLower(h)
			if r, ok := byHash[h]; ok && !r.Revoked.IsZero() {
				continue
			}
			out = append(out, storedKey{KeyInfo: KeyInfo{ID: keyIDOf(h), Workspace: w.Name, Source: KeySourceConfig}, hash: h})
		}
	}
	for _, r := range rows {
		if r.Revoked.IsZero() && r.Source == KeySourceDB && hasWorkspace(r.Workspace) {
			out = append(out, r)
		}
	}
	return out
}

// List lists gateway.toml's keys and the database's, revoked ones
// included, by workspace and ID. No secret is in them.
func (st *Store) List(ctx context.Context, cfg *config.Config) ([]KeyInfo, error) {
	rows, err := st.rows(ctx)
	if err != nil {
		return nil, fmt.Errorf("read keys: %w", err)
	}
	byHash := map[string]storedKey{}
	for _, r := range rows {
		byHash[r.hash] = r
	}
	var out []KeyInfo
	for _, w := range cfg.Workspaces {
		for _, h := range w.APIKeySHA256 {
			h = strings.ToLower(h)
			k := KeyInfo{ID: keyIDOf(h), Workspace: w.Name, Source: KeySourceConfig}
			if r, ok := byHash[h]; ok {
				k.Revoked = r.Revoked
				delete(byHash, h)
			}
			out = append(out, k)
		}
	}
	for _, r := range rows {
		if _, ok := byHash[r.hash]; ok && r.Source == KeySourceDB {
			out = append(out, r.KeyInfo)
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].Workspace != out[j].Workspace {
			return out[i].Workspace < out[j].Workspace
		}
		return out[i].ID < out[j].ID
	})
	return out, nil
}

// Add makes a new key of a workspace of cfg and stores its SHA-256; the
// key itself is returned once, for the caller to show, and kept nowhere.
func (st *Store) Add(ctx context.Context, cfg *config.Config, workspace, name string, now time.Time) (string, KeyInfo, error) {
	found := false
	var names []string
	for _, w := range cfg.Workspaces {
		found = found || w.Name == workspace
		names = append(names, w.Name)
	}
	if !found {
		return "", KeyInfo{}, fmt.Errorf("workspace: %q is not a workspace of gateway.toml (it has: %s)", workspace, strings.Join(names, ", "))
	}
	if utf8.RuneCountInString(name) > 200 {
		return "", KeyInfo{}, errors.New("name: must be at most 200 characters")
	}
	if !utf8.ValidString(name) || strings.IndexFunc(name, unicode.IsControl) >= 0 {
		return "", KeyInfo{}, errors.New("name: must be text without control characters (tabs, newlines)")
	}
	for range 5 {
		key, err := NewAPIKey()
		if err != nil {
			return "", KeyInfo{}, err
		}
		h := HashKey(key)
		k := storedKey{KeyInfo: KeyInfo{ID: keyIDOf(h), Name: name, Workspace: workspace, Source: KeySourceDB, Created: now.UTC().Truncate(time.Millisecond)}, hash: h}
		for _, w := range cfg.Workspaces { // a toml key's ID is taken too
			for _, c := range w.APIKeySHA256 {
				if keyIDOf(strings.ToLower(c)) == k.ID {
					err = errKeyTaken
				}
			}
		}
		if err == nil {
			err = st.insert(ctx, k)
		}
		if errors.Is(err, errKeyTaken) {
			continue // another key's first 8 hex digits: draw again
		}
		if err != nil {
			return "", KeyInfo{}, fmt.Errorf("store key: %w", err)
		}
		return key, k.KeyInfo, nil
	}
	return "", KeyInfo{}, errors.New("store key: no free key ID after 5 draws")
}

// Revoke revokes the key with this ID, of gateway.toml or the database.
// Every gateway on the database refuses it within Poll.
func (st *Store) Revoke(ctx context.Context, cfg *config.Config, id string, now time.Time) (KeyInfo, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	keys, err := st.List(ctx, cfg)
	if err != nil {
		return KeyInfo{}, err
	}
	rows, err := st.rows(ctx)
	if err != nil {
		return KeyInfo{}, fmt.Errorf("read keys: %w", err)
	}
	for _, k := range keys {
		if k.ID != id {
			continue
		}
		if !k.Revoked.IsZero() {
			return k, nil
		}
		sk := storedKey{KeyInfo: k}
		for _, r := range rows {
			if r.ID == id {
				sk.hash = r.hash
			}
		}
		if sk.hash == "" { // gateway.toml's: its hash is in the config
			for _, w := range cfg.Workspaces {
				for _, h := range w.APIKeySHA256 {
					if keyIDOf(strings.ToLower(h)) == id {
						sk.hash = strings.ToLower(h)
					}
				}
			}
		}
		sk.Revoked = now.UTC().Truncate(time.Millisecond)
		if err := st.revoke(ctx, sk); err != nil {
			return KeyInfo{}, fmt.Errorf("revoke key %s: %w", id, err)
		}
		return sk.KeyInfo, nil
	}
	return KeyInfo{}, fmt.Errorf("key ID: no key %q (see `hark serve keys list`)", id)
}
