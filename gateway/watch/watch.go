// Package watch keeps the gateway's watched pages and checks them when
// they fall due: the page is read again politely (robots.txt, the host's
// pace and a conditional request, through the web engine's Recheck), its
// extracted text compared with the last, and on a change the text before
// it kept beside the new one, for clients to diff. A failed check backs
// off (doubling from a minute up to the watch's own interval, or longer
// when the site's Retry-After asks). Watches
// live in the gateway's database, one SQL text for SQLite and PostgreSQL;
// a check claims its watch first, so replicas that run checks at once
// never read one page twice. It must not fetch by itself: reading is the
// web engine's.
package watch

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/store"
)

// Schema is the watches' table, for both databases.
var Schema = store.Schema{Owner: "watches", Migrations: []store.Migration{
	{Name: "watched pages", SQLite: tables, Postgres: tables},
	{Name: "private reads travel with the watch", SQLite: privateRead, Postgres: privateRead},
}}

// privateRead records that the gateway a watch was added to read
// private addresses: a watch of one is checked so by any later process
// of that gateway, as a detached job is run (engine.WithPrivateAllowed).
const privateRead = `ALTER TABLE hark_watches ADD COLUMN private_read INTEGER NOT NULL DEFAULT 0;`

const tables = `CREATE TABLE IF NOT EXISTS hark_watches (
	id            TEXT PRIMARY KEY,
	workspace     TEXT NOT NULL,
	url           TEXT NOT NULL,
	label         TEXT NOT NULL DEFAULT '',
	every_s       BIGINT NOT NULL,
	allow_private INTEGER NOT NULL DEFAULT 0,
	etag          TEXT NOT NULL DEFAULT '',
	last_modified TEXT NOT NULL DEFAULT '',
	text          TEXT NOT NULL DEFAULT '',
	previous      TEXT NOT NULL DEFAULT '',
	checks        INTEGER NOT NULL DEFAULT 0,
	failures      INTEGER NOT NULL DEFAULT 0,
	error         TEXT NOT NULL DEFAULT '',
	changed       INTEGER NOT NULL DEFAULT 0,
	created       BIGINT NOT NULL,
	checked_at    BIGINT NOT NULL DEFAULT 0,
	changed_at    BIGINT NOT NULL DEFAULT 0,
	next_at       BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS hark_watches_ws ON hark_watches(workspace, created);
CREATE INDEX IF NOT EXISTS hark_watches_due ON hark_watches(next_at);`

// ErrNotFound is a watch ID of no watch of the caller's workspace.
var ErrNotFound = errors.New("no watch has this id")

// Store is the watches of a gateway's database.
type Store struct {
	db  *store.DB
	Now func() time.Time
	// running: this process's checks take turns, so that a "check now"
	// that comes while the loop checks waits for it and sees its result
	// (nodes apart are kept apart by the claims).
	running sync.Mutex
}

// Open brings the watches' table up to date.
func Open(ctx context.Context, db *store.DB) (*Store, error) {
	if err := store.Migrate(ctx, db, Schema); err != nil {
		return nil, fmt.Errorf("watches: %w", err)
	}
	return &Store{db: db, Now: time.Now}, nil
}

// row is a watch as stored, its texts included.
type row struct {
	api.Watch
	workspace, etag, lastModified, text, previous string
	// privateRead: the gateway it was added to read private addresses.
	privateRead bool
}

const columns = `id, workspace, url, label, every_s, allow_private, etag, last_modified, text, previous, checks, failures, error, changed, created, checked_at, changed_at, next_at, private_read`

func scan(sc interface{ Scan(...any) error }) (*row, error) {
	var r row
	var allow, changed, private int
	var created, checked, changedAt, next int64
	err := sc.Scan(&r.ID, &r.workspace, &r.URL, &r.Label, &r.EverySeconds, &allow, &r.etag, &r.lastModified, &r.text, &r.previous,
		&r.Checks, &r.Failures, &r.Error, &changed, &created, &checked, &changedAt, &next, &private)
	if err != nil {
		return nil, err
	}
	r.AllowPrivate, r.Changed, r.privateRead = allow != 0, changed != 0, private != 0
	r.Created, r.NextAt = time.UnixMilli(created).UTC(), time.UnixMilli(next).UTC()
	if checked > 0 {
		t := time.UnixMilli(checked).UTC()
		r.CheckedAt = &t
	}
	if changedAt > 0 {
		t := time.UnixMilli(changedAt).UTC()
		r.ChangedAt = &t
	}
	return &r, nil
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Add watches url for workspace, due at once (its first read is its
// baseline). The same URL watched again is the watch it already has,
// with the new interval and label. privateRead is the gateway's own
// reading of private addresses, never a caller's: a watch that asks for
// them (in.AllowPrivate) is checked with them when it was added where
// they are read.
func (s *Store) Add(ctx context.Context, workspace string, in api.WatchAdd, every time.Duration, privateRead bool) (*api.Watch, error) {
	now := s.Now()
	var id string
	err := s.db.QueryRow(ctx, `SELECT id FROM hark_watches WHERE workspace = ? AND url = ?`, workspace, in.URL).Scan(&id)
	switch {
	case err == nil:
		if _, err := s.db.Exec(ctx, `UPDATE hark_watches SET every_s = ?, label = ?, allow_private = ?, private_read = ? WHERE id = ?`,
			int64(every/time.Second), in.Label, b2i(in.AllowPrivate), b2i(privateRead), id); err != nil {
			return nil, err
		}
	case errors.Is(err, sql.ErrNoRows):
		var n int
		if err := s.db.QueryRow(ctx, `SELECT count(*) FROM hark_watches WHERE workspace = ?`, workspace).Scan(&n); err != nil {
			return nil, err
		}
		if n >= api.MaxWatchesPerSpace {
			return nil, fmt.Errorf("%w: a workspace watches at most %d pages", ErrTooMany, api.MaxWatchesPerSpace)
		}
		var b [16]byte
		rand.Read(b[:])
		id = hex.EncodeToString(b[:8])
		if _, err := s.db.Exec(ctx, `INSERT INTO hark_watches(id, workspace, url, label, every_s, allow_private, private_read, created, next_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
			id, workspace, in.URL, in.Label, int64(every/time.Second), b2i(in.AllowPrivate), b2i(privateRead), now.UnixMilli(), now.UnixMilli()); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	r, err := s.get(ctx, workspace, id)
	if err != nil {
		return nil, err
	}
	return &r.Watch, nil
}

// ErrTooMany is a workspace at its number of watches.
var ErrTooMany = errors.New("too many watches")

func (s *Store) get(ctx context.Context, workspace, id string) (*row, error) {
	r, err := scan(s.db.QueryRow(ctx, `SELECT `+columns+` FROM hark_watches WHERE id = ? AND workspace = ?`, id, workspace))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	return r, err
}

// Texts is a watch with its page's text before its last change and now.
func (s *Store) Texts(ctx context.Context, workspace, id string) (*api.WatchTexts, error) {
	r, err := s.get(ctx, workspace, id)
	if err != nil {
		return nil, err
	}
	return &api.WatchTexts{Watch: r.Watch, Previous: r.previous, Current: r.text}, nil
}

// List is the workspace's watches, oldest first, and how many changed
// since looked at.
func (s *Store) List(ctx context.Context, workspace string) (*api.WatchList, error) {
	rows, err := s.db.Query(ctx, `SELECT `+columns+` FROM hark_watches WHERE workspace = ? ORDER BY created, id`, workspace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := &api.WatchList{Watches: []api.Watch{}}
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out.Watches = append(out.Watches, r.Watch)
		if r.Changed {
			out.Changed++
		}
	}
	return out, rows.Err()
}

// Remove stops watching.
func (s *Store) Remove(ctx context.Context, workspace, id string) error {
	res, err := s.db.Exec(ctx, `DELETE FROM hark_watches WHERE id = ? AND workspace = ?`, id, workspace)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// Seen says the watch's change was looked at.
func (s *Store) Seen(ctx context.Context, workspace, id string) error {
	res, err := s.db.Exec(ctx, `UPDATE hark_watches SET changed = 0 WHERE id = ? AND workspace = ?`, id, workspace)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return ErrNotFound
	}
	return nil
}

// claimFor is how long a claimed check holds its watch: a node that
// died while checking leaves it due again after that.
const claimFor = 5 * time.Minute

// claim takes the watch for a check: its next_at moves on by claimFor
// (until, returned with an error too), only if no one moved it since it
// was read. false: another node has it.
func (s *Store) claim(ctx context.Context, r *row) (until int64, ok bool, err error) {
	until = s.Now().Add(claimFor).UnixMilli()
	res, err := s.db.Exec(ctx, `UPDATE hark_watches SET next_at = ? WHERE id = ? AND next_at = ?`, until, r.ID, r.NextAt.UnixMilli())
	if err != nil {
		return until, false, err
	}
	n, _ := res.RowsAffected()
	return until, n == 1, nil
}

// Backoff is how long after failures checks in a row the next one
// comes: a minute, doubling, never past the watch's own interval. A
// site that answered 429 or 503 with Retry-After is left alone at least
// as long as it asked (up to MaxRetryAfter), even past the interval.
func Backoff(failures int, every time.Duration) time.Duration {
	d := time.Minute
	for i := 1; i < failures && d < every; i++ {
		d *= 2
	}
	return min(d, every)
}

// MaxRetryAfter bounds the wait a site's Retry-After imposes on a
// watch (a date a year away is taken as a week).
const MaxRetryAfter = 7 * 24 * time.Hour

// Normalize is a page's text as watches compare it: a change of
// spacing or line breaks alone is no change.
func Normalize(text string) string {
	lines := strings.Split(text, "\n")
	var out []string
	for _, l := range lines {
		if l = strings.Join(strings.Fields(l), " "); l != "" {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

// Check reads the watch's page again through rc and records what it
// found. It claims the watch first: false when another node has it.
func (s *Store) check(ctx context.Context, rc engine.Rechecker, r *row) (bool, error) {
	// Stopped (the process ends): the claim is let go, so that the watch
	// is due again at once, not after claimFor. A claim whose update was
	// stopped may have been written all the same.
	var until int64
	release := func() {
		s.db.Exec(context.WithoutCancel(ctx), `UPDATE hark_watches SET next_at = ? WHERE id = ? AND next_at = ?`,
			r.NextAt.UnixMilli(), r.ID, until)
	}
	until, ok, err := s.claim(ctx, r)
	if err != nil || !ok {
		if err != nil && ctx.Err() != nil {
			release()
		}
		return false, err
	}
	if r.AllowPrivate && r.privateRead {
		ctx = engine.WithPrivateAllowed(ctx)
	}
	now := s.Now()
	got, ferr := rc.Recheck(ctx, r.URL, r.etag, r.lastModified)
	if ferr != nil && ctx.Err() != nil {
		release()
		return false, ctx.Err()
	}
	// What the check found is written even if the process is stopping
	// meanwhile, or the watch would keep its claim.
	ctx = context.WithoutCancel(ctx)
	if ferr != nil {
		fails := r.Failures + 1
		wait := max(Backoff(fails, r.Every()), min(engine.RetryAfter(ferr), MaxRetryAfter))
		_, err := s.db.Exec(ctx, `UPDATE hark_watches SET checked_at = ?, checks = checks + 1, failures = ?, error = ?, next_at = ? WHERE id = ?`,
			now.UnixMilli(), fails, truncate(ferr.Error(), 500), now.Add(wait).UnixMilli(), r.ID)
		return true, err
	}
	next := now.Add(r.Every()).UnixMilli()
	text, etag, lastMod := got.Text, got.ETag, got.LastModified
	if got.NotModified {
		_, err := s.db.Exec(ctx, `UPDATE hark_watches SET checked_at = ?, checks = checks + 1, failures = 0, error = '', etag = ?, last_modified = ?, next_at = ? WHERE id = ?`,
			now.UnixMilli(), etag, lastMod, next, r.ID)
		return true, err
	}
	text = Normalize(text)
	switch {
	case r.Checks == 0 || r.text == "" && r.previous == "":
		// The first read is the baseline, not a change.
		_, err = s.db.Exec(ctx, `UPDATE hark_watches SET text = ?, checked_at = ?, checks = checks + 1, failures = 0, error = '', etag = ?, last_modified = ?, next_at = ? WHERE id = ?`,
			text, now.UnixMilli(), etag, lastMod, next, r.ID)
	case text != r.text:
		_, err = s.db.Exec(ctx, `UPDATE hark_watches SET previous = text, text = ?, changed = 1, changed_at = ?, checked_at = ?, checks = checks + 1, failures = 0, error = '', etag = ?, last_modified = ?, next_at = ? WHERE id = ?`,
			text, now.UnixMilli(), now.UnixMilli(), etag, lastMod, next, r.ID)
	default:
		_, err = s.db.Exec(ctx, `UPDATE hark_watches SET checked_at = ?, checks = checks + 1, failures = 0, error = '', etag = ?, last_modified = ?, next_at = ? WHERE id = ?`,
			now.UnixMilli(), etag, lastMod, next, r.ID)
	}
	return true, err
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// RecheckerFor gives the rechecker of a workspace (nil when it has no
// web engine that can read pages again).
type RecheckerFor func(workspace string) engine.Rechecker

// CheckOne checks one watch now, whether due or not.
func (s *Store) CheckOne(ctx context.Context, rc RecheckerFor, workspace, id string) error {
	s.running.Lock()
	defer s.running.Unlock()
	r, err := s.get(ctx, workspace, id)
	if err != nil {
		return err
	}
	c := rc(workspace)
	if c == nil {
		return errors.New("watch: this workspace's web engine cannot read pages again")
	}
	_, err = s.check(ctx, c, r)
	return err
}

// RunDue checks every watch due now (of workspace, or of every
// workspace when ""), one after another, and returns how many it checked
// and when the next one falls due (zero when none is watched).
func (s *Store) RunDue(ctx context.Context, rc RecheckerFor, workspace string) (int, time.Time, error) {
	s.running.Lock()
	defer s.running.Unlock()
	q := `SELECT ` + columns + ` FROM hark_watches WHERE next_at <= ?`
	args := []any{s.Now().UnixMilli()}
	if workspace != "" {
		q += ` AND workspace = ?`
		args = append(args, workspace)
	}
	rows, err := s.db.Query(ctx, q+` ORDER BY next_at LIMIT 100`, args...)
	if err != nil {
		return 0, time.Time{}, err
	}
	var due []*row
	for rows.Next() {
		r, err := scan(rows)
		if err != nil {
			rows.Close()
			return 0, time.Time{}, err
		}
		due = append(due, r)
	}
	rows.Close()
	n := 0
	for _, r := range due {
		c := rc(r.workspace)
		if c == nil {
			continue
		}
		ok, err := s.check(ctx, c, r)
		if err != nil {
			return n, time.Time{}, err
		}
		if ok {
			n++
		}
	}
	var next int64
	if err := s.db.QueryRow(ctx, `SELECT COALESCE(MIN(next_at), 0) FROM hark_watches`).Scan(&next); err != nil {
		return n, time.Time{}, err
	}
	if next == 0 {
		return n, time.Time{}, nil
	}
	return n, time.UnixMilli(next), nil
}
