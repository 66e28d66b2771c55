package common

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"hark/api"
)

// Problem is an error as the user should see it: the gateway's message,
// its trace_id, and what to do about it.
type Problem struct {
	Message string
	TraceID string
	Hint    string
}

// Explain turns an error into a Problem. It never includes the API key:
// the client scrubs it from messages, and nothing else here reads it.
func Explain(err error) Problem {
	if err == nil {
		return Problem{}
	}
	p := Problem{Message: err.Error()}
	var ae *api.Error
	if errors.As(err, &ae) {
		p.Message = ae.Message
		if p.Message == "" {
			p.Message = fmt.Sprintf("gateway error (HTTP %d)", ae.HTTPStatus)
		}
		// Keep the context the error was wrapped in ("search: …").
		if full, own := err.Error(), ae.Error(); full != own && strings.HasSuffix(full, own) {
			p.Message = strings.TrimSuffix(full, own) + p.Message
		}
		p.TraceID = ae.TraceID
	}
	switch {
	case errors.Is(err, context.Canceled):
		p.Message, p.Hint = "cancelled", ""
	case errors.Is(err, api.ErrCredentialsMissing):
		p.Hint = "The workspace has no credentials for the search vendor. Add the vendor API key " +
			"to the workspace in the gateway console (for the embedded gateway, see docs/config.md), then retry."
	case errors.Is(err, api.ErrResearchTimeout):
		p.Hint = "The gateway waited 5 minutes for the research task. Retry, or ask a narrower question or use a faster model."
	case errors.Is(err, api.ErrRateLimited):
		p.Hint = "The gateway is rate limiting this workspace."
		if ae != nil && ae.RetryAfter > 0 {
			p.Hint += fmt.Sprintf(" Retry in %s.", ae.RetryAfter.Round(time.Second))
		} else {
			p.Hint += " Wait a moment and retry."
		}
	case ae != nil && ae.Vendor != nil:
		v := ae.Vendor
		who := v.Vendor
		if who == "" {
			who = "the vendor"
		}
		if v.Status != 0 {
			p.Hint = fmt.Sprintf("The upstream service (%s) answered HTTP %d. ", who, v.Status)
		} else {
			p.Hint = fmt.Sprintf("The gateway could not reach the upstream service (%s). ", who)
		}
		p.Hint += "This is not a problem with your request: retry later; if it persists, check the vendor's quota and status."
	case ae != nil && ae.Auth():
		p.Hint = "The gateway refused the API key. Check HARK_API_KEY or api_key in the config file."
	case ae == nil && api.Unreachable(err):
		p.Hint = api.UnreachableHint
	}
	return p
}

// ToolListError names err as the tool list's, unless the client already
// did ("tool list: tool list: …" reads as a bug).
func ToolListError(err error) error {
	if err == nil || strings.HasPrefix(err.Error(), "tool list: ") {
		return err
	}
	return fmt.Errorf("tool list: %w", err)
}

// StatusText is the one-line form for the status bar.
func (p Problem) StatusText() string {
	if p.TraceID != "" {
		return p.Message + " · trace " + p.TraceID
	}
	return p.Message
}

// ErrorView renders an error for a pane: the message, the trace_id and the
// hint, wrapped to width.
func ErrorView(s *Styles, err error, width int) string {
	p := Explain(err)
	if p.Message == "" {
		return ""
	}
	lines := []string{s.Err.Render(Wrap("✗ "+p.Message, width))}
	if p.TraceID != "" {
		lines = append(lines, s.Dim.Render("  trace_id "+p.TraceID))
	}
	if p.Hint != "" {
		hint := strings.Split(Wrap(p.Hint, max(10, width-2)), "\n")
		for i := range hint {
			hint[i] = "  " + hint[i]
		}
		lines = append(lines, s.Warn.Render(strings.Join(hint, "\n")))
	}
	return strings.Join(lines, "\n")
}

// FailureHint says what to do about a page that could not be read, from
// the reason the gateway gave in failed_results ("" when hark cannot tell).
func FailureHint(reason, gateway string) string {
	r := strings.ToLower(reason)
	switch {
	case strings.Contains(r, "private, loopback or link-local"):
		h := "The gateway does not read private or loopback addresses."
		if strings.HasPrefix(gateway, "embedded") {
			h += " To let hark's embedded gateway read them (an intranet, a docs server on localhost), " +
				"start hark with HARK_ALLOW_PRIVATE=1 or set allow_private = true in its config file."
		} else {
			h += " Its operator can allow them (`hark serve --allow-private`)."
		}
		return h
	case strings.Contains(r, "robots.txt"):
		return "The site's robots.txt asks crawlers like hark's to stay out of this page."
	case strings.Contains(r, "cannot resolve host"):
		return "The site's name does not resolve: check the URL, or this machine's network and DNS."
	case strings.Contains(r, "connection refused by"):
		return "Nothing answers at that address: check the URL's port, and that the server is running."
	case strings.Contains(r, "timeout") || strings.Contains(r, "deadline exceeded"):
		return "The site was too slow to answer; try again later."
	}
	return ""
}
