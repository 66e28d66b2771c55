package sphinx

import (
	"encoding/binary"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// fliteSamples speaks text with flite's slt voice (16 kHz) and returns the
// samples after the 44-byte header flite writes.
func fliteSamples(t *testing.T, text string) []int16 {
	t.Helper()
	if _, err := exec.LookPath("flite"); err != nil {
		t.Skip("flite not installed")
	}
	out := filepath.Join(t.TempDir(), "a.wav")
	if b, err := exec.Command("flite", "-voice", "slt", "-t", text, "-o", out).CombinedOutput(); err != nil {
		t.Fatalf("flite: %v %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	b = b[44:]
	s := make([]int16, len(b)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return s
}

func TestDecodeFlite(t *testing.T) {
	m := ModelIn(DefaultModelDir)
	if err := m.Check(); err != nil {
		t.Skip(err)
	}
	start := time.Now()
	d, err := New(m)
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	t.Logf("model load %v", time.Since(start))
	samples := fliteSamples(t, "the weather is nice today")
	for round := 0; round < 2; round++ {
		if err := d.StartUtt(); err != nil {
			t.Fatal(err)
		}
		for i := 0; i < len(samples); i += 1600 {
			if err := d.Process(samples[i:min(i+1600, len(samples))]); err != nil {
				t.Fatal(err)
			}
		}
		text, conf, err := d.EndUtt()
		if err != nil {
			t.Fatal(err)
		}
		t.Logf("round %d: %q conf %.3f", round, text, conf)
		if !strings.Contains(text, "weather") {
			t.Errorf("hypothesis %q lacks %q", text, "weather")
		}
		if conf < 0.5 || conf > 1 {
			t.Errorf("confidence %v of a correct hypothesis, want 0.5..1", conf)
		}
	}
}

func TestClosedDecoder(t *testing.T) {
	m := ModelIn(DefaultModelDir)
	if err := m.Check(); err != nil {
		t.Skip(err)
	}
	d, err := New(m)
	if err != nil {
		t.Fatal(err)
	}
	d.Close()
	d.Close()
	if err := d.StartUtt(); err != ErrClosed {
		t.Fatalf("StartUtt after Close: %v, want ErrClosed", err)
	}
	if err := d.Process([]int16{1, 2}); err != ErrClosed {
		t.Fatalf("Process after Close: %v, want ErrClosed", err)
	}
}

func TestMissingModel(t *testing.T) {
	if _, err := New(ModelIn(t.TempDir())); err == nil {
		t.Fatal("New with a missing model succeeded")
	}
}
