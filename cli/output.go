package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
)

// The -o rule, one for every command that writes a file (tts, research,
// read, library export, audition): -o FILE writes FILE, replacing it, as
// curl -o and sort -o do, through a temporary file renamed at the end, so
// that a failed write leaves FILE as it was; -o - writes to standard
// output; a parent folder that does not exist is a usage error naming it.
// hark makes no folder the user did not name: a folder export (a crawl,
// an audition) makes only the folder -o names. Only a regular file is
// replaced that way: a device or a pipe (-o /dev/null, -o FIFO) is
// written into, as a shell's > would, so that it stays what it was.

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
// beside path until commit puts it in path's place.
type outputFile struct {
	*os.File
	path string
	mode fs.FileMode
	// direct: path is a device or a pipe, opened and written in place;
	// commit and abort only close it.
	direct bool
}

func createOutput(path string) (*outputFile, error) {
	if err := checkOutputParent(path); err != nil {
		return nil, err
	}
	mode := fs.FileMode(0o644)
	if st, err := os.Stat(path); err == nil {
		if st.IsDir() {
			return nil, targetError{fmt.Errorf("-o %s: is a folder; name a file", path)}
		}
		if !st.Mode().IsRegular() {
			f, err := os.OpenFile(path, os.O_WRONLY, 0)
			if err != nil {
				return nil, targetError{fmt.Errorf("-o %s: %v", path, err)}
			}
			return &outputFile{File: f, path: path, direct: true}, nil
		}
		mode = st.Mode().Perm() // replacing keeps who may read it
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return nil, targetError{fmt.Errorf("-o %s: %v", path, err)}
	}
	return &outputFile{File: f, path: path, mode: mode}, nil
}

// commit closes the file and renames it over path.
func (o *outputFile) commit() error {
	if o.direct {
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
		err = os.Rename(o.Name(), o.path)
	}
	if err != nil {
		os.Remove(o.Name())
		return fmt.Errorf("-o %s: %w", o.path, err)
	}
	return nil
}

// abort drops the temporary file; path is left as it was.
func (o *outputFile) abort() {
	o.File.Close()
	if !o.direct {
		os.Remove(o.Name())
	}
}

// writeOutput writes what write makes to -o path under the rule.
func (a *App) writeOutput(path string, write func(io.Writer) error) error {
	if path == "-" {
		return write(a.stdout)
	}
	f, err := createOutput(path)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.abort()
		return fmt.Errorf("-o %s: %w", path, err)
	}
	return f.commit()
}
