package model

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// Kind is what went wrong with a model call, as research tells the user.
type Kind int

const (
	KindDown         Kind = iota + 1 // the endpoint could not be reached
	KindBadKey                       // the key was refused (401, 403)
	KindUnknownModel                 // the model does not exist there (404)
	KindRateLimited                  // 429, after the retries
	KindServer                       // 5xx, after the retries
	KindRefused                      // another 4xx: the request was refused
	KindDropped                      // the stream ended before the answer did
	KindStopped                      // the caller cancelled
)

// Error is a failed model call. Its message names the provider and the
// endpoint, never the key; the provider's own message is kept only where
// it cannot carry the key, with the key scrubbed all the same.
type Error struct {
	Kind       Kind
	Provider   string
	Endpoint   string // the base URL
	Model      string
	Status     int           // the HTTP status, 0 without one
	RetryAfter time.Duration // what a 429 or 503 asked for
	Detail     string        // the provider's message, scrubbed
}

func (e *Error) Error() string {
	who := providerName(e.Provider) + " at " + e.Endpoint
	switch e.Kind {
	case KindDown:
		return fmt.Sprintf("model: %s could not be reached: %s", who, e.Detail)
	case KindBadKey:
		return fmt.Sprintf("model: %s refused the API key (HTTP %d): check model.api_key or model.api_key_command", who, e.Status)
	case KindUnknownModel:
		return fmt.Sprintf("model: %s has no model %q (HTTP %d)", who, e.Model, e.Status)
	case KindRateLimited:
		if e.RetryAfter > 0 {
			return fmt.Sprintf("model: %s is rate limiting (HTTP 429, retry after %s)", who, e.RetryAfter.Round(time.Second))
		}
		return fmt.Sprintf("model: %s is rate limiting (HTTP 429)", who)
	case KindServer:
		return fmt.Sprintf("model: %s failed (HTTP %d): %s", who, e.Status, e.Detail)
	case KindDropped:
		return fmt.Sprintf("model: %s stopped streaming before the answer ended: %s", who, e.Detail)
	case KindStopped:
		return fmt.Sprintf("model: the call to %s was stopped", who)
	}
	return fmt.Sprintf("model: %s refused the request (HTTP %d): %s", who, e.Status, e.Detail)
}

func (e *Error) retryable() bool { return e.Kind == KindRateLimited || e.Kind == KindServer }

// Unwrap makes a stopped call a context.Canceled.
func (e *Error) Unwrap() error {
	if e.Kind == KindStopped {
		return context.Canceled
	}
	return nil
}

func providerName(p string) string {
	if p == ProviderAnthropic {
		return "anthropic"
	}
	return "openai-compatible endpoint"
}

// classify turns an SDK's failure into an Error. status, header and
// detail come from the SDK's API error when there was a response.
func classify(cfg Config, endpoint string, model string, err error, status int, header http.Header, detail string) error {
	if err == nil {
		return nil
	}
	e := &Error{Provider: cfg.Provider, Endpoint: endpoint, Model: model, Status: status, Detail: scrub(detail, cfg.APIKey)}
	switch {
	case errors.Is(err, context.Canceled):
		e.Kind = KindStopped
	case status == 0:
		var ne net.Error
		var oe *net.OpError
		if errors.As(err, &oe) || errors.As(err, &ne) || errors.Is(err, context.DeadlineExceeded) {
			e.Kind = KindDown
		} else {
			e.Kind = KindDropped
		}
		if e.Detail == "" {
			e.Detail = scrub(err.Error(), cfg.APIKey)
		}
	case status == http.StatusUnauthorized || status == http.StatusForbidden:
		e.Kind = KindBadKey
		e.Detail = "" // OpenAI's message echoes part of the key
	case status == http.StatusNotFound:
		e.Kind = KindUnknownModel
	case status == http.StatusTooManyRequests:
		e.Kind = KindRateLimited
		e.RetryAfter = retryAfter(header)
	case status >= 500:
		e.Kind = KindServer
		e.RetryAfter = retryAfter(header)
	default:
		e.Kind = KindRefused
	}
	return e
}

// retryAfter reads Retry-After-Ms, or Retry-After in seconds or as a date.
func retryAfter(h http.Header) time.Duration {
	if h == nil {
		return 0
	}
	if v := h.Get("Retry-After-Ms"); v != "" {
		if ms, err := strconv.ParseFloat(v, 64); err == nil && ms > 0 {
			return time.Duration(ms * float64(time.Millisecond))
		}
	}
	v := h.Get("Retry-After")
	if v == "" {
		return 0
	}
	if s, err := strconv.ParseFloat(v, 64); err == nil && s > 0 {
		return time.Duration(s * float64(time.Second))
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// scrub removes the key, and anything that looks like one, from a
// provider's message.
func scrub(s, key string) string {
	if key != "" {
		s = strings.ReplaceAll(s, key, "***")
	}
	f := strings.Fields(s)
	for i, w := range f {
		t := strings.Trim(w, ".,;:'\"`()")
		if strings.HasPrefix(t, "sk-") || strings.HasPrefix(t, "sk_") {
			f[i] = "***"
		}
	}
	return strings.Join(f, " ")
}
