package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// The -o rule, one for every command that writes a file (tts, research,
// read, library export, audition): -o FILE writes FILE, replacing its
// content, through a temporary file renamed at the end, so that a failed
// write leaves FILE as it was; -o - writes to standard output; a parent
// folder that does not exist is a usage error naming it. hark makes no
// folder the user did not name: a folder export (a crawl, an audition)
// makes only the folder -o names.
//
// A symbolic link is written through, as curl -o and a shell's > do: the
// file it points to gets the new content (its temporary file sits beside
// that file), and the link stays a link. A dangling link makes its
// target, as curl does. Only a regular file is replaced through a
// temporary file: a device or a pipe (-o /dev/null, -o FIFO) is written
// into, as a shell's > would, so that it stays what it was. Opening a
// pipe waits for its reader, and that wait and every write end when the
// command is cancelled (Ctrl-C, SIGTERM).

// checkOutputParent is the parent-folder half of the rule.
func checkOutputParent(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return targetError{fmt.Errorf("-o %s: the folder %s does not exist", path, dir)}
	case err != nil:
		return targetError{fmt.Errorf("-o %s: %v", path, err)}
	case !st.IsDir():
		return targetError{fmt.Errorf("-o %s: %s is not a folder", path, dir)}
	}
	return nil
}

// outputFile is a file being written under the rule: a temporary file
// beside its target until commit puts it in the target's place.
type outputFile struct {
	*os.File
	path   string // as the user named it, for messages
	target string // path with its symbolic links followed
	mode   fs.FileMode
	// direct: the target is a device or a pipe, opened and written in
	// place; commit and abort only close it.
	direct bool
	// stop ends the watch that interrupts a blocked write on cancellation.
	stop func() bool
}

// followLinks follows path's symbolic links to the file they name, which
// need not exist (a dangling link names the file -o makes). A loop, or a
// chain longer than the kernel's own limit, is an error naming path.
func followLinks(path string) (string, error) {
	for range 40 {
		st, err := os.Lstat(path)
		if errors.Is(err, fs.ErrNotExist) || err == nil && st.Mode()&fs.ModeSymlink == 0 {
			return path, nil
		}
		if err != nil {
			return "", err
		}
		dest, err := os.Readlink(path)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(dest) {
			dest = filepath.Join(filepath.Dir(path), dest)
		}
		path = dest
	}
	return "", errors.New("too many levels of symbolic links")
}

func createOutput(ctx context.Context, path string) (*outputFile, error) {
	if err := checkOutputParent(path); err != nil {
		return nil, err
	}
	target, err := followLinks(path)
	if err != nil {
		return nil, targetError{fmt.Errorf("-o %s: %v", path, err)}
	}
	if target != path {
		if err := checkOutputParent(target); err != nil {
			return nil, err // a dangling link into a folder that is not there
		}
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(target); err == nil {
		if st.IsDir() {
			return nil, targetError{fmt.Errorf("-o %s: is a folder; name a file", path)}
		}
		if !st.Mode().IsRegular() {
			f, err := openInPlace(ctx, target)
			if err != nil {
				return nil, targetError{fmt.Errorf("-o %s: %w", path, err)}
			}
			o := &outputFile{File: f, path: path, target: target, direct: true}
			// A write into a pipe nobody drains blocks; cancellation ends it.
			o.stop = context.AfterFunc(ctx, func() { f.SetWriteDeadline(time.Unix(1, 0)) })
			return o, nil
		}
		mode = st.Mode().Perm() // replacing keeps who may read it
	}
	f, err := os.CreateTemp(filepath.Dir(target), "."+filepath.Base(target)+".*")
	if err != nil {
		return nil, targetError{fmt.Errorf("-o %s: %v", path, err)}
	}
	return &outputFile{File: f, path: path, target: target, mode: mode}, nil
}

// openInPlace opens a device or a pipe for writing. A pipe opened
// without a reader would block in the kernel, beyond any cancellation,
// so it is opened without blocking, again every 50 ms while it has no
// reader (ENXIO), until one comes or ctx ends.
func openInPlace(ctx context.Context, path string) (*os.File, error) {
	for {
		f, err := os.OpenFile(path, os.O_WRONLY|syscall.O_NONBLOCK, 0)
		if err == nil {
			return f, nil
		}
		if !errors.Is(err, syscall.ENXIO) {
			return nil, err
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("no reader opened the pipe: %w", ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// Write writes to the file; a write a cancellation interrupted says so.
func (o *outputFile) Write(p []byte) (int, error) {
	n, err := o.File.Write(p)
	if errors.Is(err, os.ErrDeadlineExceeded) {
		err = context.Canceled
	}
	return n, err
}

// commit closes the file and renames it over the target.
func (o *outputFile) commit() error {
	if o.direct {
		o.stop()
		if err := o.File.Close(); err != nil {
			return fmt.Errorf("-o %s: %w", o.path, err)
		}
		return nil
	}
	err := o.Chmod(o.mode)
	if cerr := o.File.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.Name(), o.target)
	}
	if err != nil {
		os.Remove(o.Name())
		return fmt.Errorf("-o %s: %w", o.path, err)
	}
	return nil
}

// abort drops the temporary file; the target is left as it was.
func (o *outputFile) abort() {
	if o.stop != nil {
		o.stop()
	}
	o.File.Close()
	if !o.direct {
		os.Remove(o.Name())
	}
}

// writeOutput writes what write makes to -o path under the rule.
func (a *App) writeOutput(ctx context.Context, path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(a.stdout)
	}
	f, err := createOutput(ctx, path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.abort()
		return fmt.Errorf("-o %s: %w", path, err)
	}
	return f.commit()
}
