package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"hark/api/apitest"
)

// `hark tts -o FIFO` with no reader ends on SIGTERM, and on SIGINT, at
// once and with the exit code of an interruption: opening the pipe
// waits for a reader, but not beyond a signal.
func TestTTSIntoAPipeWithNoReaderEndsOnSignals(t *testing.T) {
	t.Parallel()
	bin := buildHarkBinary(t)
	gw := apitest.New(t)
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		fifo := filepath.Join(t.TempDir(), "speech.wav")
		if err := syscall.Mkfifo(fifo, 0o600); err != nil {
			t.Skip("no FIFOs here:", err)
		}
		cmd := exec.Command(bin, "tts", "-o", fifo, "--voice", "v1", "hello there")
		cmd.Env = append(os.Environ(), "HARK_BASE_URL="+gw.URL, "HARK_API_KEY="+apitest.Key,
			"XDG_CONFIG_HOME="+t.TempDir(), "XDG_DATA_HOME="+t.TempDir())
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		// hark opens -o before it calls the gateway, and waits there for
		// the pipe's reader.
		time.Sleep(time.Second)
		select {
		case err := <-done:
			t.Fatalf("hark ended with no reader on the pipe: %v", err)
		default:
		}
		cmd.Process.Signal(sig)
		select {
		case err := <-done:
			ee, ok := err.(*exec.ExitError)
			if !ok || ee.ExitCode() == 0 {
				t.Errorf("%v: hark ended with %v, want a non-zero exit", sig, err)
			}
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("%v: hark kept waiting for the pipe's reader", sig)
		}
		if st, err := os.Lstat(fifo); err != nil || st.Mode()&os.ModeNamedPipe == 0 {
			t.Errorf("%v: the FIFO was replaced: %v", sig, err)
		}
	}
}
