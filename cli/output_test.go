package cli

import (
	"io"
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// -o into a device or a pipe writes into it and leaves it what it was;
// only a regular file is replaced (through a temporary file).
func TestOutputWritesIntoDevicesAndPipes(t *testing.T) {
	t.Parallel()
	a := &App{}
	write := func(w io.Writer) error { _, err := io.WriteString(w, "hello pipe\n"); return err }

	if err := a.writeOutput(os.DevNull, write); err != nil {
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
	if err := a.writeOutput(fifo, write); err != nil {
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
	if err := a.writeOutput(file, write); err != nil {
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
