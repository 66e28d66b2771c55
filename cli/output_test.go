package cli

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// -o into a device or a pipe writes into it and leaves it what it was;
// only a regular file is replaced (through a temporary file).
func TestOutputWritesIntoDevicesAndPipes(t *testing.T) {
	t.Parallel()
	a := &App{}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "hello pipe\n"); return err }

	if err := a.writeOutput(context.Background(), os.DevNull, write); err != nil {
		t.Fatalf("-o %s: %v", os.DevNull, err)
	}
	if st, err := os.Stat(os.DevNull); err != nil || st.Mode()&os.ModeCharDevice == 0 {
		t.Fatalf("%s is no longer a device: %v %v", os.DevNull, st.Mode(), err)
	}

	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(fifo)
		if err != nil {
			got <- err.Error()
			return
		}
		defer f.Close()
		b, _ := io.ReadAll(f)
		got <- string(b)
	}()
	if err := a.writeOutput(context.Background(), fifo, write); err != nil {
		t.Fatalf("-o FIFO: %v", err)
	}
	if s := <-got; s != "hello pipe\n" {
		t.Errorf("the FIFO's reader got %q", s)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v %v", st.Mode(), err)
	}

	// A regular file is replaced whole, keeping its mode.
	file := filepath.Join(dir, "out.txt")
	os.WriteFile(file, []byte("old and longer content\n"), 0o600)
	if err := a.writeOutput(context.Background(), file, write); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(file); string(b) != "hello pipe\n" {
		t.Errorf("file holds %q", b)
	}
	if st, _ := os.Stat(file); st.Mode().Perm() != 0o600 {
		t.Errorf("mode %v, want 0600 kept", st.Mode().Perm())
	}
	if m, _ := filepath.Glob(filepath.Join(dir, ".out.txt.*")); len(m) != 0 {
		t.Errorf("temporary files left: %v", m)
	}
}

// -o onto a symbolic link writes through it, as curl -o does: the file it
// points to gets the content (replaced through a temporary file beside
// it, keeping its mode), and the link stays a link. A dangling link makes
// its target.
func TestOutputWritesThroughSymlinks(t *testing.T) {
	t.Parallel()
	a := &App{}
	ctx := context.Background()
	write := func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }
	dir := t.TempDir()
	sub := filepath.Join(dir, "sub")
	os.Mkdir(sub, 0o755)
	target := filepath.Join(sub, "target.txt")
	os.WriteFile(target, []byte("old and longer\n"), 0o640)
	link := filepath.Join(dir, "link.txt")
	if err := os.Symlink("sub/target.txt", link); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	if err := a.writeOutput(ctx, link, write); err != nil {
		t.Fatalf("-o LINK: %v", err)
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link was replaced: %v %v", st.Mode(), err)
	}
	if b, _ := os.ReadFile(target); string(b) != "new\n" {
		t.Errorf("the link's target holds %q", b)
	}
	if st, _ := os.Stat(target); st.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v, want 0640 kept", st.Mode().Perm())
	}
	for _, d := range []string{dir, sub} {
		if m, _ := filepath.Glob(filepath.Join(d, ".*.txt.*")); len(m) != 0 {
			t.Errorf("temporary files left: %v", m)
		}
	}

	// A link to a link, dangling at its end: the last name is made.
	made := filepath.Join(sub, "made.txt")
	os.Symlink(made, filepath.Join(dir, "hop"))
	os.Symlink("hop", filepath.Join(dir, "dangling"))
	if err := a.writeOutput(ctx, filepath.Join(dir, "dangling"), write); err != nil {
		t.Fatalf("-o DANGLING: %v", err)
	}
	if b, _ := os.ReadFile(made); string(b) != "new\n" {
		t.Errorf("the dangling link's target holds %q", b)
	}
	if st, err := os.Lstat(filepath.Join(dir, "hop")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Errorf("the middle link was replaced: %v", err)
	}

	// A loop is an error naming the path, and writes nothing.
	os.Symlink("loop2", filepath.Join(dir, "loop1"))
	os.Symlink("loop1", filepath.Join(dir, "loop2"))
	err := a.writeOutput(ctx, filepath.Join(dir, "loop1"), write)
	if err == nil || !strings.Contains(err.Error(), "loop1") || !strings.Contains(err.Error(), "symbolic links") {
		t.Errorf("-o LOOP: %v", err)
	}
	// A dangling link into a folder that does not exist names that folder.
	os.Symlink("nowhere/x.txt", filepath.Join(dir, "lost"))
	err = a.writeOutput(ctx, filepath.Join(dir, "lost"), write)
	if err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("-o LOST: %v", err)
	}
}

// Opening a pipe nobody reads, and writing into one nobody drains, end
// when the command is cancelled: neither blocks in the kernel beyond it.
func TestOutputIntoAPipeHonoursCancellation(t *testing.T) {
	t.Parallel()
	a := &App{}
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	start := time.Now()
	err := a.writeOutput(ctx, fifo, func(w io.Writer) error { t.Error("opened with no reader"); return nil })
	if !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "no reader") {
		t.Errorf("-o FIFO with no reader, cancelled: %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the cancelled open took %s", d)
	}

	// A reader that opens the pipe and never reads: the writer fills the
	// pipe's buffer, then blocks until cancelled.
	r, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	err = a.writeOutput(ctx, fifo, func(w io.Writer) error {
		_, err := w.Write(make([]byte, 4<<20)) // more than any pipe buffer
		return err
	})
	if !errors.Is(err, context.Canceled) {
		t.Errorf("a write nobody drains, cancelled: %v", err)
	}
	if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
		t.Errorf("the FIFO was replaced: %v", err)
	}
}
