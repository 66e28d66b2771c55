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
	{Name: "keys expire, and are rotated with an overlap", SQLite: expiresColumn, Postgres: expiresColumn},
}}

// expiresColumn: a key's end (unix ms), NULL for none; a key of
// gateway.toml gets a row for it, as for a revocation.
const expiresColumn = `ALTER TABLE gateway_keys ADD COLUMN expires_ms BIGINT`

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
	Revoked   time.Time // zero unless revoked
	Expires   time.Time // zero for a key that does not expire
}

// Active reports whether the key works at now.
func (k KeyInfo) Active(now time.Time) bool {
	return k.Revoked.IsZero() && (k.Expires.IsZero() || now.Before(k.Expires))
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
const keyColumns = `id,key_sha256,workspace,name,source,created_ms,revoked_ms,expires_ms`

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
	var revoked, expires sql.NullInt64
	if err := scan(&k.ID, &k.hash, &k.Workspace, &k.Name, &k.Source, &created, &revoked, &expires); err != nil {
		return storedKey{}, err
	}
	if expires.Valid {
		k.Expires = time.UnixMilli(expires.Int64).UTC()
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
	_, err := st.db.Exec(ctx, `INSERT INTO gateway_keys(id,key_sha256,workspace,name,source,created_ms,expires_ms) VALUES(?,?,?,?,?,?,?)`,
		k.ID, k.hash, k.Workspace, k.Name, k.Source, k.Created.UnixMilli(), zeroOrMs(k.Expires))
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

// expire sets the end of the key of k.hash to k.Expires, inserting k
// when there is no row (a key of gateway.toml); an earlier end stays.
func (st *Store) expire(ctx context.Context, k storedKey) error {
	_, err := st.db.Exec(ctx, `INSERT INTO gateway_keys(id,key_sha256,workspace,name,source,created_ms,expires_ms) VALUES(?,?,?,?,?,?,?)
		ON CONFLICT(key_sha256) DO UPDATE SET expires_ms = CASE
			WHEN gateway_keys.expires_ms IS NULL OR gateway_keys.expires_ms > excluded.expires_ms THEN excluded.expires_ms
			ELSE gateway_keys.expires_ms END`,
		k.ID, k.hash, k.Workspace, k.Name, k.Source, k.Created.UnixMilli(), zeroOrMs(k.Expires))
	return err
}

func zeroOrMs(t time.Time) *int64 {
	if t.IsZero() {
		return nil
	}
	ms := t.UnixMilli()
	return &ms
}

// activeKeys is what a gateway accepts at now: cfg's keys that the
// database has neither revoked nor ended, and the database's keys neither
// revoked nor ended, of a workspace this gateway has. A key that will end
// keeps its end, for the lookup to check.
func activeKeys(cfg []config.Workspace, rows []storedKey, hasWorkspace func(string) bool, now time.Time) []storedKey {
	byHash := map[string]storedKey{}
	for _, r := range rows {
		byHash[r.hash] = r
	}
	var out []storedKey
	for _, w := range cfg {
		for _, h := range w.APIKeySHA256 {
			h = strings.ToLower(h)
			k := storedKey{KeyInfo: KeyInfo{ID: keyIDOf(h), Workspace: w.Name, Source: KeySourceConfig}, hash: h}
			if r, ok := byHash[h]; ok {
				k.Revoked, k.Expires = r.Revoked, r.Expires
			}
			if k.Active(now) {
				out = append(out, k)
			}
		}
	}
	for _, r := range rows {
		if r.Source == KeySourceDB && r.Active(now) && hasWorkspace(r.Workspace) {
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
				k.Revoked, k.Expires = r.Revoked, r.Expires
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

// New is a key to make.
type New struct {
	Workspace string
	Name      string    // a label, such as its holder
	Expires   time.Time // zero: it does not expire
}

// Add makes a new key of a workspace in force (workspaces: gateway.toml's
// and the database's) and stores its SHA-256; the key itself is returned
// once, for the caller to show, and kept nowhere. cfg's keys' IDs are
// taken.
func (st *Store) Add(ctx context.Context, cfg *config.Config, workspaces []string, n New, now time.Time) (string, KeyInfo, error) {
	workspace, name := n.Workspace, n.Name
	found := false
	for _, w := range workspaces {
		found = found || w == workspace
	}
	if !found {
		list := strings.Join(workspaces, ", ")
		if list == "" {
			list = "none yet: hark serve workspaces add NAME"
		}
		return "", KeyInfo{}, fmt.Errorf("workspace: %q is not a workspace of gateway.toml or the database (there are: %s)", workspace, list)
	}
	if !n.Expires.IsZero() && !n.Expires.After(now) {
		return "", KeyInfo{}, errors.New("expires: must be in the future")
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
		k := storedKey{KeyInfo: KeyInfo{ID: keyIDOf(h), Name: name, Workspace: workspace, Source: KeySourceDB,
			Created: now.UTC().Truncate(time.Millisecond), Expires: n.Expires.UTC().Truncate(time.Millisecond)}, hash: h}
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

// find is the key of an ID, with its hash, among cfg's and the database's.
func (st *Store) find(ctx context.Context, cfg *config.Config, id string) (storedKey, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	keys, err := st.List(ctx, cfg)
	if err != nil {
		return storedKey{}, err
	}
	rows, err := st.rows(ctx)
	if err != nil {
		return storedKey{}, fmt.Errorf("read keys: %w", err)
	}
	for _, k := range keys {
		if k.ID != id {
			continue
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
		return sk, nil
	}
	return storedKey{}, fmt.Errorf("key ID: no key %q (see `hark serve keys list`)", id)
}

// Rotate replaces the key with this ID by a new key of its workspace and
// name, returned once; the old key keeps working for overlap, then ends
// (an earlier end stays), so that its holders can move to the new one.
// A key of gateway.toml can be rotated too: its end is kept in the
// database.
func (st *Store) Rotate(ctx context.Context, cfg *config.Config, workspaces []string, id string, overlap time.Duration, now time.Time) (string, KeyInfo, KeyInfo, error) {
	if overlap < 0 {
		return "", KeyInfo{}, KeyInfo{}, errors.New("overlap: must not be negative")
	}
	old, err := st.find(ctx, cfg, id)
	if err != nil {
		return "", KeyInfo{}, KeyInfo{}, err
	}
	if !old.Active(now) {
		return "", KeyInfo{}, KeyInfo{}, fmt.Errorf("key ID: %s no longer works (revoked or ended); add a new key instead", old.ID)
	}
	key, info, err := st.Add(ctx, cfg, workspaces, New{Workspace: old.Workspace, Name: old.Name, Expires: old.Expires}, now)
	if err != nil {
		return "", KeyInfo{}, KeyInfo{}, err
	}
	end := now.Add(overlap).UTC().Truncate(time.Millisecond)
	if old.Expires.IsZero() || end.Before(old.Expires) {
		old.Expires = end
	}
	if err := st.expire(ctx, old); err != nil {
		return "", KeyInfo{}, KeyInfo{}, fmt.Errorf("end key %s: %w", old.ID, err)
	}
	return key, info, old.KeyInfo, nil
}
