package voice

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/audio/wav"
	"hark/gateway/engine"
)

// The provider is shared by the tests: loading decoders takes a second each.
var (
	sharedOnce sync.Once
	shared     *Local
	sharedErr  error
)

func provider(t testing.TB) *Local {
	t.Helper()
	for _, tool := range []string{"espeak-ng", "flite", "lame", "opusenc"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("%s not installed", tool)
		}
	}
	sharedOnce.Do(func() { shared, sharedErr = New(Config{}) })
	if sharedErr != nil {
		t.Fatal(sharedErr)
	}
	return shared
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared != nil {
		shared.Close()
	}
	os.Exit(code)
}

// synth runs TTS into a buffer and returns the bytes and fragment count.
func synth(t testing.TB, l *Local, req api.TTSRequest) ([]byte, engine.Synthesis, int) {
	t.Helper()
	sink := &countingSink{}
	res, err := l.Synthesize(context.Background(), req, sink)
	if err != nil {
		t.Fatalf("Synthesize(%+v): %v", req, err)
	}
	return sink.Bytes(), res, sink.writes
}

type countingSink struct {
	bytes.Buffer
	writes int
}

func (s *countingSink) Write(p []byte) (int, error) {
	s.writes++
	return s.Buffer.Write(p)
}

// recognize runs STT on audio and returns the final transcript and partials.
func recognize(t testing.TB, l *Local, cfg api.STTRequest, audio []byte) (engine.Transcript, []engine.Transcript) {
	t.Helper()
	var final engine.Transcript
	var partials []engine.Transcript
	finals := 0
	err := l.Recognize(context.Background(), cfg, bytes.NewReader(audio), func(tr engine.Transcript) error {
		if tr.Final {
			final = tr
			finals++
		} else {
			partials = append(partials, tr)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("Recognize: %v", err)
	}
	if finals != 1 {
		t.Fatalf("%d final results, want 1", finals)
	}
	return final, partials
}

// wer is the word error rate of hyp against ref: word edit distance over
// the reference length, ignoring case and punctuation.
func wer(ref, hyp string) float64 {
	norm := func(s string) []string {
		s = strings.ToLower(s)
		s = strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r == '\'' || r == ' ' {
				return r
			}
			return ' '
		}, s)
		return strings.Fields(s)
	}
	r, h := norm(ref), norm(hyp)
	d := make([]int, len(h)+1)
	for j := range d {
		d[j] = j
	}
	for i := 1; i <= len(r); i++ {
		prev := d[0]
		d[0] = i
		for j := 1; j <= len(h); j++ {
			cur := d[j]
			cost := 1
			if r[i-1] == h[j-1] {
				cost = 0
			}
			d[j] = min(d[j]+1, d[j-1]+1, prev+cost)
			prev = cur
		}
	}
	if len(r) == 0 {
		return float64(len(h))
	}
	return float64(d[len(h)]) / float64(len(r))
}

func TestVoiceList(t *testing.T) {
	l := provider(t)
	voices, err := l.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	scenes := map[string]bool{SceneGeneral: true, SceneNarration: true, SceneCharacter: true}
	for _, v := range voices {
		if v.Name == "" || v.Value == "" || v.Language == "" || !scenes[v.Scene] {
			t.Errorf("incomplete voice %+v", v)
		}
		if seen[v.Value] {
			t.Errorf("duplicate voice %s", v.Value)
		}
		seen[v.Value] = true
		if strings.Contains(v.Value, "mb-") {
			t.Errorf("MBROLA voice listed: %s", v.Value)
		}
	}
	count := map[string]int{}
	for _, v := range voices {
		count[strings.SplitN(v.Value, ":", 2)[0]+"/"+v.Scene]++
	}
	t.Logf("%d voices: %v", len(voices), count)
	for _, want := range []string{"espeak:en-us", "espeak:en-gb", "espeak:de", "espeak:en-us+f3", "espeak:en-gb+m3", "espeak:en-us+whisper", "flite:slt", "flite:rms", "flite:awb", "flite:kal"} {
		if !seen[want] {
			t.Errorf("voice %s missing", want)
		}
	}
	if seen["flite:awb_time"] {
		t.Error("limited-domain flite:awb_time listed")
	}
	if seen["espeak:de+f3"] {
		t.Error("variants listed for German; only English variants are listed")
	}
	// Unlisted language+variant pairs are still accepted.
	if _, ok := l.voices.lookup("espeak:de+f3"); !ok {
		t.Error("espeak:de+f3 not accepted")
	}
	if _, ok := l.voices.lookup("espeak:de+nosuch"); ok {
		t.Error("unknown variant accepted")
	}
}

var roundTripSentences = []string{
	"The weather is nice today.",
	"Please call me back tomorrow morning.",
	"I would like a cup of coffee.",
}

func TestRoundTripFlite(t *testing.T) {
	l := provider(t)
	var total, confidence float64
	for _, s := range roundTripSentences {
		audio, res, _ := synth(t, l, api.TTSRequest{Text: s, VoiceCode: "flite:slt", Format: api.FormatWAV})
		final, _ := recognize(t, l, api.STTRequest{Language: "en-us"}, audio)
		w := wer(s, final.Text)
		total += w
		t.Logf("%q -> %q (WER %.2f, confidence %.2f)", s, final.Text, w, final.Confidence)
		if final.Confidence <= 0 || final.Confidence > 1 {
			t.Errorf("confidence %v outside (0, 1]", final.Confidence)
		}
		confidence += final.Confidence
		if d := final.DurationMs - res.DurationMs; d < -5 || d > 5 {
			t.Errorf("STT duration %d ms, TTS said %d ms", final.DurationMs, res.DurationMs)
		}
	}
	if avg := total / float64(len(roundTripSentences)); avg > 0.2 {
		t.Errorf("mean WER %.2f over 0.2", avg)
	}
	// Mostly right, so the decoder should be fairly sure (a sentence
	// posterior would be near 0 however right).
	if avg := confidence / float64(len(roundTripSentences)); avg < 0.5 {
		t.Errorf("mean confidence %.2f of mostly right results, want over 0.5", avg)
	}
}

func TestFormatRoundTrips(t *testing.T) {
	l := provider(t)
	const text = "The weather is nice today."
	// 8 kHz audio is checked but not recognised: the en-us model is
	// wideband and does poorly on telephone-band speech.
	for _, tc := range []struct {
		format string
		rate   int
	}{
		{api.FormatPCM, 0}, {api.FormatPCM, 44100}, {api.FormatWAV, 8000}, {api.FormatWAV, 48000},
		{api.FormatMP3, 0}, {api.FormatMP3, 24000},
	} {
		t.Run(fmt.Sprintf("%s-%d", tc.format, tc.rate), func(t *testing.T) {
			audio, res, _ := synth(t, l, api.TTSRequest{Text: text, VoiceCode: "flite:slt", Format: tc.format, SampleRate: tc.rate})
			wantRate := tc.rate
			if wantRate == 0 {
				wantRate = 16000
			}
			if res.Format != tc.format || res.SampleRate != wantRate {
				t.Fatalf("synthesis %+v, want %s at %d Hz", res, tc.format, wantRate)
			}
			cfg := api.STTRequest{}
			switch tc.format {
			case api.FormatPCM:
				cfg.SampleRate = wantRate
				if want := int(math.Round(float64(len(audio)/2) * 1000 / float64(wantRate))); res.DurationMs != want {
					t.Errorf("duration_ms %d, samples say %d", res.DurationMs, want)
				}
			case api.FormatWAV:
				if binary.LittleEndian.Uint32(audio[24:]) != uint32(wantRate) {
					t.Errorf("wav header rate %d", binary.LittleEndian.Uint32(audio[24:]))
				}
				if got := binary.LittleEndian.Uint32(audio[40:]); int(got) != len(audio)-44 {
					t.Errorf("wav data size %d, have %d bytes", got, len(audio)-44)
				}
				if want := int(math.Round(float64((len(audio)-44)/2) * 1000 / float64(wantRate))); res.DurationMs != want {
					t.Errorf("duration_ms %d, samples say %d", res.DurationMs, want)
				}
			case api.FormatMP3:
				if mp3FrameLen(audio) == 0 {
					t.Fatalf("output does not start with an MP3 frame: % x", audio[:min(8, len(audio))])
				}
			}
			final, _ := recognize(t, l, cfg, audio)
			if d := final.DurationMs - res.DurationMs; tc.format != api.FormatMP3 && (d < -5 || d > 5) {
				t.Errorf("STT duration %d ms, TTS said %d ms", final.DurationMs, res.DurationMs)
			}
			if wantRate == 8000 {
				return
			}
			if w := wer(text, final.Text); w > 0.34 {
				t.Errorf("recognised %q, WER %.2f", final.Text, w)
			}
		})
	}
}

func TestEspeakStreamsWAV(t *testing.T) {
	l := provider(t)
	text := strings.Repeat("This sentence is spoken by espeak. ", 6)
	// A streaming sink (no Bytes method) keeps the "until the end" sizes.
	var streamed []byte
	writes := 0
	res, err := l.Synthesize(context.Background(), api.TTSRequest{Text: text, VoiceCode: "espeak:en-us+f3", Format: api.FormatWAV, SampleRate: 16000},
		sinkFunc(func(p []byte) (int, error) { writes++; streamed = append(streamed, p...); return len(p), nil }))
	if err != nil {
		t.Fatal(err)
	}
	if got := binary.LittleEndian.Uint32(streamed[40:]); got != wav.StreamSize {
		t.Errorf("streamed data size %#x, want %#x", got, uint32(wav.StreamSize))
	}
	audio := streamed
	if writes < 6 {
		t.Errorf("%d fragments for six sentences; want streaming", writes)
	}
	f, err := wav.ReadHeader(bytes.NewReader(audio))
	if err != nil || f.Rate != 16000 || f.Channels != 1 || f.Bits != 16 {
		t.Fatalf("header %+v %v", f, err)
	}
	if res.DurationMs < 6*1000 {
		t.Errorf("duration %d ms for six sentences", res.DurationMs)
	}
}

// sinkFunc adapts a function to engine.AudioSink.
type sinkFunc func(p []byte) (int, error)

func (f sinkFunc) Write(p []byte) (int, error) { return f(p) }

func TestSynthesizeCancelled(t *testing.T) {
	l := provider(t)
	text := strings.Repeat("This is a long text that keeps going so that it can be cancelled. ", 40)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var mu sync.Mutex
	var got int
	var afterReturn bool
	returned := false
	sink := sinkFunc(func(p []byte) (int, error) {
		mu.Lock()
		defer mu.Unlock()
		got++
		if returned {
			afterReturn = true
		}
		if got == 2 {
			cancel()
		}
		return len(p), nil
	})
	start := time.Now()
	_, err := l.Synthesize(ctx, api.TTSRequest{Text: text, VoiceCode: "flite:slt", Format: api.FormatMP3}, sink)
	mu.Lock()
	returned = true
	n := got
	mu.Unlock()
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
	if n < 2 {
		t.Errorf("%d fragments before cancel", n)
	}
	if el := time.Since(start); el > 5*time.Second {
		t.Errorf("cancel took %v", el)
	}
	time.Sleep(50 * time.Millisecond)
	mu.Lock()
	defer mu.Unlock()
	if afterReturn {
		t.Error("sink written after Synthesize returned")
	}
}

// failingEspeak returns a provider whose espeak-ng is a fake that lists
// the real voices and speaks like the real one, except that it dies
// after writing part of the audio of text with "boom" in it, and refuses
// text with "refuse" in it before writing any.
func failingEspeak(t *testing.T) *Local {
	t.Helper()
	real, err := exec.LookPath("espeak-ng")
	if err != nil {
		t.Skip("espeak-ng not installed")
	}
	script := filepath.Join(t.TempDir(), "espeak-ng")
	body := fmt.Sprintf(`#!/bin/sh
case "$1" in --voices*) exec %s "$@";; esac
text=$(cat)  # hark sends the text on stdin, never in the arguments
case "$text" in *refuse*) echo "espeak-ng: cannot open voice" >&2; exit 1;; esac
case "$text" in *boom*) echo "half of it" | %s --stdout -v en-us --stdin | head -c 20000; echo "synthesis exploded" >&2; exit 3;; esac
printf '%%s' "$text" | exec %s "$@"
`, real, real, real)
	if err := os.WriteFile(script, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
	l, err := New(Config{EspeakPath: script, Decoders: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

// TestEngineFailsMidway: audio written before the engine died is kept,
// and the error names the sentence and the engine's own message.
func TestEngineFailsMidway(t *testing.T) {
	l := failingEspeak(t)
	sink := &countingSink{}
	_, err := l.Synthesize(context.Background(), api.TTSRequest{Text: "First sentence is fine. Then boom.", VoiceCode: "espeak:en-us", Format: api.FormatPCM}, sink)
	if err == nil || !strings.Contains(err.Error(), "sentence 2 of 2") || !strings.Contains(err.Error(), "exploded") {
		t.Fatalf("err %v, want a failure of sentence 2 naming the engine's message", err)
	}
	if sink.writes == 0 || sink.Len() < 20000 {
		t.Errorf("%d fragments, %d bytes kept before the failure", sink.writes, sink.Len())
	}
	sink = &countingSink{}
	_, err = l.Synthesize(context.Background(), api.TTSRequest{Text: "Please refuse.", VoiceCode: "espeak:en-us", Format: api.FormatWAV}, sink)
	if err == nil || !strings.Contains(err.Error(), "cannot open voice") || sink.writes != 0 {
		t.Fatalf("err %v after %d writes, want the engine's message and no audio", err, sink.writes)
	}
}

func inputError(t *testing.T, err error, field string, words ...string) {
	t.Helper()
	var ie *engine.InputError
	if !errors.As(err, &ie) {
		t.Fatalf("err %v (%T), want *engine.InputError", err, err)
	}
	t.Logf("%s: %v", field, err)
	if ie.Field != field {
		t.Errorf("field %q, want %q (%v)", ie.Field, field, err)
	}
	for _, w := range words {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("%q lacks %q", err.Error(), w)
		}
	}
}

func TestTTSInputErrors(t *testing.T) {
	l := provider(t)
	ok := api.TTSRequest{Text: "Hello.", VoiceCode: "espeak:en-us"}
	for _, tc := range []struct {
		change func(*api.TTSRequest)
		field  string
		words  []string
	}{
		{func(r *api.TTSRequest) { r.SampleRate = 12345 }, "sample_rate", []string{"12345", "8000", "22050", "48000"}},
		{func(r *api.TTSRequest) { r.Format = "ogg" }, "format", []string{"pcm, wav, mp3"}},
		{func(r *api.TTSRequest) { r.SpeechRate = 101 }, "speech_rate", []string{"-50..100"}},
		{func(r *api.TTSRequest) { r.Pitch = -51 }, "pitch", []string{"-50..50"}},
		{func(r *api.TTSRequest) { r.Loudness = 99 }, "loudness", []string{"-50..50"}},
		{func(r *api.TTSRequest) { r.VoiceCode = "espeak:xx" }, "voice_code", []string{"voice list"}},
		{func(r *api.TTSRequest) { r.VoiceCode = "" }, "voice_code", nil},
		{func(r *api.TTSRequest) { r.Text = "  " }, "text", []string{"empty"}},
		{func(r *api.TTSRequest) { r.Text = strings.Repeat("a", DefaultMaxTextRunes+1) }, "text", []string{"100000"}},
		{func(r *api.TTSRequest) { r.Extra = map[string]any{"colour": "red"} }, "extra.colour", []string{"word_gap_ms"}},
		{func(r *api.TTSRequest) { r.Extra = map[string]any{"word_gap_ms": 5000.0} }, "extra.word_gap_ms", []string{"0..1000"}},
		{func(r *api.TTSRequest) { r.Extra = map[string]any{"ssml": "yes"} }, "extra.ssml", []string{"true or false"}},
		{func(r *api.TTSRequest) { r.VoiceCode = "flite:slt"; r.Extra = map[string]any{"ssml": true} }, "extra.ssml", []string{"flite"}},
		{func(r *api.TTSRequest) { r.VoiceCode = "flite:rms"; r.Pitch = 10 }, "pitch", []string{"no pitch control"}},
		{func(r *api.TTSRequest) { r.VoiceCode = "flite:slt"; r.Text = "你好，世界。" }, "text", []string{"Latin", "flite:slt", "espeak"}},
	} {
		req := ok
		tc.change(&req)
		sink := &countingSink{}
		_, err := l.Synthesize(context.Background(), req, sink)
		inputError(t, err, tc.field, tc.words...)
		if sink.writes != 0 {
			t.Errorf("%s: audio written for a rejected request", tc.field)
		}
	}
}

func TestTTSControlsChangeAudio(t *testing.T) {
	l := provider(t)
	base := api.TTSRequest{Text: "Counting one two three four five.", VoiceCode: "espeak:en-us", Format: api.FormatPCM}
	_, normal, _ := synth(t, l, base)
	fast := base
	fast.SpeechRate = 100
	_, quick, _ := synth(t, l, fast)
	if quick.DurationMs > normal.DurationMs*3/4 {
		t.Errorf("speech_rate 100 gave %d ms, normal %d ms", quick.DurationMs, normal.DurationMs)
	}
	slow := base
	slow.VoiceCode = "flite:slt"
	_, fl, _ := synth(t, l, slow)
	slow.SpeechRate = -50
	_, fls, _ := synth(t, l, slow)
	if fls.DurationMs < fl.DurationMs*3/2 {
		t.Errorf("flite speech_rate -50 gave %d ms, normal %d ms", fls.DurationMs, fl.DurationMs)
	}
	for _, voice := range []string{"flite:slt", "espeak:en-us"} {
		loud := api.TTSRequest{Text: "Loud and quiet.", VoiceCode: voice}
		a, _, _ := synth(t, l, loud)
		loud.Loudness = -25
		b, _, _ := synth(t, l, loud)
		if pa, pb := peak(a), peak(b); pb > pa*6/10 || pb < pa*4/10 {
			t.Errorf("%s: loudness -25 peak %d, normal %d; want about half", voice, pb, pa)
		}
	}
	for _, voice := range []string{"espeak:en-us", "flite:slt", "flite:kal16"} {
		req := api.TTSRequest{Text: "We are looking at the pitch of this voice.", VoiceCode: voice, Pitch: -50}
		low, _, _ := synth(t, l, req)
		req.Pitch = 50
		high, res, _ := synth(t, l, req)
		fl, fh := medianF0(low, res.SampleRate), medianF0(high, res.SampleRate)
		t.Logf("%s: median F0 %.0f Hz at pitch -50, %.0f Hz at 50", voice, fl, fh)
		if fh < fl*1.3 {
			t.Errorf("%s: pitch 50 gave a median F0 of %.0f Hz, pitch -50 %.0f Hz; want clearly higher", voice, fh, fl)
		}
	}
	if _, err := l.Synthesize(context.Background(), api.TTSRequest{Text: "High.", VoiceCode: "espeak:en-us", Pitch: 50,
		Extra: map[string]any{"word_gap_ms": 100.0, "punctuation": true, "split_sentences": false}}, &countingSink{}); err != nil {
		t.Fatal(err)
	}
}

// medianF0 estimates the fundamental frequency of s16le speech: the
// median, over loud 40 ms frames, of the autocorrelation peak between 40
// and 500 Hz.
func medianF0(pcm []byte, rate int) float64 {
	x := make([]float64, len(pcm)/2)
	for i := range x {
		x[i] = float64(int16(binary.LittleEndian.Uint16(pcm[2*i:])))
	}
	n, hop := rate/25, rate/50
	var energies []float64
	for i := 0; i+n <= len(x); i += hop {
		e := 0.0
		for _, v := range x[i : i+n] {
			e += v * v
		}
		energies = append(energies, e)
	}
	loudest := 0.0
	for _, e := range energies {
		loudest = max(loudest, e)
	}
	var f0s []float64
	for k, e := range energies {
		if e < loudest/4 {
			continue
		}
		f := x[k*hop : k*hop+n]
		best, bestLag := 0.0, 0
		for lag := rate / 500; lag <= rate/40; lag++ {
			c := 0.0
			for i := 0; i+lag < n; i++ {
				c += f[i] * f[i+lag]
			}
			if c /= float64(n - lag); c > best {
				best, bestLag = c, lag
			}
		}
		if bestLag > 0 {
			f0s = append(f0s, float64(rate)/float64(bestLag))
		}
	}
	if len(f0s) == 0 {
		return 0
	}
	slices.Sort(f0s)
	return f0s[len(f0s)/2]
}

func peak(pcm []byte) int {
	m := 0
	for i := 0; i+1 < len(pcm); i += 2 {
		v := int(int16(binary.LittleEndian.Uint16(pcm[i:])))
		m = max(m, v, -v)
	}
	return m
}

func TestSTTBadAudio(t *testing.T) {
	l := provider(t)
	wavHead := wav.Header(16000, 100)
	badFmt := bytes.Clone(wavHead)
	binary.LittleEndian.PutUint16(badFmt[20:], 85) // MP3-in-WAV
	for _, tc := range []struct {
		name  string
		cfg   api.STTRequest
		audio []byte
		words []string
	}{
		{"empty", api.STTRequest{}, nil, []string{"no audio"}},
		{"noise without rate", api.STTRequest{}, []byte("this is not audio at all, just some text bytes"), []string{"sample_rate"}},
		{"wav encoding", api.STTRequest{}, badFmt, []string{"not supported"}},
		{"truncated wav", api.STTRequest{}, wavHead[:30], []string{"wav header"}},
		{"header only", api.STTRequest{}, wavHead, []string{"no audio samples"}},
		{"ogg garbage", api.STTRequest{}, append([]byte("OggS\x00\x02"), bytes.Repeat([]byte("OpusHead junk"), 20)...), []string{"first packet is not an Opus header"}},
		{"ogg opus garbage", api.STTRequest{}, oggPage("OpusHead" + strings.Repeat("\xff", 300)), []string{"ogg-opus audio could not be decoded", "opusdec"}},
		{"ogg vorbis", api.STTRequest{}, oggPage("\x01vorbis and more bytes"), []string{"Vorbis"}},
		{"mp3 garbage", api.STTRequest{}, append([]byte("ID3\x03\x00\x00\x00\x00\x00\x10"), bytes.Repeat([]byte{0x55}, 300)...), []string{"mp3 audio could not be decoded"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := l.Recognize(context.Background(), tc.cfg, bytes.NewReader(tc.audio), func(engine.Transcript) error { return nil })
			inputError(t, err, "audio_data", tc.words...)
		})
	}
}

// oggPage returns a first Ogg page (no valid checksum) holding packet.
func oggPage(packet string) []byte {
	b := append([]byte("OggS\x00\x02"), make([]byte, 20)...)
	var segs []byte
	for n := len(packet); ; n -= 255 {
		segs = append(segs, byte(min(n, 255)))
		if n < 255 {
			break
		}
	}
	b = append(b, byte(len(segs)))
	return append(append(b, segs...), packet...)
}

func TestSTTInputErrors(t *testing.T) {
	l := provider(t)
	pcm := make([]byte, 3200)
	for _, tc := range []struct {
		cfg   api.STTRequest
		field string
		words []string
	}{
		{api.STTRequest{Language: "zh"}, "language", []string{"en-us"}},
		{api.STTRequest{Language: "eng"}, "language", []string{"English"}},
		{api.STTRequest{SampleRate: 1000}, "sample_rate", []string{"4000..192000"}},
		{api.STTRequest{SampleRate: 16000, Extra: map[string]any{"beam": 3.0}}, "extra.beam", []string{"partial_interval_ms"}},
		{api.STTRequest{SampleRate: 16000, Extra: map[string]any{"partial_interval_ms": 10.0}}, "extra.partial_interval_ms", []string{"100..5000"}},
	} {
		err := l.Recognize(context.Background(), tc.cfg, bytes.NewReader(pcm), func(engine.Transcript) error { return nil })
		inputError(t, err, tc.field, tc.words...)
	}
	for _, lang := range []string{"en", "EN-US", "en_US", "en-gb", ""} {
		recognize(t, l, api.STTRequest{Language: lang, SampleRate: 16000}, pcm)
	}
}

// TestSTTStreamingPartials feeds audio through a pipe in real-time-sized
// pieces and checks that partial results arrive before the audio ends.
func TestSTTStreamingPartials(t *testing.T) {
	l := provider(t)
	text := "Please call me back tomorrow morning. I would like a cup of coffee."
	pcm, _, _ := synth(t, l, api.TTSRequest{Text: text, VoiceCode: "flite:slt", Format: api.FormatPCM})
	pr, pw := io.Pipe()
	results := make(chan engine.Transcript, 100)
	done := make(chan error, 1)
	go func() {
		done <- l.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, pr, func(tr engine.Transcript) error {
			results <- tr
			return nil
		})
		close(results)
	}()
	// Send all but the last 100 ms, then wait for a partial before ending.
	cut := len(pcm) - 3200
	for i := 0; i < cut; i += 3200 {
		if _, err := pw.Write(pcm[i:min(i+3200, cut)]); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case tr := <-results:
		if !tr.Partial || tr.Final || tr.Text == "" {
			t.Fatalf("first result %+v, want a partial", tr)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("no partial result while audio was still arriving")
	}
	pw.Write(pcm[cut:])
	pw.Close()
	var final engine.Transcript
	for tr := range results {
		if tr.Final {
			final = tr
		}
	}
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if w := wer(text, final.Text); w > 0.25 {
		t.Errorf("final %q, WER %.2f", final.Text, w)
	}
}

func TestSTTEmitErrorAborts(t *testing.T) {
	l := provider(t)
	pcm, _, _ := synth(t, l, api.TTSRequest{Text: "The weather is nice today. Please call me back tomorrow.", VoiceCode: "flite:slt"})
	stop := errors.New("client gone")
	err := l.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, bytes.NewReader(pcm), func(engine.Transcript) error { return stop })
	if !errors.Is(err, stop) {
		t.Fatalf("err %v, want the emit error", err)
	}
	// The decoder went back to the pool in working order.
	final, _ := recognize(t, l, api.STTRequest{SampleRate: 16000}, pcm)
	if !strings.Contains(final.Text, "weather") {
		t.Errorf("after an aborted stream: %q", final.Text)
	}
}

func TestConcurrentRecognitions(t *testing.T) {
	l := provider(t)
	// Every decoder loaded first, as after a while in service: a cold pool
	// lets only as many recognitions wait as it will have decoders, so run
	// alone (the first test to use the provider) two of the four were
	// refused at once.
	var taken []func()
	for range l.pool.max {
		d, err := l.pool.get(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		taken = append(taken, func() { l.pool.put(d, false) })
	}
	for _, put := range taken {
		put()
	}
	var audios [][]byte
	for _, s := range roundTripSentences {
		a, _, _ := synth(t, l, api.TTSRequest{Text: s, VoiceCode: "flite:slt", Format: api.FormatWAV})
		audios = append(audios, a)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for i := 0; i < 4; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			ref := roundTripSentences[i%len(audios)]
			var final string
			err := l.Recognize(context.Background(), api.STTRequest{}, bytes.NewReader(audios[i%len(audios)]), func(tr engine.Transcript) error {
				if tr.Final {
					final = tr.Text
				}
				return nil
			})
			if err == nil && wer(ref, final) > 0.34 {
				err = fmt.Errorf("stream %d: %q for %q", i, final, ref)
			}
			errs <- err
		}(i)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

func TestSTTCancelWhileWaiting(t *testing.T) {
	l := provider(t)
	pr, pw := io.Pipe()
	defer pw.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- l.Recognize(ctx, api.STTRequest{SampleRate: 16000}, pr, func(engine.Transcript) error { return nil })
	}()
	pw.Write(make([]byte, 6400))
	time.Sleep(100 * time.Millisecond)
	cancel()
	go pw.Write(make([]byte, 6400)) // the reader wakes and sees ctx ended
	defer pr.Close()                // frees that write if nobody reads it
	select {
	case err := <-done:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("err %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Recognize did not end after cancel")
	}
}

// TestLongAudioSegments shortens the utterance limits so that a few
// sentences make several utterances, each with its own final result.
func TestLongAudioSegments(t *testing.T) {
	provider(t) // skips when the tools are missing
	l, err := New(Config{Decoders: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.uttSoft, l.uttHard = 2*16000, 4*16000
	text := strings.Join(roundTripSentences[1:], " ")
	pcm, res, _ := synth(t, l, api.TTSRequest{Text: text, VoiceCode: "flite:slt"})
	var finals []engine.Transcript
	err = l.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, bytes.NewReader(pcm), func(tr engine.Transcript) error {
		if tr.Final {
			finals = append(finals, tr)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(finals) < 2 {
		t.Fatalf("%d finals for %d ms of audio with 2 s utterances", len(finals), res.DurationMs)
	}
	var texts []string
	for i, f := range finals {
		if f.Text == "" {
			t.Errorf("final %d is empty", i)
		}
		if i > 0 && f.DurationMs <= finals[i-1].DurationMs {
			t.Errorf("final %d at %d ms, not after %d ms", i, f.DurationMs, finals[i-1].DurationMs)
		}
		texts = append(texts, f.Text)
	}
	if w := wer(text, strings.Join(texts, " ")); w > 0.3 {
		t.Errorf("joined finals %q, WER %.2f", texts, w)
	}
}

func TestSTTOggOpus(t *testing.T) {
	l := provider(t)
	const text = "Please call me back tomorrow morning."
	wav, _, _ := synth(t, l, api.TTSRequest{Text: text, VoiceCode: "flite:slt", Format: api.FormatWAV, SampleRate: 48000})
	cmd := exec.Command("opusenc", "--quiet", "-", "-")
	cmd.Stdin = bytes.NewReader(wav)
	opus, err := cmd.Output()
	if err != nil {
		t.Fatalf("opusenc: %v", err)
	}
	final, _ := recognize(t, l, api.STTRequest{}, opus)
	if w := wer(text, final.Text); w > 0.34 {
		t.Errorf("recognised %q, WER %.2f", final.Text, w)
	}
}

// TestSTTStereoFloatWAV recognises a 44.1 kHz stereo 32-bit float WAV
// with an extra chunk before the data, as audio editors write them.
// TestSTTWAVTrailingChunk: a chunk after the data (LIST, id3) is not
// heard as audio, when the header gives the data's real size.
func TestSTTWAVTrailingChunk(t *testing.T) {
	l := provider(t)
	const text = "The weather is nice today."
	audio, res, _ := synth(t, l, api.TTSRequest{Text: text, VoiceCode: "flite:slt", Format: api.FormatWAV})
	list := append([]byte("LIST\xa0\x0f\x00\x00"), bytes.Repeat([]byte{0x7f, 0x7f, 0x80, 0x80}, 1000)...) // 4000 bytes, 125 ms if read as samples
	final, _ := recognize(t, l, api.STTRequest{}, append(audio, list...))
	if final.DurationMs != res.DurationMs || wer(text, final.Text) > 0.2 {
		t.Errorf("recognised %q in %d ms; the audio is %q in %d ms", final.Text, final.DurationMs, text, res.DurationMs)
	}
}

func TestSTTStereoFloatWAV(t *testing.T) {
	l := provider(t)
	const text = "I would like a cup of coffee."
	pcm, _, _ := synth(t, l, api.TTSRequest{Text: text, VoiceCode: "flite:slt", SampleRate: 44100})
	var b bytes.Buffer
	n := len(pcm) / 2
	b.WriteString("RIFF")
	binary.Write(&b, binary.LittleEndian, uint32(4+8+16+8+4+8+n*8))
	b.WriteString("WAVEfmt ")
	for _, v := range []any{uint32(16), uint16(3), uint16(2), uint32(44100), uint32(44100 * 8), uint16(8), uint16(32)} {
		binary.Write(&b, binary.LittleEndian, v)
	}
	b.WriteString("LIST")
	binary.Write(&b, binary.LittleEndian, uint32(4))
	b.WriteString("INFO")
	b.WriteString("data")
	binary.Write(&b, binary.LittleEndian, uint32(n*8))
	for i := 0; i < n; i++ {
		v := float32(int16(binary.LittleEndian.Uint16(pcm[2*i:]))) / 32768
		binary.Write(&b, binary.LittleEndian, []float32{v, v})
	}
	final, _ := recognize(t, l, api.STTRequest{}, b.Bytes())
	if w := wer(text, final.Text); w > 0.34 {
		t.Errorf("recognised %q, WER %.2f", final.Text, w)
	}
}

func TestDecoderPool(t *testing.T) {
	provider(t) // skips without the engines
	l, err := New(Config{ModelDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	err = l.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, bytes.NewReader(make([]byte, 3200)), func(engine.Transcript) error { return nil })
	if err == nil || !strings.Contains(err.Error(), "speech recognition unavailable") || !strings.Contains(err.Error(), "pocketsphinx-en-us") {
		t.Errorf("without a model: %v", err)
	}
	l.Close()

	l, err = New(Config{Decoders: 2})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d1, err := l.pool.get(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	d2, err := l.pool.get(ctx, nil) // the reserve loaded when d1 was taken
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 100*time.Millisecond)
	defer cancel()
	if _, err := l.pool.get(short, nil); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("third decoder of two: %v", err)
	}
	l.pool.put(d1, false)
	l.pool.put(d2, true) // broken: freed and replaced
	for i := 0; i < 2; i++ {
		d, err := l.pool.get(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		defer l.pool.put(d, false)
	}
	l.Close()
	if _, err := l.pool.get(ctx, nil); !errors.Is(err, errPoolClosed) {
		t.Errorf("after Close: %v", err)
	}
}

// TestDecoderPoolOnDemand: with WarmOnDemand nothing loads, and no timer
// is set to load, until a recognition asks for a decoder.
func TestDecoderPoolOnDemand(t *testing.T) {
	provider(t)
	l, err := New(Config{Decoders: 1, WarmAfter: WarmOnDemand})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.pool.mu.Lock()
	total, timer := l.pool.total, l.pool.warm
	l.pool.mu.Unlock()
	if total != 0 || timer != nil {
		t.Fatalf("before any recognition: %d decoders loading, warm-up timer %v", total, timer != nil)
	}
	d, err := l.pool.get(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	l.pool.put(d, false)
}

// A recognition that waits while the first decoder loads gets it, however
// much longer than DecoderWait the load takes (a cold start on a loaded
// machine): only decoders that exist can be busy.
func TestDecoderWaitDoesNotCountLoading(t *testing.T) {
	provider(t)
	l, err := New(Config{Decoders: 1, WarmAfter: WarmOnDemand, DecoderWait: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	d, err := l.pool.get(context.Background(), nil)
	if err != nil {
		t.Fatalf("the first recognition, while its decoder loaded: %v", err)
	}
	// With the one decoder taken and none loading, the wait is for a busy
	// one, and DecoderWait still bounds it.
	if _, err := l.pool.get(context.Background(), nil); err == nil || !strings.Contains(err.Error(), "stayed busy") {
		t.Errorf("waiting on the busy decoder: %v, want busy", err)
	}
	l.pool.put(d, false)
}

// TestSTTOverLimit: audio beyond MaxAudio ends the recognition with the
// final result of what was heard, then an error naming the limit.
func TestSTTOverLimit(t *testing.T) {
	base := provider(t)
	l, err := New(Config{MaxAudio: 2 * time.Second, Decoders: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	const text = "The weather is nice today. Please call me back tomorrow morning."
	audio, res, _ := synth(t, base, api.TTSRequest{Text: text, VoiceCode: "flite:slt", Format: api.FormatWAV})
	if res.DurationMs < 3000 {
		t.Fatalf("only %d ms of audio", res.DurationMs)
	}
	var finals []engine.Transcript
	err = l.Recognize(context.Background(), api.STTRequest{}, bytes.NewReader(audio), func(tr engine.Transcript) error {
		if tr.Final {
			finals = append(finals, tr)
		}
		return nil
	})
	inputError(t, err, "audio_data", "longer than the limit of 2 seconds")
	if len(finals) != 1 || finals[0].DurationMs != 2000 || !strings.Contains(finals[0].Text, "weather") {
		t.Errorf("finals %+v, want one of the first 2000 ms", finals)
	}
}
