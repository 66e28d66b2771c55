package voice

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
	r := newResampler(in, out)
	var dst []int16
	for off := 0; off < len(src); {
		n := min(len(src)-off, 1+rng.Intn(3000))
		dst = r.write(dst, src[off:off+n])
		off += n
	}
	return r.flush(dst)
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

func TestSplitSentences(t *testing.T) {
	got := splitSentences("Hello there. How are you?Fine!  3.14 is pi;  ok\nNew line。中文！ end")
	want := []string{"Hello there.", "How are you?Fine!", "3.14 is pi;", "ok", "New line。", "中文！", "end"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	long := ""
	for i := 0; i < 60; i++ {
		long += "word, another "
	}
	pieces := splitSentences(long)
	if len(pieces) < 2 {
		t.Fatalf("%d runes in %d piece", len(long), len(pieces))
	}
	for i, s := range pieces {
		if n := len([]rune(s)); n > maxSentenceRunes {
			t.Errorf("piece of %d runes", n)
		}
		if i < len(pieces)-1 && s[len(s)-1] != ',' {
			t.Errorf("piece %q not cut at a comma", s[len(s)-10:])
		}
	}
	if got := splitSentences("   \n  "); len(got) != 0 {
		t.Errorf("blank text gave %q", got)
	}
}

func TestMP3FrameLen(t *testing.T) {
	// MPEG-1 layer III, 128 kbps, 44.1 kHz, no padding: 417 bytes.
	if n := mp3FrameLen([]byte{0xFF, 0xFB, 0x90, 0x00}); n != 417 {
		t.Errorf("frame length %d, want 417", n)
	}
	// MPEG-2 layer III, 64 kbps, 22.05 kHz: 72*64000/22050 = 208.
	if n := mp3FrameLen([]byte{0xFF, 0xF3, 0x80, 0x00}); n != 208 {
		t.Errorf("frame length %d, want 208", n)
	}
	for _, b := range [][]byte{{0xFF, 0xFF, 0xFF, 0xFF}, {0xFF, 0xFB, 0xF0, 0}, {0x12, 0x34, 0x56, 0x78}, {0xFF}} {
		if n := mp3FrameLen(b); n != 0 {
			t.Errorf("% x read as a frame of %d bytes", b, n)
		}
	}
}
