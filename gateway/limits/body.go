package limits

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync"
	"time"
)

// A request body is read whole, within its size and time limits, before
// its call asks for an admission slot: a client that sends its body
// slowly holds its connection, never a slot that other users' calls
// need. Bodies held in memory at once are bounded by a BodyBudget.

// BodyBudget bounds the bytes of request bodies held in memory at once.
type BodyBudget struct {
	max  int64
	mu   sync.Mutex
	used int64
}

// NewBodyBudget holds at most max bytes of bodies at once.
func NewBodyBudget(max int64) *BodyBudget { return &BodyBudget{max: max} }

func (b *BodyBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.used+n > b.max {
		return false
	}
	b.used += n
	return true
}

func (b *BodyBudget) give(n int64) {
	b.mu.Lock()
	b.used -= n
	b.mu.Unlock()
}

// Used is the bytes of bodies held now.
func (b *BodyBudget) Used() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// bodyStep is how much more of the budget a body of unknown length
// takes each time it outgrows what it holds.
const bodyStep = 64 << 10

// ReadBody reads a request's whole body (at most maxBytes, within the
// time its reader allows: see SlowBody) into memory, then serves next
// with the body in its place. A body over maxBytes is refused with 413,
// one too slow with the reader's 408, and one the budget cannot hold now
// with 503 and Retry-After.
func ReadBody(maxBytes int64, budget *BodyBudget, refuse Refuse) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.Body == nil || r.Body == http.NoBody {
				next.ServeHTTP(w, r)
				return
			}
			if r.ContentLength > maxBytes {
				drain(w, r.Body, r.ContentLength)
				refuse(w, r, tooLarge(maxBytes))
				return
			}
			held := int64(bodyStep)
			if r.ContentLength >= 0 {
				held = r.ContentLength + 1 // the read that sees the end
			}
			if !budget.take(held) {
				refuse(w, r, busyBodies(budget))
				return
			}
			defer func() { budget.give(held) }()
			var buf bytes.Buffer
			buf.Grow(int(min(held, maxBytes+1)))
			for {
				if int64(buf.Len()) >= held {
					if !budget.take(bodyStep) {
						refuse(w, r, busyBodies(budget))
						return
					}
					held += bodyStep
				}
				n, err := io.CopyN(&buf, r.Body, min(held, maxBytes+1)-int64(buf.Len()))
				if int64(buf.Len()) > maxBytes {
					drain(w, r.Body, -1)
					refuse(w, r, tooLarge(maxBytes))
					return
				}
				if errors.Is(err, io.EOF) || err == nil && n == 0 {
					break
				}
				if err != nil {
					var le *Error
					if !errors.As(err, &le) {
						err = &Error{Status: http.StatusBadRequest, Msg: "reading the request body: " + err.Error()}
					}
					refuse(w, r, err)
					return
				}
			}
			r.Body = io.NopCloser(bytes.NewReader(buf.Bytes()))
			r.ContentLength = int64(buf.Len())
			next.ServeHTTP(w, r)
		})
	}
}

// drainMax bounds what drain reads and throws away; drainTime bounds
// how long it may take.
const (
	drainMax  = 64 << 20
	drainTime = 10 * time.Second
)

// drain reads and discards the rest of a body that is refused for its
// size, so that the 413 reaches the client. A server that answers and
// closes with the body still arriving resets the connection, and a
// proxy that buffers bodies (nginx does by default) is told of the reset
// while it writes, not the answer, and gives its own 502. A body longer
// than drainMax, or one that trickles past drainTime, is not drained:
// the connection closes, as before.
func drain(w http.ResponseWriter, body io.Reader, length int64) {
	if length > drainMax {
		return
	}
	rc := http.NewResponseController(w)
	_ = rc.SetReadDeadline(time.Now().Add(drainTime))
	_, err := io.Copy(io.Discard, io.LimitReader(body, drainMax))
	if err == nil {
		_ = rc.SetReadDeadline(time.Time{})
	}
}

func tooLarge(maxBytes int64) error {
	return &Error{Status: http.StatusRequestEntityTooLarge, Limit: "body_size", Msg: fmt.Sprintf(
		"request body exceeds %d bytes (max_body_bytes)", maxBytes)}
}

func busyBodies(b *BodyBudget) error {
	return &Error{Status: http.StatusServiceUnavailable, RetryAfter: time.Second, Limit: "body_memory", Msg: fmt.Sprintf(
		"gateway busy: request bodies fill the %d bytes held at once (max_body_memory); retry after 1 s", b.max)}
}
