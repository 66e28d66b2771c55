package pcm

import (
	"math"
	"math/rand"
	"slices"
	"testing"
)

func sine(n, rate int, freq, amp float64) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(amp * math.Sin(2*math.Pi*freq*float64(i)/float64(rate)))
	}
	return s
}

// resampleAll feeds src in random fragments and flushes.
func resampleAll(in, out int, src []int16, rng *rand.Rand) []int16 {
	r := NewResampler(in, out)
	var dst []int16
	for off := 0; off < len(src); {
		n := min(len(src)-off, 1+rng.Intn(3000))
		dst = r.Write(dst, src[off:off+n])
		off += n
	}
	return r.Flush(dst)
}

func TestResamplerExactCountAndTone(t *testing.T) {
	rng := rand.New(rand.NewSource(1))
	for _, c := range []struct{ in, out int }{
		{22050, 16000}, {16000, 48000}, {8000, 44100}, {22050, 22050}, {44100, 16000}, {44056, 16000}, {48000, 8000},
	} {
		n := c.in + 1234 // a second and a bit
		src := sine(n, c.in, 440, 10000)
		got := resampleAll(c.in, c.out, src, rng)
		want := (n*c.out + c.in - 1) / c.in
		if len(got) != want {
			t.Errorf("%d->%d: %d samples, want %d", c.in, c.out, len(got), want)
			continue
		}
		// Away from the edges the output is the same 440 Hz tone.
		var maxErr float64
		for i := c.out / 10; i < len(got)-c.out/10; i++ {
			ideal := 10000 * math.Sin(2*math.Pi*440*float64(i)/float64(c.out))
			maxErr = max(maxErr, math.Abs(float64(got[i])-ideal))
		}
		if maxErr > 150 { // 1.5% of the amplitude
			t.Errorf("%d->%d: tone off by up to %.0f", c.in, c.out, maxErr)
		}
	}
}

func TestResamplerFragmentingDoesNotMatter(t *testing.T) {
	src := sine(30000, 22050, 1000, 8000)
	a := resampleAll(22050, 16000, src, rand.New(rand.NewSource(1)))
	b := resampleAll(22050, 16000, src, rand.New(rand.NewSource(2)))
	if !slices.Equal(a, b) {
		t.Error("output depends on how input is fragmented")
	}
}

func TestResamplerFiltersAliases(t *testing.T) {
	// A 7 kHz tone has no place at 8 kHz (Nyquist 4 kHz): it must vanish,
	// not fold back to 1 kHz.
	got := resampleAll(22050, 8000, sine(22050, 22050, 7000, 10000), rand.New(rand.NewSource(1)))
	peak := 0
	for _, v := range got[800 : len(got)-800] {
		peak = max(peak, int(v), -int(v))
	}
	if peak > 300 {
		t.Errorf("aliased tone with peak %d survived", peak)
	}
}
