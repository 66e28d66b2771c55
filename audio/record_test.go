package audio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// alsaCaptureConfig points ALSA's default capture at a file plugin reading
// infile, and makes parec fail fast (no PulseAudio server), so Record must
// fall back to arecord.
func alsaCaptureConfig(t *testing.T, body string) {
	t.Helper()
	conf := filepath.Join(t.TempDir(), "asound.conf")
	if err := os.WriteFile(conf, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ALSA_CONFIG_PATH", conf)
	t.Setenv("PULSE_SERVER", "unix:"+filepath.Join(t.TempDir(), "no-pulse"))
}

// alsaMicFile makes ALSA's default capture device a microphone that
// hears raw (the recording format's bytes), through the file plugin.
func alsaMicFile(t *testing.T, raw []byte) {
	t.Helper()
	in := filepath.Join(t.TempDir(), "mic.raw")
	if err := os.WriteFile(in, raw, 0o600); err != nil {
		t.Fatal(err)
	}
	alsaCaptureConfig(t, fmt.Sprintf(`pcm.!default {
	type file
	slave.pcm "hark_null"
	file "/dev/null"
	infile %q
	format "raw"
}
pcm.hark_null { type null }
`, in))
}

func TestRecordFromALSA(t *testing.T) {
	if _, err := exec.LookPath("arecord"); err != nil {
		t.Skip("arecord (alsa-utils) is not installed")
	}
	want := s16Bytes(testSignal(RecordRate, 8)) // 1 s
	alsaMicFile(t, want)
	r, err := Record(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if r.Tool() != "arecord" {
		t.Errorf("tool = %q, want arecord (parec has no server here)", r.Tool())
	}
	got := make([]byte, len(want))
	if _, err := io.ReadFull(r, got); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Error("captured audio differs from the microphone's")
	}
	r.Close()
	if _, err := io.ReadAll(r); err != nil {
		t.Errorf("read after Close: %v", err)
	}
}

func TestRecordWithoutDevice(t *testing.T) {
	alsaCaptureConfig(t, "# no PCMs at all\n")
	r, err := Record(context.Background())
	if err == nil {
		r.Close()
		t.Fatal("Record succeeded with no capture device")
	}
	if !errors.Is(err, ErrNoCaptureDevice) {
		t.Fatalf("err = %v, want ErrNoCaptureDevice", err)
	}
	t.Log(err)
}

// A cancelled recording is not reported as a missing microphone.
func TestRecordCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r, err := Record(ctx)
	if err == nil {
		r.Close()
		t.Fatal("Record succeeded with a cancelled context")
	}
	if !errors.Is(err, context.Canceled) || errors.Is(err, ErrNoCaptureDevice) {
		t.Errorf("err = %v, want context.Canceled and not ErrNoCaptureDevice", err)
	}
}

// A capture tool that dies mid-recording is an error naming it, after the
// audio it delivered; Close after that is quiet.
func TestRecordToolDies(t *testing.T) {
	if _, err := exec.LookPath("arecord"); err != nil {
		t.Skip("arecord (alsa-utils) is not installed")
	}
	alsaMicFile(t, s16Bytes(testSignal(RecordRate, 9)))
	r, err := Record(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := io.ReadFull(r, make([]byte, 3200)); err != nil {
		t.Fatal(err)
	}
	r.cmd.Process.Kill() // the tool dies, as when its device goes away
	_, err = io.Copy(io.Discard, r)
	if err == nil || !strings.Contains(err.Error(), "arecord stopped recording") || !strings.Contains(err.Error(), "killed") {
		t.Errorf("err = %v, want arecord stopped recording: signal: killed", err)
	}
	if err := r.Close(); err != nil {
		t.Errorf("Close after the tool died: %v", err)
	}
}

// Brief fits a status line at 80 columns with a "dictation: " before it,
// and still says what is missing.
func TestCaptureErrorBrief(t *testing.T) {
	for _, c := range []struct {
		ssh     string
		reasons []string
		want    string
	}{
		{"", []string{"arecord: not installed", "parecord: not installed"}, "no recording tool"},
		{"", []string{"arecord: Unknown PCM default"}, "no capture device"},
		{"1.2.3.4 5 6.7.8.9 22", []string{"parec: Connection refused"}, "SSH session"},
	} {
		t.Setenv("SSH_CONNECTION", c.ssh)
		t.Setenv("SSH_TTY", "")
		b := (&CaptureError{Reasons: c.reasons}).Brief()
		if !strings.Contains(b, c.want) || len("✗ dictation: "+b) > 76 {
			t.Errorf("%v: %q (%d columns)", c.reasons, b, len("✗ dictation: "+b))
		}
	}
}
