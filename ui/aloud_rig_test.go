//go:build cgo && linux

package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
	"hark/audio/alsatest"
	"hark/audio/prose"
	"hark/gateway/embedded"
	"hark/ui/common"
)

// Read aloud, timed on the device: the child reads a short report aloud
// through the real ALSA path into the test rig and says when each
// sentence's highlight moved (wall clock), and how long each sentence's
// audio is (the same sentences spoken again by REST); the rig says when
// each sample reached the device, read off in real time. The sentences
// play as one continuous stream, so sentence i starts where the ones
// before it end: the first loud sample on the device, less the first
// sentence's own quiet lead, places the first two (the first is asked for
// alone, so the second starts where it ends); the others, spoken in one
// batch, begin where their voice does after a pause. The skew is how long
// after its highlight a sentence's first sample sounds.

const aloudChildEnv = "HARK_ALOUD_RIG_CHILD"

const aloudDoc = "# Okapis\n\nThe okapi lives in the Congo. It eats leaves and buds.\n\nOkapis are shy animals."

type aloudReport struct {
	Highlights []time.Time   // when each sentence's highlight moved
	Lengths    []int         // each sentence's audio, in samples at Rate
	Lead       int           // the first sentence's samples before its first loud one
	Rate       int           // the voice's sample rate
	FirstSound time.Duration // from R to the first sentence playing
	Start      time.Time
}

func TestAloudRigChild(t *testing.T) {
	if os.Getenv(aloudChildEnv) == "" {
		t.Skip("runs as the child of TestReadAloudInStepWithTheDevice")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	g, err := embedded.Start(ctx, t.TempDir(), embedded.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Stop()
	cl, err := api.New(api.Options{BaseURL: g.URL, APIKey: g.APIKey})
	if err != nil {
		t.Fatal(err)
	}
	out, err := audio.Open(audio.Options{Sink: audio.SinkDevice})
	if err != nil {
		t.Fatal(err)
	}
	msgs := make(chan tea.Msg, 64)
	c := &common.Common{Client: cl, Voice: "flite:slt", Send: func(m tea.Msg) { msgs <- m },
		Audio: func() (*audio.Output, error) { return out, nil }}
	var s common.Scroll
	s.SetContent(strings.ReplaceAll(aloudDoc, "# ", ""))
	s.SetHeight(10)
	var a common.Aloud
	rep := aloudReport{Start: time.Now()}
	done := make(chan tea.Msg, 1)
	cmd := a.Start(c, aloudDoc, &s)
	go func() { done <- cmd() }()
	var mu sync.Mutex
	for {
		select {
		case m := <-msgs:
			am := m.(common.AloudMsg)
			mu.Lock()
			rep.Highlights = append(rep.Highlights, time.Now())
			mu.Unlock()
			a.Update(am, &s)
		case m := <-done:
			a.Update(m.(common.AloudMsg), &s)
			rep.FirstSound = a.FirstSound()
			for i, sn := range prose.Sentences(aloudDoc) {
				sp, err := cl.TTS(ctx, api.TTSRequest{Provider: api.DefaultProvider, VoiceCode: "flite:slt", Text: sn.Text, Format: api.FormatWAV})
				if err != nil {
					t.Fatal(err)
				}
				pcm, rate, err := audio.DecodeToPCM(api.FormatWAV, sp.Data, 0)
				if err != nil {
					t.Fatal(err)
				}
				rep.Lengths, rep.Rate = append(rep.Lengths, len(pcm)/2), rate
				for i == 0 && rep.Lead < len(pcm)/2 && math.Abs(float64(int16(uint16(pcm[2*rep.Lead])|uint16(pcm[2*rep.Lead+1])<<8))) <= aloudLoud*32768 {
					rep.Lead++
				}
			}
			b, _ := json.Marshal(rep)
			fmt.Printf("REPORT %s\n", b)
			return
		case <-ctx.Done():
			t.Fatal("read aloud timed out")
		}
	}
}

const aloudLoud = 1.0 / 256

// aloudSkews reads the report aloud on the rig and returns, per sentence,
// the skew between its highlight and its first sound on the device (ms,
// positive: the highlight came first), and the first sound from R.
func aloudSkews(tb testing.TB) ([]float64, time.Duration) {
	if _, err := exec.LookPath("aplay"); err != nil {
		tb.Skip("alsa-utils is not installed: scripts/setup.sh installs it")
	}
	rig := alsatest.New(tb, 48000)
	dev, stdout := rig.RunChild(tb, 90*time.Second, "TestAloudRigChild", aloudChildEnv+"=1")
	var rep aloudReport
	for _, l := range strings.Split(stdout, "\n") {
		if b, ok := strings.CutPrefix(l, "REPORT "); ok {
			if err := json.Unmarshal([]byte(b), &rep); err != nil {
				tb.Fatal(err)
			}
		}
	}
	if len(rep.Highlights) != 4 {
		tb.Fatalf("child report %+v\n%s", rep, stdout)
	}
	samples := dev.Samples()
	loudAt := slices.IndexFunc(samples, func(v float32) bool { return math.Abs(float64(v)) > aloudLoud })
	if loudAt < 0 {
		tb.Fatal("nothing sounded on the device")
	}
	if os.Getenv("HARK_RIG_DEBUG") != "" {
		run := 0
		for i, v := range samples {
			if math.Abs(float64(v)) <= aloudLoud {
				run++
				continue
			}
			if run >= 48*30 {
				tb.Logf("quiet %d..%d (%d ms)", i-run, i, run/48)
			}
			run = 0
		}
		tb.Logf("loudAt %d", loudAt)
	}
	k := 48000 / float64(rep.Rate) // device samples per sentence sample
	start := float64(loudAt) - k*float64(rep.Lead)
	var skews []float64
	prev := start
	for i, h := range rep.Highlights {
		if i >= 2 {
			// Inside a batch (the first sentence is asked for alone,
			// the rest together): the sentence begins where its voice
			// does, after the pause that ends the one before.
			start = float64(voiceAfterPause(samples, int(prev+k*float64(rep.Lengths[i-1])/2)))
		}
		prev = start
		at := dev.TimeOf(int(start))
		if at.IsZero() {
			tb.Fatalf("sentence %d never reached the device (at sample %d of %d; lengths %v, k %.1f)", i+1, int(start), len(samples), rep.Lengths, k)
		}
		skews = append(skews, float64(at.Sub(h))/float64(time.Millisecond))
		start += k * float64(rep.Lengths[i])
	}
	return skews, rep.FirstSound
}

// voiceAfterPause is the first loud device sample after the first pause
// (80 ms of quiet at 48 kHz) at or after from.
func voiceAfterPause(samples []float32, from int) int {
	run := 0
	for i := max(0, from); i < len(samples); i++ {
		if math.Abs(float64(samples[i])) <= aloudLoud {
			run++
			continue
		}
		if run >= 48000*80/1000 {
			return i
		}
		run = 0
	}
	return len(samples)
}

func TestReadAloudInStepWithTheDevice(t *testing.T) {
	if os.Getenv(aloudChildEnv) != "" {
		t.Skip("child")
	}
	if testing.Short() {
		t.Skip("reads a report aloud through ALSA")
	}
	skews, first := aloudSkews(t)
	t.Logf("highlight-to-sound skews %.1f ms; first sound after R %v", skews, first)
	for i, s := range skews {
		if math.Abs(s) > 150 {
			t.Errorf("sentence %d: its sound came %.0f ms from its highlight", i+1, s)
		}
	}
}

// BenchmarkReadAloud: the highlight-to-sound skew (p50, max) and the
// first sound after R, on the device.
func BenchmarkReadAloud(b *testing.B) {
	var skews []float64
	var firsts []float64
	for b.Loop() {
		s, f := aloudSkews(b)
		skews = append(skews, s...)
		// R to the first sentence playing, then to its sound on the device.
		firsts = append(firsts, float64(f)/float64(time.Millisecond)+s[0])
	}
	slices.Sort(skews)
	slices.Sort(firsts)
	b.ReportMetric(skews[len(skews)/2], "skew-p50-ms")
	b.ReportMetric(skews[len(skews)-1], "skew-max-ms")
	b.ReportMetric(firsts[len(firsts)/2], "first-sound-ms")
}
