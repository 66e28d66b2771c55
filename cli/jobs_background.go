package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"hark/api"
)

// The embedded gateway runs its jobs only while a hark process serves its
// data directory: a research or crawl detached from it would wait, queued,
// for the next hark to start. So on the embedded gateway, --detach runs
// the command again in a process of its own (the background run): it
// submits the job, prints what the command prints (the job's ID), closes
// its output, which lets this process exit at once with its exit code,
// and then runs the job, and any other the data directory holds, until
// none is queued or running. Its log goes to hark.log. A remote gateway
// runs jobs itself; nothing is started there.

// envBackgroundRun marks the background run of a detached command.
const envBackgroundRun = "HARK_BACKGROUND_RUN"

// idleFor is how long the background run waits with no job queued or
// running before it exits.
const idleFor = 2 * time.Second

// exitWith ends a command with a code and nothing more to say (the
// background run said it already).
type exitWith struct{ code int }

func (e exitWith) Error() string { return "" }

// backgroundRun reports that this process is a detached command's
// background run.
func (a *App) backgroundRun() bool { return a.getenv(envBackgroundRun) == "1" }

// runInBackground runs the command line again in a process of its own
// that outlives this one, passes on what it prints until it closes its
// output, and returns its exit code when it ended by then (it failed
// before submitting), else 0: the job is queued and the process runs it.
func runInBackground(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(os.Environ(), envBackgroundRun+"=1")
	cmd.Stdin = stdin
	// A session of its own: Ctrl-C in this terminal, and the terminal
	// closing, do not stop the job.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	errOut, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); io.Copy(stdout, out) }()
	go func() { defer wg.Done(); io.Copy(stderr, errOut) }()
	wg.Wait() // its output closed: it failed, or the job is queued
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return exitWith{ee.ExitCode()}
		}
		return err
	case <-time.After(300 * time.Millisecond):
		// Still running: the job's. It is not waited for.
		return cmd.Process.Release()
	case <-ctx.Done():
		return cmd.Process.Release()
	}
}

// detachOutput closes the background run's output (the caller's pipes,
// which lets it exit) and sends what is printed after to the log.
func (a *App) detachOutput() {
	null, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
	if err != nil {
		return
	}
	defer null.Close()
	unix.Dup2(int(null.Fd()), 1)
	unix.Dup2(int(null.Fd()), 2)
	a.stdout, a.stderr = io.Discard, a.logWriter()
}

// runJobs keeps the embedded gateway's job workers running until no job
// of the data directory is queued or running for idleFor, or ctx ends.
func (a *App) runJobs(ctx context.Context, cl *api.Client) error {
	idleSince := time.Time{}
	for {
		list, err := cl.Jobs(ctx, true) // listing starts the workers
		if err != nil {
			if ctx.Err() != nil {
				return nil
			}
			fmt.Fprintf(a.logWriter(), "background run: list jobs: %v\n", err)
		}
		switch {
		case len(list) > 0 || err != nil:
			idleSince = time.Time{}
		case idleSince.IsZero():
			idleSince = time.Now()
		case time.Since(idleSince) >= idleFor:
			return nil
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(250 * time.Millisecond):
		}
	}
}
