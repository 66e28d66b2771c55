// Package limits is what keeps a gateway answering under load: the per-key
// rate limit (in memory, or in PostgreSQL shared by replicas), admission
// per route class, the cap of open streams per key, and the caps and
// deadlines of connections. Each limit of a request is middleware,
// func(http.Handler) http.Handler, that refuses with an *Error; it never
// writes a response itself, so the gateway words every answer in one
// place.
package limits

import (
	"context"
	"fmt"
	"math"
	"net/http"
	"sync"
	"time"

	"hark/gateway/store"
)

// Error is a request a limit refused: the HTTP status it answers with, a
// message that names the limit, and when to retry. Limit names it for
// counting: rate, limiter_unavailable, admission, streams_per_key,
// slow_body.
type Error struct {
	Status     int
	Msg        string
	RetryAfter time.Duration
	Limit      string
}

func (e *Error) Error() string { return e.Msg }

// Refuse answers a refused request; the gateway words it.
type Refuse func(w http.ResponseWriter, r *http.Request, err error)

// Schema is the shared rate limiter's table: PostgreSQL's only (one
// process serves gateway.db, and keeps its buckets in memory).
var Schema = store.Schema{Owner: "limits", Migrations: []store.Migration{
	{Name: "rate limiter buckets shared by replicas", Postgres: pgRateSchema},
}}

// pgRateSchema: one token bucket per API key, shared by every replica so
// that a key's rate holds across them (see pgRateLimiter).
const pgRateSchema = `CREATE TABLE gateway_rate_buckets (
		key_sha256 TEXT   PRIMARY KEY,
		tokens     DOUBLE PRECISION NOT NULL,
		last_ms    BIGINT NOT NULL,
		granted    BOOLEAN NOT NULL DEFAULT false
	);`

// RateLimiter is the per-key rate limit: a token bucket of rate tokens a
// second, at most burst saved up, the key's workspace's (or the
// gateway's). Allow takes a token for a key (its hex SHA-256), or says how
// long until one is available.
//
// GiveBack returns the token of a call that was refused before it ran
// (admission shed it as overload, or its client left while it queued):
// a key is limited by the calls the gateway served, and overload is the
// gateway's, not the key's.
type RateLimiter interface {
	Allow(ctx context.Context, key string, rate float64, burst int) (ok bool, retryAfter time.Duration, err error)
	GiveBack(ctx context.Context, key string, burst int) error
}

// Rate is a key's rate limit: tokens a second, and at most burst saved up.
type Rate struct {
	PerSecond float64
	Burst     int
}

// NewRateLimiter keeps the buckets where db can share them: in PostgreSQL
// when replicas share one, else in this process's memory (gateway.db is
// one machine's, and one `hark serve` serves it).
func NewRateLimiter(db *store.DB, now func() time.Time) RateLimiter {
	if now == nil {
		now = time.Now
	}
	if db != nil && db.Postgres() {
		return &pgRateLimiter{db: db, now: now}
	}
	return NewMemoryRateLimiter(now)
}

// RateLimit refuses a request whose key (key(r); "" is not limited) has
// no token left, with 429 and Retry-After, and with 503 when the shared
// buckets cannot be read: it never lets a key run past its rate on every
// replica at once.
func RateLimit(l RateLimiter, key func(*http.Request) (string, Rate), refuse Refuse) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			k, rt := key(r)
			if k == "" {
				next.ServeHTTP(w, r)
				return
			}
			rate, burst := rt.PerSecond, rt.Burst
			ok, wait, err := l.Allow(r.Context(), k, rate, burst)
			if err != nil {
				refuse(w, r, &Error{Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Limit: "limiter_unavailable",
					Msg: "rate limiter unavailable: the database does not answer; retry shortly"})
				return
			}
			if !ok {
				secs := int((wait + time.Second - 1) / time.Second)
				refuse(w, r, &Error{Status: http.StatusTooManyRequests, RetryAfter: wait, Limit: "rate", Msg: fmt.Sprintf(
					"rate limit exceeded: %g requests a second per API key (burst %d); retry after %d s",
					rate, burst, max(1, secs))})
				return
			}
			next.ServeHTTP(w, r)
		})
	}
}

// memoryRateLimiter is a token bucket per API key in memory. Buckets idle
// long enough to be full again are dropped.
type memoryRateLimiter struct {
	now func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	sweep   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
	full   time.Duration // from empty to full at the key's rate
}

// NewMemoryRateLimiter keeps the buckets in this process.
func NewMemoryRateLimiter(now func() time.Time) RateLimiter {
	if now == nil {
		now = time.Now
	}
	return &memoryRateLimiter{now: now, buckets: map[string]*bucket{}}
}

func (l *memoryRateLimiter) Allow(_ context.Context, key string, rate float64, burst int) (ok bool, retryAfter time.Duration, err error) {
	now := l.now()
	capacity := float64(burst)
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: capacity, last: now}
		l.buckets[key] = b
	}
	b.full = time.Duration(capacity / rate * float64(time.Second))
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(capacity, b.tokens+el*rate)
		b.last = now
	}
	b.tokens = math.Min(capacity, b.tokens) // a burst lowered meanwhile
	if now.Sub(l.sweep) > time.Minute {
		l.sweep = now
		for k, x := range l.buckets {
			if now.Sub(x.last) > x.full && k != key {
				delete(l.buckets, k)
			}
		}
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, nil
	}
	return false, time.Duration((1 - b.tokens) / rate * float64(time.Second)), nil
}

func (l *memoryRateLimiter) GiveBack(_ context.Context, key string, burst int) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.buckets[key]; b != nil {
		b.tokens = math.Min(float64(burst), b.tokens+1)
	}
	return nil
}

// pgRateLimiter keeps the buckets in PostgreSQL's gateway_rate_buckets,
// one row per key, so that a key's rate holds across every replica. Each
// Allow is one statement: the refill, the check and the take happen under
// the row's lock, so replicas take tokens in turn and never more than the
// bucket holds. A replica whose clock lags never refills (GREATEST), so
// skew can only make the limit stricter.
type pgRateLimiter struct {
	db  *store.DB
	now func() time.Time
}

// pgTake refills the bucket ($2 burst, $4 tokens a second, $3 now in ms),
// then takes a token if one is there; granted says whether it did. Only
// PostgreSQL runs it, so it is written with PostgreSQL's placeholders.
const pgTake = `
INSERT INTO gateway_rate_buckets AS b (key_sha256, tokens, last_ms, granted)
VALUES ($1, $2::float8 - 1, $3, true)
ON CONFLICT (key_sha256) DO UPDATE SET
	tokens = LEAST($2, b.tokens + GREATEST(0, $3 - b.last_ms) * $4::float8 / 1000)
	       - CASE WHEN LEAST($2, b.tokens + GREATEST(0, $3 - b.last_ms) * $4::float8 / 1000) >= 1 THEN 1 ELSE 0 END,
	last_ms = GREATEST(b.last_ms, $3),
	granted = LEAST($2, b.tokens + GREATEST(0, $3 - b.last_ms) * $4::float8 / 1000) >= 1
RETURNING granted, tokens`

func (l *pgRateLimiter) Allow(ctx context.Context, key string, rate float64, burst int) (ok bool, retryAfter time.Duration, err error) {
	var tokens float64
	if err := l.db.SQL().QueryRowContext(ctx, pgTake, key, float64(burst), l.now().UnixMilli(), rate).Scan(&ok, &tokens); err != nil {
		return false, 0, fmt.Errorf("rate limiter: %w", err)
	}
	if ok {
		return true, 0, nil
	}
	return false, time.Duration((1 - tokens) / rate * float64(time.Second)), nil
}

func (l *pgRateLimiter) GiveBack(ctx context.Context, key string, burst int) error {
	if _, err := l.db.SQL().ExecContext(ctx, `UPDATE gateway_rate_buckets SET tokens = LEAST($2::float8, tokens + 1) WHERE key_sha256 = $1`, key, float64(burst)); err != nil {
		return fmt.Errorf("rate limiter: %w", err)
	}
	return nil
}
