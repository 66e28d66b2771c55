package jobs

// The jobs' own tables, beside River's: what each job is (its tool, input
// and workspace), where it stands, its result, and its event log. River
// decides which node runs a job; these rows are what every replica reads
// to list, replay and follow it. One SQL text serves SQLite and
// PostgreSQL: ? placeholders, rebound to $n for PostgreSQL (gateway/store).

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hark/gateway/store"
)

// Schema is the jobs' own tables, for both databases; River's are its
// own migrations' (Migrate runs both). IF NOT EXISTS: the tables were
// made before the jobs kept a version of their own.
var Schema = store.Schema{Owner: "jobs", Migrations: []store.Migration{
	{Name: "jobs and their event logs", SQLite: tables, Postgres: tables},
	{Name: "what a job carries besides its inputs (Job.Meta)", SQLite: addMeta, Postgres: addMeta},
}}

// addMeta is the meta column (Job.Meta): JSON, empty for none.
const addMeta = `ALTER TABLE hark_jobs ADD COLUMN meta TEXT NOT NULL DEFAULT ''`

const tables = `CREATE TABLE IF NOT EXISTS hark_jobs (
	id        TEXT PRIMARY KEY,
	workspace TEXT NOT NULL,
	tool      TEXT NOT NULL,
	input     TEXT NOT NULL,
	state     TEXT NOT NULL,
	attempt   INTEGER NOT NULL DEFAULT 0,
	node      TEXT NOT NULL DEFAULT '',
	beat      BIGINT NOT NULL DEFAULT 0,
	river_id  BIGINT NOT NULL DEFAULT 0,
	output    TEXT NOT NULL DEFAULT '',
	error     TEXT NOT NULL DEFAULT '',
	code      INTEGER NOT NULL DEFAULT 0,
	created   BIGINT NOT NULL,
	updated   BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS hark_jobs_ws ON hark_jobs(workspace, created);
CREATE INDEX IF NOT EXISTS hark_jobs_state ON hark_jobs(state);
CREATE TABLE IF NOT EXISTS hark_job_events (
	job_id TEXT NOT NULL,
	seq    INTEGER NOT NULL,
	ts     BIGINT NOT NULL,
	kind   TEXT NOT NULL,
	msg    TEXT NOT NULL,
	PRIMARY KEY (job_id, seq)
);`

// records are the jobs' rows in the gateway's database.
type records struct {
	db *store.DB
}

func (s *records) exec(ctx context.Context, query string, args ...any) (int64, error) {
	res, err := s.db.Exec(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

func (s *records) create(ctx context.Context, j *Job) error {
	now := time.Now().UnixMilli()
	meta := ""
	if j.Meta != (Meta{}) {
		b, _ := json.Marshal(j.Meta)
		meta = string(b)
	}
	_, err := s.exec(ctx, `INSERT INTO hark_jobs(id, workspace, tool, input, state, created, updated, meta) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
		j.ID, j.Workspace, j.Tool, string(j.Input), StateQueued, now, now, meta)
	if err != nil {
		return fmt.Errorf("record job: %w", err)
	}
	return nil
}

const jobColumns = `id, workspace, tool, input, state, attempt, node, output, error, code, created, updated, meta`

func scanJob(sc interface{ Scan(...any) error }) (*Job, error) {
	var j Job
	var input, output, meta string
	var created, updated int64
	if err := sc.Scan(&j.ID, &j.Workspace, &j.Tool, &input, &j.State, &j.Attempt, &j.Node, &output, &j.Error, &j.Code, &created, &updated, &meta); err != nil {
		return nil, err
	}
	if meta != "" {
		if err := json.Unmarshal([]byte(meta), &j.Meta); err != nil {
			return nil, fmt.Errorf("job %s: meta: %w", j.ID, err)
		}
	}
	j.Input = []byte(input)
	if output != "" {
		j.Output = []byte(output)
	}
	j.Created = time.UnixMilli(created).UTC()
	j.Updated = time.UnixMilli(updated).UTC()
	return &j, nil
}

// get reads a job; workspace "" reads any workspace's.
func (s *records) get(ctx context.Context, workspace, id string) (*Job, error) {
	q := `SELECT ` + jobColumns + ` FROM hark_jobs WHERE id = ?`
	args := []any{id}
	if workspace != "" {
		q += ` AND workspace = ?`
		args = append(args, workspace)
	}
	j, err := scanJob(s.db.QueryRow(ctx, q, args...))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("read job: %w", err)
	}
	return j, nil
}

func (s *records) list(ctx context.Context, workspace string, active bool, limit int) ([]Job, error) {
	q := `SELECT ` + jobColumns + ` FROM hark_jobs WHERE workspace = ?`
	if active {
		q += ` AND state IN ('queued', 'running')`
	}
	q += ` ORDER BY created DESC, id LIMIT ?`
	rows, err := s.db.Query(ctx, q, workspace, limit)
	if err != nil {
		return nil, fmt.Errorf("list jobs: %w", err)
	}
	defer rows.Close()
	out := []Job{}
	for rows.Next() {
		j, err := scanJob(rows)
		if err != nil {
			return nil, fmt.Errorf("list jobs: %w", err)
		}
		j.Output = nil // a list names jobs, by their inputs; Get gives their results
		out = append(out, *j)
	}
	return out, rows.Err()
}

// event appends to a job's log. The sequence number is the log's next;
// two writers of one job's log (a node that is taking a job over, and
// the one it takes it from) may collide on it once, so it retries.
func (s *records) event(ctx context.Context, id, kind, msg string) error {
	var err error
	for range 5 {
		_, err = s.exec(ctx, `INSERT INTO hark_job_events(job_id, seq, ts, kind, msg)
			SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM hark_job_events WHERE job_id = ?`,
			id, time.Now().UnixMilli(), kind, msg, id)
		if err == nil {
			return nil
		}
	}
	return fmt.Errorf("job event: %w", err)
}

func (s *records) events(ctx context.Context, id string, after int) ([]Event, error) {
	rows, err := s.db.Query(ctx, `SELECT seq, ts, kind, msg FROM hark_job_events WHERE job_id = ? AND seq > ? ORDER BY seq`, id, after)
	if err != nil {
		return nil, fmt.Errorf("read job events: %w", err)
	}
	defer rows.Close()
	out := []Event{}
	for rows.Next() {
		var e Event
		var ts int64
		if err := rows.Scan(&e.Seq, &ts, &e.Kind, &e.Msg); err != nil {
			return nil, fmt.Errorf("read job events: %w", err)
		}
		e.Time = time.UnixMilli(ts).UTC()
		out = append(out, e)
	}
	return out, rows.Err()
}

// counts is the number of jobs by state.
func (s *records) counts(ctx context.Context) (map[string]int, error) {
	rows, err := s.db.Query(ctx, `SELECT state, count(*) FROM hark_jobs GROUP BY state`)
	if err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	type sc struct {
		state string
		n     int
	}
	list, err := store.Rows(rows, func(scan func(...any) error) (sc, error) {
		var r sc
		return r, scan(&r.state, &r.n)
	})
	if err != nil {
		return nil, fmt.Errorf("count jobs: %w", err)
	}
	out := map[string]int{StateQueued: 0, StateRunning: 0, StateCompleted: 0, StateFailed: 0}
	for _, r := range list {
		out[r.state] = r.n
	}
	return out, nil
}

// claim makes node the runner of a queued job, or of a running one whose
// runner stopped beating before staleBefore. False: another node runs it,
// or it has ended.
func (s *records) claim(ctx context.Context, id, node string, attempt int, staleBefore time.Time) (bool, error) {
	now := time.Now().UnixMilli()
	n, err := s.exec(ctx, `UPDATE hark_jobs SET state = ?, node = ?, attempt = ?, beat = ?, updated = ?
		WHERE id = ? AND (state = ? OR (state = ? AND beat < ?))`,
		StateRunning, node, attempt, now, now, id, StateQueued, StateRunning, staleBefore.UnixMilli())
	return n == 1, err
}

// beat says node still runs job id; false when another node took it over.
func (s *records) beat(ctx context.Context, id, node string) (bool, error) {
	n, err := s.exec(ctx, `UPDATE hark_jobs SET beat = ? WHERE id = ? AND node = ? AND state = ?`,
		time.Now().UnixMilli(), id, node, StateRunning)
	return n == 1, err
}

// finish records a job's end, if node still runs it, and its last log
// entry in the same transaction: a follower that sees the job ended has
// its whole log.
func (s *records) finish(ctx context.Context, id, node, state string, output []byte, code int, msg, kind, eventMsg string) (bool, error) {
	mine := false
	err := s.db.Tx(ctx, func(tx *store.Tx) error {
		now := time.Now().UnixMilli()
		res, err := tx.Exec(ctx, `UPDATE hark_jobs SET state = ?, output = ?, code = ?, error = ?, updated = ? WHERE id = ? AND node = ? AND state = ?`,
			state, string(output), code, msg, now, id, node, StateRunning)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return err
		}
		mine = true
		_, err = tx.Exec(ctx, `INSERT INTO hark_job_events(job_id, seq, ts, kind, msg)
		SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM hark_job_events WHERE job_id = ?`, id, now, kind, eventMsg, id)
		return err
	})
	return mine && err == nil, err
}

// requeue gives a job that node stops running (it shuts down) back to
// the queue.
func (s *records) requeue(ctx context.Context, id, node string) error {
	_, err := s.exec(ctx, `UPDATE hark_jobs SET state = ?, node = '', updated = ? WHERE id = ? AND node = ? AND state = ?`,
		StateQueued, time.Now().UnixMilli(), id, node, StateRunning)
	return err
}

func (s *records) setRiverID(ctx context.Context, id string, riverID int64) error {
	_, err := s.exec(ctx, `UPDATE hark_jobs SET river_id = ? WHERE id = ?`, riverID, id)
	return err
}

// orphan is a running job whose node stopped beating.
type orphan struct {
	id, node string
	riverID  int64
}

func (s *records) stale(ctx context.Context, before time.Time) ([]orphan, error) {
	rows, err := s.db.Query(ctx, `SELECT id, node, river_id FROM hark_jobs WHERE state = ? AND beat < ?`, StateRunning, before.UnixMilli())
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []orphan
	for rows.Next() {
		var o orphan
		if err := rows.Scan(&o.id, &o.node, &o.riverID); err != nil {
			return nil, err
		}
		out = append(out, o)
	}
	return out, rows.Err()
}

// release gives an orphan back to the queue, if it is still the orphan
// it was (another node's reaper may have been first), and makes its
// River job available again: River itself would wait RescueStuckJobsAfter
// (an hour), since it has no heartbeat of its own.
func (s *records) release(ctx context.Context, o orphan, before time.Time) (bool, error) {
	n, err := s.exec(ctx, `UPDATE hark_jobs SET state = ?, node = '', updated = ? WHERE id = ? AND state = ? AND node = ? AND beat < ?`,
		StateQueued, time.Now().UnixMilli(), o.id, StateRunning, o.node, before.UnixMilli())
	if err != nil || n == 0 {
		return false, err
	}
	if o.riverID != 0 {
		if _, err := s.exec(ctx, `UPDATE river_job SET state = 'available' WHERE id = ? AND state = 'running'`, o.riverID); err != nil {
			return true, err
		}
	}
	return true, nil
}

// prune deletes the ended jobs last changed before before, with their
// logs: results are kept for a while for a client to come back to, not
// for ever.
func (s *records) prune(ctx context.Context, before time.Time) error {
	b := before.UnixMilli()
	if _, err := s.exec(ctx, `DELETE FROM hark_job_events WHERE job_id IN (SELECT id FROM hark_jobs WHERE state IN (?, ?) AND updated < ?)`,
		StateCompleted, StateFailed, b); err != nil {
		return err
	}
	_, err := s.exec(ctx, `DELETE FROM hark_jobs WHERE state IN (?, ?) AND updated < ?`, StateCompleted, StateFailed, b)
	return err
}

// cancel ends a queued or running job of workspace as failed, with its
// last log entry; the node that runs it sees at its next beat that it no
// longer does, and stops. False: the job had ended already.
func (s *records) cancel(ctx context.Context, workspace, id string) (bool, error) {
	ended := false
	err := s.db.Tx(ctx, func(tx *store.Tx) error {
		now := time.Now().UnixMilli()
		res, err := tx.Exec(ctx, `UPDATE hark_jobs SET state = ?, code = ?, error = ?, updated = ? WHERE id = ? AND workspace = ? AND state IN (?, ?)`,
			StateFailed, CodeCancelled, MsgCancelled, now, id, workspace, StateQueued, StateRunning)
		if err != nil {
			return err
		}
		if n, err := res.RowsAffected(); err != nil || n != 1 {
			return err
		}
		ended = true
		_, err = tx.Exec(ctx, `INSERT INTO hark_job_events(job_id, seq, ts, kind, msg)
		SELECT ?, COALESCE(MAX(seq), 0) + 1, ?, ?, ? FROM hark_job_events WHERE job_id = ?`, id, now, "failed", MsgCancelled, id)
		return err
	})
	return ended && err == nil, err
}
