package gateway

import (
	"context"
	"fmt"
	"math"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
)

// limiter is the per-key rate limit: a token bucket of rate tokens a
// second, at most burst saved up. allow takes a token for a key (its hex
// SHA-256), or says how long until one is available.
//
// giveBack returns the token of a call that was refused before it ran
// (admission shed it as overload, or its client left while it queued):
// a key is limited by the calls the gateway served, and overload is the
// gateway's, not the key's.
type limiter interface {
	allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration, err error)
	giveBack(ctx context.Context, key string) error
}

// newLimiter keeps the buckets where the ledger's database can share them:
// in PostgreSQL when replicas share one, else in this process's memory
// (gateway.db is one machine's, and one `hark serve` serves it).
func newLimiter(store UsageLedger, rate float64, burst int, now func() time.Time) limiter {
	if pg, ok := store.(*PGLedger); ok {
		return &pgRateLimiter{pool: pg.pool, rate: rate, burst: float64(burst), now: now}
	}
	return newRateLimiter(rate, burst, now)
}

// rateLimiter is a token bucket per API key in memory. Buckets idle long
// enough to be full again are dropped.
type rateLimiter struct {
	rate  float64
	burst float64
	now   func() time.Time

	mu      sync.Mutex
	buckets map[string]*bucket
	sweep   time.Time
}

type bucket struct {
	tokens float64
	last   time.Time
}

func newRateLimiter(rate float64, burst int, now func() time.Time) *rateLimiter {
	return &rateLimiter{rate: rate, burst: float64(burst), now: now, buckets: map[string]*bucket{}}
}

func (l *rateLimiter) allow(_ context.Context, key string) (ok bool, retryAfter time.Duration, err error) {
	now := l.now()
	l.mu.Lock()
	defer l.mu.Unlock()
	b := l.buckets[key]
	if b == nil {
		b = &bucket{tokens: l.burst, last: now}
		l.buckets[key] = b
	}
	if el := now.Sub(b.last).Seconds(); el > 0 {
		b.tokens = math.Min(l.burst, b.tokens+el*l.rate)
		b.last = now
	}
	if now.Sub(l.sweep) > time.Minute {
		l.sweep = now
		full := time.Duration(l.burst / l.rate * float64(time.Second))
		for k, x := range l.buckets {
			if now.Sub(x.last) > full && k != key {
				delete(l.buckets, k)
			}
		}
	}
	if b.tokens >= 1 {
		b.tokens--
		return true, 0, nil
	}
	return false, l.wait(b.tokens), nil
}

func (l *rateLimiter) giveBack(_ context.Context, key string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b := l.buckets[key]; b != nil {
		b.tokens = math.Min(l.burst, b.tokens+1)
	}
	return nil
}

func (l *rateLimiter) wait(tokens float64) time.Duration {
	return time.Duration((1 - tokens) / l.rate * float64(time.Second))
}

// pgRateLimiter keeps the buckets in PostgreSQL's gateway_rate_buckets,
// one row per key, so that a key's rate holds across every replica. Each
// allow is one statement: the refill, the check and the take happen under
// the row's lock, so replicas take tokens in turn and never more than the
// bucket holds. A replica whose clock lags never refills (GREATEST), so
// skew can only make the limit stricter.
type pgRateLimiter struct {
	pool        *pgxpool.Pool
	rate, burst float64
	now         func() time.Time
}

// pgTake refills the bucket ($2 burst, $4 tokens a second, $3 now in ms),
// then takes a token if one is there; granted says whether it did.
const pgTake = `
INSERT INTO gateway_rate_buckets AS b (key_sha256, tokens, last_ms, granted)
VALUES ($1, $2::float8 - 1, $3, true)
ON CONFLICT (key_sha256) DO UPDATE SET
	tokens = LEAST($2, b.tokens + GREATEST(0, $3 - b.last_ms) * $4::float8 / 1000)
	       - CASE WHEN LEAST($2, b.tokens + GREATEST(0, $3 - b.last_ms) * $4::float8 / 1000) >= 1 THEN 1 ELSE 0 END,
	last_ms = GREATEST(b.last_ms, $3),
	granted = LEAST($2, b.tokens + GREATEST(0, $3 - b.last_ms) * $4::float8 / 1000) >= 1
RETURNING granted, tokens`

func (l *pgRateLimiter) allow(ctx context.Context, key string) (ok bool, retryAfter time.Duration, err error) {
	var tokens float64
	if err := l.pool.QueryRow(ctx, pgTake, key, l.burst, l.now().UnixMilli(), l.rate).Scan(&ok, &tokens); err != nil {
		return false, 0, fmt.Errorf("rate limiter: %w", err)
	}
	if ok {
		return true, 0, nil
	}
	return false, time.Duration((1 - tokens) / l.rate * float64(time.Second)), nil
}

func (l *pgRateLimiter) giveBack(ctx context.Context, key string) error {
	if _, err := l.pool.Exec(ctx, `UPDATE gateway_rate_buckets SET tokens = LEAST($2::float8, tokens + 1) WHERE key_sha256 = $1`, key, l.burst); err != nil {
		return fmt.Errorf("rate limiter: %w", err)
	}
	return nil
}
