// Package tasks keeps research's tasks in web_research: each
// request_id's status, report, sources and passages. The table sits in
// the gateway's database beside the web index, and several processes
// share it (the TUI, hark index, a second hark).
package tasks

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"hark/api"
	"hark/gateway/engine"
	dbstore "hark/gateway/store"
)

// Store is the task table of one database.
type Store struct{ db *sql.DB }

// Schema is the research tasks' table, in gateway.db only: research
// runs beside the web index of its data directory (PostgreSQL's has no
// use for it).
var Schema = dbstore.Schema{Owner: "research", Migrations: []dbstore.Migration{
	{Name: "research tasks, their reports, sources and passages", Func: createTable},
	{Name: "a written report's model and sentence checks", Func: addWritten},
}}

// addWritten adds the column that keeps who wrote a report and each
// sentence's check (api.ResearchWritten, as JSON; empty for an
// extractive report).
func addWritten(ctx context.Context, tx *dbstore.Tx) error {
	if tx.Dialect() != dbstore.SQLite {
		return nil
	}
	_, err := tx.Exec(ctx, `ALTER TABLE web_research ADD COLUMN written TEXT NOT NULL DEFAULT ''`)
	return err
}

// createTable makes web_research, IF NOT EXISTS since research made it
// itself before it had a version, and adds the passages column to one
// made before quotes carried their passages (those reports have none).
func createTable(ctx context.Context, tx *dbstore.Tx) error {
	if tx.Dialect() != dbstore.SQLite {
		return nil
	}
	if _, err := tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS web_research (
	id      TEXT PRIMARY KEY,
	input   TEXT NOT NULL,
	model   TEXT NOT NULL,
	status  TEXT NOT NULL,
	content TEXT NOT NULL DEFAULT '',
	sources TEXT NOT NULL DEFAULT '[]',
	error   TEXT NOT NULL DEFAULT '',
	created INTEGER NOT NULL,
	updated INTEGER NOT NULL
)`); err != nil {
		return err
	}
	var has int
	if err := tx.QueryRow(ctx, `SELECT count(*) FROM pragma_table_info('web_research') WHERE name = 'passages'`).Scan(&has); err != nil {
		return err
	}
	if has == 0 {
		if _, err := tx.Exec(ctx, `ALTER TABLE web_research ADD COLUMN passages TEXT NOT NULL DEFAULT '[]'`); err != nil {
			return err
		}
	}
	return nil
}

// Open brings the task table (Schema) up to date.
func Open(db *sql.DB) (*Store, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := dbstore.Migrate(ctx, dbstore.FromSQLite(db), Schema); err != nil {
		return nil, fmt.Errorf("research: %w", err)
	}
	return &Store{db: db}, nil
}

// Create starts task id over, pending.
func (s *Store) Create(ctx context.Context, id, input, model string) error {
	now := time.Now().Unix()
	// A job retried after its node died runs its task again under the
	// same id: the row starts over.
	_, err := s.db.ExecContext(ctx, `INSERT INTO web_research(id, input, model, status, created, updated) VALUES (?, ?, ?, ?, ?, ?)
		ON CONFLICT(id) DO UPDATE SET input = excluded.input, model = excluded.model, status = excluded.status,
		content = '', sources = '[]', passages = '[]', written = '', error = '', updated = excluded.updated`,
		id, input, model, api.ResearchPending, now, now)
	if err != nil {
		return fmt.Errorf("research task: %w", err)
	}
	return nil
}

// SetStatus sets task id's status, and so its heartbeat.
func (s *Store) SetStatus(ctx context.Context, id, status string) error {
	_, err := s.db.ExecContext(ctx, `UPDATE web_research SET status = ?, updated = ? WHERE id = ?`, status, time.Now().Unix(), id)
	return err
}

// Finish records task id's end: its status, report, sources, passages,
// what wrote it and, for a failed task, why.
func (s *Store) Finish(ctx context.Context, id, status, content string, sources []api.ResearchSource, passages []api.ResearchPassage, written *api.ResearchWritten, msg string) error {
	if sources == nil {
		sources = []api.ResearchSource{}
	}
	if passages == nil {
		passages = []api.ResearchPassage{}
	}
	sj, _ := json.Marshal(sources)
	pj, _ := json.Marshal(passages)
	wj := ""
	if written != nil {
		b, _ := json.Marshal(written)
		wj = string(b)
	}
	_, err := s.db.ExecContext(ctx, `UPDATE web_research SET status = ?, content = ?, sources = ?, passages = ?, written = ?, error = ?, updated = ? WHERE id = ?`,
		status, content, string(sj), string(pj), wj, msg, time.Now().Unix(), id)
	return err
}

// Get reads a task. A failed task's reason is returned in the output's
// extra field "error".
func (s *Store) Get(ctx context.Context, id string) (*api.ResearchOutput, error) {
	if err := s.failStale(ctx, id); err != nil {
		return nil, fmt.Errorf("research task: %w", err)
	}
	var status, content, sources, passages, written, msg string
	err := s.db.QueryRowContext(ctx, `SELECT status, content, sources, passages, written, error FROM web_research WHERE id = ?`, id).Scan(&status, &content, &sources, &passages, &written, &msg)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, &engine.InputError{Field: "request_id", Rule: "no research task has this id"}
	}
	if err != nil {
		return nil, fmt.Errorf("research task: %w", err)
	}
	out := &api.ResearchOutput{RequestID: id, Status: status, Sources: []api.ResearchSource{}}
	if status == api.ResearchCompleted {
		out.Content = content
	}
	_ = json.Unmarshal([]byte(sources), &out.Sources)
	if status == api.ResearchCompleted {
		_ = json.Unmarshal([]byte(passages), &out.Passages)
		if written != "" {
			out.Written = &api.ResearchWritten{}
			_ = json.Unmarshal([]byte(written), out.Written)
		}
	}
	if msg != "" {
		ej, _ := json.Marshal(msg)
		out.Extra = api.Extra{"error": ej}
	}
	return out, nil
}

// A running task writes its status every Heartbeat; one whose row has
// not changed for Stale was left by a process that
// stopped (several processes share the database: the TUI, hark index, a
// second hark), and is failed rather than left in_progress forever.
const (
	Heartbeat = 5 * time.Second
	Stale     = 4 * Heartbeat
)

// FailInterrupted marks failed the tasks whose process stopped
// before they ended. A task another live process runs keeps beating and
// is left alone.
func (s *Store) FailInterrupted() error {
	return s.failStale(context.Background(), "")
}

// failStale fails the stale tasks, or only task id when it is set.
func (s *Store) failStale(ctx context.Context, id string) error {
	now := time.Now()
	q := `UPDATE web_research SET status = ?, error = ?, updated = ? WHERE status IN (?, ?) AND updated < ?`
	args := []any{api.ResearchFailed, "interrupted: the gateway stopped before the task ended", now.Unix(),
		api.ResearchPending, api.ResearchInProgress, now.Add(-Stale).Unix()}
	if id != "" {
		q += ` AND id = ?`
		args = append(args, id)
	}
	_, err := s.db.ExecContext(ctx, q, args...)
	return err
}
