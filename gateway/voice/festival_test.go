package voice

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"hark/api"
	"hark/gateway/engine"
)

// The Debian voices scripts/setup.sh installs.
const (
	festivalHTS = "festival:cmu_us_slt_arctic_hts"
	festivalKal = "festival:kal_diphone"
	festivalKed = "festival:ked_diphone"
)

// festivalProvider is the shared provider, skipping when festival or its
// voices are missing.
func festivalProvider(t testing.TB) *Local {
	t.Helper()
	if _, err := exec.LookPath("festival"); err != nil {
		t.Skip("festival not installed")
	}
	l := provider(t)
	vs, err := l.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, v := range vs {
		if v.Value == festivalHTS || v.Value == festivalKal || v.Value == festivalKed {
			n++
		}
	}
	if n != 3 {
		t.Skip("festival's voices festvox-us-slt-hts, festvox-kallpc16k, festvox-kdlpc16k not all installed")
	}
	return l
}

// ownFestival is a provider of the test's own, so that it may count and
// kill festival processes without disturbing the others.
func ownFestival(t *testing.T) *Local {
	t.Helper()
	festivalProvider(t)
	l, err := New(Config{Decoders: 1, WarmAfter: WarmOnDemand, FestivalProcesses: 2})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	return l
}

func TestFestivalVoiceList(t *testing.T) {
	l := festivalProvider(t)
	vs, _ := l.Voices(context.Background())
	want := map[string]api.Voice{
		festivalHTS: {Name: "SLT (US English, female, HTS)", Language: "en-us", Scene: SceneNarration, Gender: "female", SampleRate: 32000},
		festivalKal: {Name: "KAL (US English, male, diphone)", Language: "en-us", Scene: SceneGeneral, Gender: "male", SampleRate: 16000},
		festivalKed: {Name: "KED (US English, male, diphone)", Language: "en-us", Scene: SceneGeneral, Gender: "male", SampleRate: 16000},
	}
	for _, v := range vs {
		w, ok := want[v.Value]
		if !ok {
			continue
		}
		w.Value = v.Value
		if v.Name != w.Name || v.Language != w.Language || v.Scene != w.Scene || v.Gender != w.Gender || v.SampleRate != w.SampleRate {
			t.Errorf("got %+v\nwant %+v", v, w)
		}
		delete(want, v.Value)
	}
	if len(want) > 0 {
		t.Errorf("missing: %v", want)
	}
}

// Each festival voice says the round-trip sentences, and pocketsphinx
// hears them back.
func TestFestivalRoundTrip(t *testing.T) {
	l := festivalProvider(t)
	for _, voice := range []string{festivalHTS, festivalKal, festivalKed} {
		var total float64
		for _, s := range roundTripSentences {
			audio, res, _ := synth(t, l, api.TTSRequest{Text: s, VoiceCode: voice, Format: api.FormatWAV})
			final, _ := recognize(t, l, api.STTRequest{Language: "en-us"}, audio)
			w := wer(s, final.Text)
			total += w
			t.Logf("%s: %q -> %q (WER %.2f)", voice, s, final.Text, w)
			if d := final.DurationMs - res.DurationMs; d < -5 || d > 5 {
				t.Errorf("%s: STT duration %d ms, TTS said %d ms", voice, final.DurationMs, res.DurationMs)
			}
		}
		if avg := total / float64(len(roundTripSentences)); avg > 0.34 {
			t.Errorf("%s: mean WER %.2f over 0.34", voice, avg)
		}
	}
}

// One festival process serves one request after another: the voice list
// starts it and every request after uses it.
func TestFestivalStaysWarm(t *testing.T) {
	l := ownFestival(t)
	if _, err := l.Voices(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, voice := range []string{festivalKal, festivalHTS, festivalKed, festivalKal} {
		if _, _, n := synth(t, l, api.TTSRequest{Text: "One. Two.", VoiceCode: voice}); n == 0 {
			t.Fatalf("%s: no audio", voice)
		}
	}
	l.festival.mu.Lock()
	starts := l.festival.starts
	l.festival.mu.Unlock()
	if starts != 1 {
		t.Errorf("%d festival processes started for the list and four requests, want 1", starts)
	}
}

// speech_rate maps onto HTS's speed and the diphone voices' duration
// stretch; pitch onto the diphone voices' intonation targets (HTS in
// festival has no pitch control, so pitch is refused for it); loudness
// is hark's gain.
func TestFestivalControls(t *testing.T) {
	l := festivalProvider(t)
	text := "We are looking at the pitch of this voice."
	_, err := l.Synthesize(context.Background(), api.TTSRequest{Text: text, VoiceCode: festivalHTS, Pitch: 10}, &countingSink{})
	inputError(t, err, "pitch", "no pitch control")
	for _, voice := range []string{festivalHTS, festivalKal, festivalKed} {
		base := api.TTSRequest{Text: text, VoiceCode: voice}
		normal, n, _ := synth(t, l, base)
		fast := base
		fast.SpeechRate = 100
		_, f, _ := synth(t, l, fast)
		slow := base
		slow.SpeechRate = -50
		_, s, _ := synth(t, l, slow)
		t.Logf("%s: %d ms normal, %d ms at +100, %d ms at -50", voice, n.DurationMs, f.DurationMs, s.DurationMs)
		if f.DurationMs > n.DurationMs*6/10 || s.DurationMs < n.DurationMs*17/10 {
			t.Errorf("%s: %d ms normal, %d ms at speech_rate 100 (want about half), %d ms at -50 (want about double)",
				voice, n.DurationMs, f.DurationMs, s.DurationMs)
		}
		quiet := base
		quiet.Loudness = -25
		q, _, _ := synth(t, l, quiet)
		if pn, pq := peak(normal), peak(q); pq > pn*6/10 || pq < pn*4/10 {
			t.Errorf("%s: loudness -25 peak %d, normal %d; want about half", voice, pq, pn)
		}
		if voice == festivalHTS {
			continue
		}
		low := base
		low.Pitch = -50
		lo, _, _ := synth(t, l, low)
		high := base
		high.Pitch = 50
		hi, _, _ := synth(t, l, high)
		fl, fn, fh := medianF0(lo, n.SampleRate), medianF0(normal, n.SampleRate), medianF0(hi, n.SampleRate)
		t.Logf("%s: median F0 %.0f Hz at pitch -50, %.0f at 0, %.0f at 50", voice, fl, fn, fh)
		if fh < fn*1.2 || fl > fn/1.2 {
			t.Errorf("%s: median F0 %.0f Hz at pitch -50, %.0f at 0, %.0f at 50; want each clearly apart", voice, fl, fn, fh)
		}
	}
}

// Audio leaves utterance by utterance: a client that leaves after the
// first fragment has had only the first sentences' audio, the process
// that was speaking is killed, and the next request gets a warm one.
func TestFestivalUtteranceByUtteranceAndCancel(t *testing.T) {
	l := ownFestival(t)
	sentences := strings.Repeat("This sentence is one of many that festival will speak. ", 12)
	_, whole, _ := synth(t, l, api.TTSRequest{Text: sentences, VoiceCode: festivalKal})
	before := l.festival.pids()
	if len(before) != 1 {
		t.Fatalf("festival processes after one request: %v, want one kept warm", before)
	}
	ctx, cancel := context.WithCancel(context.Background())
	got := 0
	res, err := l.Synthesize(ctx, api.TTSRequest{Text: sentences, VoiceCode: festivalKal}, sinkFunc(func(p []byte) (int, error) {
		got += len(p)
		cancel()
		return len(p), nil
	}))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled synthesis: %v", err)
	}
	if got == 0 || res.DurationMs >= whole.DurationMs/4 {
		t.Errorf("cancelled after the first fragment: %d bytes, %d ms of %d ms", got, res.DurationMs, whole.DurationMs)
	}
	for deadline := time.Now().Add(5 * time.Second); slices.Contains(l.festival.pids(), before[0]); time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("festival process %d still runs 5 s after its request was cancelled", before[0])
		}
	}
	if _, _, n := synth(t, l, api.TTSRequest{Text: "Still here.", VoiceCode: festivalHTS}); n == 0 {
		t.Error("no audio after a cancelled request")
	}
}

// A festival that dies mid-way (here killed with the signal its diphone
// voices die of on some input) keeps the audio already sent, and the
// error names the sentence and how festival ended; the next request
// works on a fresh process.
func TestFestivalDiesMidway(t *testing.T) {
	l := ownFestival(t)
	synth(t, l, api.TTSRequest{Text: "Warm up.", VoiceCode: festivalKed})
	text := strings.Repeat("A sentence for festival to say. ", 10)
	killed := false
	sink := &countingSink{}
	_, err := l.Synthesize(context.Background(), api.TTSRequest{Text: text, VoiceCode: festivalKed}, sinkFunc(func(p []byte) (int, error) {
		if !killed {
			killed = true
			for _, pid := range l.festival.pids() {
				syscall.Kill(pid, syscall.SIGSEGV)
			}
		}
		return sink.Write(p)
	}))
	if err == nil || !strings.Contains(err.Error(), "of 10: festival: ") || !strings.Contains(err.Error(), "segmentation fault") {
		t.Fatalf("festival killed mid-way: %v", err)
	}
	if sink.Len() == 0 {
		t.Error("the audio sent before festival died is gone")
	}
	if _, _, n := synth(t, l, api.TTSRequest{Text: "After the crash.", VoiceCode: festivalKed}); n == 0 {
		t.Error("no audio after festival died")
	}
}

// The text is only ever a string to festival: quotes and backslashes
// cannot end it and run Scheme (which could run programs).
func TestFestivalTextStaysText(t *testing.T) {
	l := festivalProvider(t)
	marker := filepath.Join(t.TempDir(), "ran")
	for _, text := range []string{
		`Hello") (system "touch ` + marker + `") ("`,
		`Back\") (system \"touch ` + marker + `\") (\"`,
		"Line one\n(system \"touch " + marker + "\")\nline two.",
	} {
		if _, _, n := synth(t, l, api.TTSRequest{Text: text, VoiceCode: festivalKal}); n == 0 {
			t.Errorf("%q: no audio", text)
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("text sent to festival ran as a command")
	}
}

// What festival cannot say: text with nothing festival can read is
// refused; a sentence of punctuation alone (which crashes its diphone
// voices) is skipped; accents are dropped rather than read as bytes.
func TestFestivalUnspeakable(t *testing.T) {
	l := festivalProvider(t)
	for _, text := range []string{"日本語。…", "- ... -"} {
		_, err := l.Synthesize(context.Background(), api.TTSRequest{Text: text, VoiceCode: festivalKal}, &countingSink{})
		inputError(t, err, "text", "Latin")
	}
	synth(t, l, api.TTSRequest{Text: "Warm.", VoiceCode: festivalKal})
	before := l.festival.pids()
	for _, text := range []string{"Hello there. ... !!! Goodbye.", "Café crème, señor.", "Ça va?"} {
		a, res, _ := synth(t, l, api.TTSRequest{Text: text, VoiceCode: festivalKal})
		if len(a) == 0 || res.DurationMs < 300 {
			t.Errorf("%q: %d ms of audio", text, res.DurationMs)
		}
	}
	if after := l.festival.pids(); !slices.Equal(after, before) {
		t.Errorf("festival processes changed from %v to %v: one died", before, after)
	}
}

// Long text is many utterances on one process, whose small Lisp heap
// is collected between them.
func TestFestivalLongText(t *testing.T) {
	l := festivalProvider(t)
	long := strings.Repeat("word ", 75) + "end."
	text := strings.Repeat(long+" ", 8)
	_, res, _ := synth(t, l, api.TTSRequest{Text: text, VoiceCode: festivalHTS, SpeechRate: 100})
	if res.DurationMs < 60000 {
		t.Errorf("%d ms for 600 words", res.DurationMs)
	}
}

// A festival that cannot start (or list its voices) leaves the other
// engines' voices, and a request for a festival voice says why.
func TestFestivalMissingVoicesSaySo(t *testing.T) {
	festivalProvider(t)
	bad := filepath.Join(t.TempDir(), "festival")
	os.WriteFile(bad, []byte("#!/bin/sh\necho 'festival: cannot load lexicon' >&2\nexit 3\n"), 0o755)
	l, err := New(Config{FestivalPath: bad, Decoders: 1, WarmAfter: WarmOnDemand})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	vs, err := l.Voices(context.Background())
	if err != nil || len(vs) < 10 {
		t.Fatalf("voices with a broken festival: %d, %v", len(vs), err)
	}
	_, err = l.Synthesize(context.Background(), api.TTSRequest{Text: "Hello.", VoiceCode: festivalKal}, &countingSink{})
	if !errors.Is(err, engine.ErrUnavailable) || !strings.Contains(err.Error(), "cannot load lexicon") {
		t.Errorf("festival voice with a broken festival: %v", err)
	}
}
