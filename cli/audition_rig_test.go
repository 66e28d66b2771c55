//go:build cgo && linux

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"hark/audio"
	"hark/audio/alsatest"
)

// The audition's gaps, measured on the device: hark audition plays three
// voices through the real ALSA path into the test rig, whose reader
// drains it in real time (oto feeds silence between takes, so a gap is
// silence on the device). The silence between two takes, less the
// silence each take holds itself (from the same takes saved with -o), is
// the gap the listener hears.

const (
	rigChildEnv = "HARK_AUDITION_RIG_CHILD"
	rigRate     = 48000
	rigVoices   = "flite:slt,flite:rms,flite:kal16"
	rigText     = "Three voices, one after another."
)

func TestAuditionRigChild(t *testing.T) {
	if os.Getenv(rigChildEnv) == "" {
		t.Skip("runs as the child of TestAuditionGapsOnTheDevice")
	}
	t.Setenv("HARK_BASE_URL", "")
	t.Setenv("HARK_API_KEY", "")
	t.Setenv("HARK_AUDIO_SINK", "device")
	var out, errb bytes.Buffer
	code := Run(context.Background(), []string{"--data-dir", t.TempDir(), "audition", "--voices", rigVoices, rigText}, strings.NewReader(""), &out, &errb)
	fmt.Print(out.String())
	if code != 0 {
		t.Fatalf("audition: %d %s", code, errb.String())
	}
}

// auditionGaps plays the audition on the rig and returns the gaps between
// takes, in milliseconds.
func auditionGaps(tb testing.TB) []float64 {
	if _, err := exec.LookPath("aplay"); err != nil {
		tb.Skip("alsa-utils is not installed: scripts/setup.sh installs it")
	}
	// The takes, saved: their lengths and their own silences.
	dir := filepath.Join(tb.TempDir(), "takes")
	var out, errb bytes.Buffer
	os.Setenv("HARK_BASE_URL", "")
	code := Run(context.Background(), []string{"--data-dir", tb.TempDir(), "--json", "audition", "--voices", rigVoices, "-o", dir, rigText}, strings.NewReader(""), &out, &errb)
	if code != 0 {
		tb.Fatalf("audition -o: %d %s", code, errb.String())
	}
	var m auditionManifest
	if err := json.Unmarshal(out.Bytes(), &m); err != nil {
		tb.Fatal(err)
	}
	type span struct{ lead, body, trail float64 } // seconds
	var spans []span
	for _, v := range m.Voices {
		b, _ := os.ReadFile(filepath.Join(dir, v.File))
		pcm, rate, err := audio.DecodeToPCM("wav", b, 0)
		if err != nil {
			tb.Fatal(err)
		}
		n := len(pcm) / 2
		sound := func(i int) bool { return math.Abs(float64(int16(uint16(pcm[2*i])|uint16(pcm[2*i+1])<<8))) > loud*32768 }
		first, last := 0, n-1
		for first < n && !sound(first) {
			first++
		}
		for last > first && !sound(last) {
			last--
		}
		r := float64(rate)
		spans = append(spans, span{float64(first) / r, float64(last-first+1) / r, float64(n-1-last) / r})
	}

	rig := alsatest.New(tb, rigRate)
	dev, stdout := rig.RunChild(tb, 90*time.Second, "TestAuditionRigChild", rigChildEnv+"=1")
	if !strings.Contains(stdout, "3/3 flite:kal16") {
		tb.Fatalf("the child did not play three takes:\n%s", stdout)
	}
	samples := dev.Samples()
	sound := func(i int) bool { return math.Abs(float64(samples[i])) > loud }
	// Walk the device's timeline take by take: each take's sound starts
	// at the first loud sample after the previous one's body.
	var gaps []float64
	at := 0
	for i, sp := range spans {
		for at < len(samples) && !sound(at) {
			at++
		}
		if at == len(samples) {
			tb.Fatalf("take %d never sounded on the device", i+1)
		}
		if i > 0 {
			silence := float64(at-prevEnd(at, samples, sound)) / rigRate
			gaps = append(gaps, 1000*(silence-spans[i-1].trail-sp.lead))
		}
		at += int(sp.body * rigRate)
	}
	return gaps
}

// loud is the level (of full scale) above which a sample is sound.
const loud = 1.0 / 256

// prevEnd is the index after the last loud sample before at.
func prevEnd(at int, samples []float32, sound func(int) bool) int {
	i := at - 1
	for i > 0 && !sound(i) {
		i--
	}
	return i + 1
}

func TestAuditionGapsOnTheDevice(t *testing.T) {
	if os.Getenv(rigChildEnv) != "" {
		t.Skip("child")
	}
	if testing.Short() {
		t.Skip("plays three takes through ALSA")
	}
	gaps := auditionGaps(t)
	t.Logf("gaps between takes: %.1f ms", gaps)
	if len(gaps) != 2 {
		t.Fatalf("gaps %v", gaps)
	}
	for i, g := range gaps {
		if g > 50 {
			t.Errorf("gap %d is %.1f ms, over 50 ms", i+1, g)
		}
	}
}

// BenchmarkAuditionGap: the gaps between three auditioned voices on the
// device, p50 and max over b.N auditions.
func BenchmarkAuditionGap(b *testing.B) {
	var all []float64
	for b.Loop() {
		all = append(all, auditionGaps(b)...)
	}
	slices.Sort(all)
	b.ReportMetric(all[len(all)/2], "p50-ms")
	b.ReportMetric(all[len(all)-1], "max-ms")
}
