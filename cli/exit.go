package cli

// How errors become exit codes and the text shown for them. docs/cli.md
// has the table of codes; every row is tested in cli_test.go.

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"regexp"
	"strings"

	"hark/api"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailure = 1 // only what hark did not expect (a bug): every known failure has its code
	exitUsage   = 2
	exitAuth    = 3
	exitGateway = 4
	exitTimeout = 5
	exitLibrary = 6 // the library (or gateway.db) cannot be used: damaged, locked, not a hark library
	// exitInterrupted is the shell's convention for SIGINT.
	exitInterrupted = 130
)

// invalidInput is how a gateway names a refused input in a stream's error
// frame: "invalid <field>: <rule>".
var invalidInput = regexp.MustCompile(`^invalid [a-z_]+: `)

// usageError marks an error as the caller's mistake (exit 2).
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usagef(format string, args ...any) error { return usageError{fmt.Errorf(format, args...)} }

// targetError marks a file, folder or URL the user named that hark
// cannot use: exit 2 like a usage error, but the command line itself was
// right, so no "Run 'hark --help'" follows; the message names the target.
type targetError struct{ err error }

func (e targetError) Error() string { return e.err.Error() }
func (e targetError) Unwrap() error { return e.err }

// upstreamError marks a failure of what hark talked to: the gateway
// answered with something hark cannot read, a site hark index reads
// could not be reached, every URL of an extract failed (exit 4, or 5
// when it timed out).
type upstreamError struct{ err error }

func (e upstreamError) Error() string { return e.err.Error() }
func (e upstreamError) Unwrap() error { return e.err }

// fromGateway marks an error of a gateway call that no other rule
// classifies (a malformed answer, a frame hark cannot read) as the
// gateway's, so that it exits 4 rather than 1. nil stays nil.
func fromGateway(err error) error {
	if err == nil || exitCode(err) != exitFailure {
		return err
	}
	return upstreamError{err}
}

// dataError marks a database of the data directory other than the
// library that cannot be used: the local index and usage (gateway.db)
// damaged, locked or unreadable (exit 6, as for the library).
type dataError struct{ err error }

func (e dataError) Error() string { return e.err.Error() }
func (e dataError) Unwrap() error { return e.err }

// interruptedError is any error a command returns after Ctrl-C: whatever
// broke, it broke because the user stopped it (exit 130).
type interruptedError struct{ err error }

func (e interruptedError) Error() string { return e.err.Error() }
func (e interruptedError) Unwrap() error { return e.err }

// exitCode maps an error onto hark's exit codes.
func exitCode(err error) int {
	var ae *api.Error
	var se *api.StreamError
	switch {
	case err == nil:
		return exitOK
	case errors.As(err, new(interruptedError)), errors.Is(err, context.Canceled):
		// Before the stream and gateway rules: a stream cut by Ctrl-C
		// is a StreamError too, and must not read as a gateway fault.
		return exitInterrupted
	case errors.Is(err, api.ErrResearchTimeout), errors.Is(err, context.DeadlineExceeded):
		return exitTimeout
	case errors.As(err, &ae) && ae.Auth():
		return exitAuth
	case errors.As(err, new(usageError)), errors.As(err, new(targetError)), isCobraUsage(err):
		return exitUsage
	case errors.As(err, new(libraryError)), errors.As(err, new(dataError)):
		return exitLibrary
	case errors.As(err, &ae) && ae.Refused():
		// The gateway refused the input (it names the field): the same
		// mistake hark's own checks exit 2 for.
		return exitUsage
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.As(err, new(*fs.PathError)):
		// A file or folder the user named that cannot be read or written.
		return exitUsage
	case errors.As(err, &ae):
		if ae.TimedOut() {
			return exitTimeout
		}
		return exitGateway
	case errors.As(err, &se):
		if isTimeoutErr(se.Err) {
			return exitTimeout
		}
		if invalidInput.MatchString(se.Message) {
			// A stream's error frame carries no code: "invalid
			// speech_rate: …" is the input refused, as a 400 is.
			return exitUsage
		}
		return exitGateway
	case isNetErr(err):
		if isTimeoutErr(err) {
			return exitTimeout
		}
		return exitGateway
	case errors.As(err, new(upstreamError)), errors.Is(err, api.ErrMalformed):
		if isTimeoutErr(err) {
			return exitTimeout
		}
		return exitGateway
	}
	return exitFailure
}

func isTimeoutErr(err error) bool {
	var t interface{ Timeout() bool }
	return err != nil && errors.As(err, &t) && t.Timeout()
}

// isCobraUsage recognises cobra's own argument and flag errors, which are
// plain errors.
func isCobraUsage(err error) bool {
	s := err.Error()
	for _, p := range []string{"unknown command", "unknown flag", "unknown shorthand flag", "flag needs an argument", "invalid argument", "required flag", "accepts ", "requires at least", "if any flags in the group"} {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// errorText is the message shown for err, with the trace_id on its own
// line when the gateway gave one.
func errorText(err error) string {
	msg := err.Error()
	var ae *api.Error
	if errors.As(err, &ae) && ae.TraceID != "" && !strings.Contains(msg, ae.TraceID) {
		msg += "\ntrace_id: " + ae.TraceID
	}
	switch {
	case errors.Is(err, api.ErrCredentialsMissing):
		msg += "\nhint: the gateway has no credentials for this vendor in your workspace; its operator must configure them"
	case errors.As(err, &ae) && ae.Auth():
		msg += "\nhint: check the API key (HARK_API_KEY, or api_key in the config profile; 'hark config' shows which is used)"
	case errors.Is(err, api.ErrRateLimited) && ae != nil && ae.RetryAfter > 0:
		msg += fmt.Sprintf("\nhint: the gateway asks to wait %v before trying again", ae.RetryAfter)
	}
	return msg
}

// netReason is why a connection failed, in a few words: "connection
// refused", "no such host", never the resolver asked.
func netReason(err error) string {
	var de *net.DNSError
	if errors.As(err, &de) {
		if de.IsNotFound {
			return "its name " + de.Name + " does not resolve (no such host)"
		}
		return "its name " + de.Name + " could not be resolved"
	}
	var se *os.SyscallError
	if errors.As(err, &se) {
		return se.Err.Error()
	}
	var oe *net.OpError
	if errors.As(err, &oe) && oe.Err != nil {
		return oe.Err.Error()
	}
	return err.Error()
}

// isNetErr recognises failures to reach the gateway at all.
func isNetErr(err error) bool {
	var ne net.Error
	var oe *net.OpError
	return errors.As(err, &ne) || errors.As(err, &oe)
}
