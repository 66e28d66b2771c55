package relay

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"hark/api"
	"hark/audio/wav"
	"hark/gateway/config"
	"hark/gateway/engine"
	"hark/gateway/voice"
	"hark/gateway/voice/relay/relaytest"
)

func newProvider(t *testing.T, eng string, fake *relaytest.Server) *Provider {
	t.Helper()
	p, err := New(Config{Engine: eng, URL: fake.URL, APIKey: fake.Key, Lame: voice.FindLame()})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// timedSink keeps the audio and when its first and last writes came.
type timedSink struct {
	bytes.Buffer
	mu          sync.Mutex
	first, last time.Time
	writes      int
}

func (s *timedSink) Write(b []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.first.IsZero() {
		s.first = time.Now()
	}
	s.last = time.Now()
	s.writes++
	return s.Buffer.Write(b)
}

func TestOpenAIVoicesFromTheServersList(t *testing.T) {
	fake := relaytest.NewOpenAI(t)
	p := newProvider(t, config.EngineOpenAI, fake)
	vs, err := p.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 3 || vs[0].Value != "af_bella" || vs[0].Name != "Bella" || vs[0].Language != "en-us" || vs[0].Gender != "female" || vs[0].SampleRate != 24000 {
		t.Fatalf("voices %+v", vs)
	}
	if vs[2].Language != "en-gb" || vs[1].Gender != "male" {
		t.Fatalf("voices %+v", vs)
	}
}

func TestOpenAIVoicesFromConfigurationWhenTheServerHasNoList(t *testing.T) {
	fake := relaytest.NewOpenAI(t)
	fake.Voices = nil
	p, err := New(Config{Engine: config.EngineOpenAI, URL: fake.URL, APIKey: fake.Key, Voices: []string{"alloy", "nova"}})
	if err != nil {
		t.Fatal(err)
	}
	vs, err := p.Voices(context.Background())
	if err != nil || len(vs) != 2 || vs[1].Value != "nova" {
		t.Fatalf("voices %+v, %v", vs, err)
	}
	bare := newProvider(t, config.EngineOpenAI, fake)
	_, err = bare.Voices(context.Background())
	if err == nil || !strings.Contains(err.Error(), "voices = [") {
		t.Fatalf("a server with no list and none configured: %v", err)
	}
}

func TestOpenAISpeechAsPCMStreamsAsItArrives(t *testing.T) {
	fake := relaytest.NewOpenAI(t)
	fake.Pace(0, 30*time.Millisecond)
	p := newProvider(t, config.EngineOpenAI, fake)
	text := "This sentence is long enough to come in many chunks from the vendor."
	sink := &timedSink{}
	syn, err := p.Synthesize(context.Background(), api.TTSRequest{Text: text, VoiceCode: "af_bella", SpeechRate: 20}, sink)
	if err != nil {
		t.Fatal(err)
	}
	want := int(relaytest.Seconds(text) * 1000)
	if syn.Format != api.FormatPCM || syn.SampleRate != 24000 || syn.DurationMs < want-5 || syn.DurationMs > want+5 {
		t.Fatalf("synthesis %+v, want %d ms", syn, want)
	}
	if sink.Len() != want*48 {
		t.Fatalf("%d bytes, want %d", sink.Len(), want*48)
	}
	if sink.writes < 5 || sink.last.Sub(sink.first) < 100*time.Millisecond {
		t.Fatalf("audio came in %d writes over %v: not relayed as it arrived", sink.writes, sink.last.Sub(sink.first))
	}
	calls := fake.Calls()
	c := calls[len(calls)-1]
	if !c.KeyValid || c.Path != "/v1/audio/speech" || c.JSON["response_format"] != "pcm" || c.JSON["voice"] != "af_bella" ||
		c.JSON["model"] != "tts-1" || c.JSON["speed"] != 1.2 || c.JSON["input"] != text {
		t.Fatalf("call %+v", c)
	}
}

func TestSpeechAsWAVAtAnotherRateIsResampled(t *testing.T) {
	fake := relaytest.NewOpenAI(t)
	p := newProvider(t, config.EngineOpenAI, fake)
	sink := &timedSink{}
	syn, err := p.Synthesize(context.Background(), api.TTSRequest{Text: "Short.", VoiceCode: "am_adam", Format: api.FormatWAV, SampleRate: 16000}, sink)
	if err != nil {
		t.Fatal(err)
	}
	f, err := wav.ReadHeader(bytes.NewReader(sink.Bytes()))
	if err != nil || f.Rate != 16000 || !f.SizeKnown() || int(f.DataBytes) != sink.Len()-44 {
		t.Fatalf("header %+v, %v (of %d bytes)", f, err, sink.Len())
	}
	if syn.SampleRate != 16000 || syn.DurationMs != 360 {
		t.Fatalf("synthesis %+v", syn)
	}
}

func TestMP3IsPassedThroughAsTheVendorMadeIt(t *testing.T) {
	for _, tc := range []struct {
		eng   string
		fake  func(testing.TB) *relaytest.Server
		voice string
		query string
	}{
		{config.EngineOpenAI, relaytest.NewOpenAI, "af_bella", ""},
		{config.EngineElevenLabs, relaytest.NewElevenLabs, "21m00Tcm4TlvDq8ikWAM", "output_format=mp3_44100_128"},
	} {
		fake := tc.fake(t)
		p := newProvider(t, tc.eng, fake)
		sink := &timedSink{}
		syn, err := p.Synthesize(context.Background(), api.TTSRequest{Text: "Pass me through.", VoiceCode: tc.voice, Format: api.FormatMP3}, sink)
		if err != nil {
			t.Fatal(err)
		}
		if n, _, rate := mp3Header(sink.Bytes()); n == 0 || rate != 24000 {
			t.Fatalf("%s: not the vendor's mp3 (%d bytes)", tc.eng, sink.Len())
		}
		if syn.Format != api.FormatMP3 || syn.SampleRate != 24000 || syn.DurationMs < 900 {
			t.Fatalf("%s: synthesis %+v", tc.eng, syn)
		}
		calls := fake.Calls()
		if c := calls[len(calls)-1]; c.Query != tc.query || (tc.eng == config.EngineOpenAI && c.JSON["response_format"] != "mp3") {
			t.Fatalf("%s: call %+v", tc.eng, c)
		}
	}
}

func TestMP3AtAnotherRateIsEncodedHere(t *testing.T) {
	if voice.FindLame() == "" {
		t.Skip("lame is not installed")
	}
	fake := relaytest.NewOpenAI(t)
	p := newProvider(t, config.EngineOpenAI, fake)
	sink := &timedSink{}
	syn, err := p.Synthesize(context.Background(), api.TTSRequest{Text: "Encode me here.", VoiceCode: "af_bella", Format: api.FormatMP3, SampleRate: 16000}, sink)
	if err != nil {
		t.Fatal(err)
	}
	var m mp3Frames
	m.write(sink.Bytes())
	if m.rate != 16000 || syn.SampleRate != 16000 || m.ms() < 800 {
		t.Fatalf("mp3 at %d Hz, %d ms; synthesis %+v", m.rate, m.ms(), syn)
	}
	calls := fake.Calls()
	if c := calls[len(calls)-1]; c.JSON["response_format"] != "pcm" {
		t.Fatalf("asked the vendor for %v, want its pcm", c.JSON["response_format"])
	}
}

func TestElevenLabsVoicesAndStreamedSpeech(t *testing.T) {
	fake := relaytest.NewElevenLabs(t)
	p := newProvider(t, config.EngineElevenLabs, fake)
	vs, err := p.Voices(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 2 || vs[0].Value != "21m00Tcm4TlvDq8ikWAM" || vs[0].Name != "Rachel" || vs[0].Language != "en-us" ||
		vs[0].Gender != "female" || vs[0].Scene != "narration" || vs[1].Gender != "male" {
		t.Fatalf("voices %+v", vs)
	}
	sink := &timedSink{}
	syn, err := p.Synthesize(context.Background(), api.TTSRequest{Text: "Hello there.", VoiceCode: vs[1].Value, SampleRate: 16000, SpeechRate: -20,
		Extra: map[string]any{"stability": 0.4}}, sink)
	if err != nil {
		t.Fatal(err)
	}
	if syn.SampleRate != 16000 || syn.DurationMs != 720 || sink.Len() != 720*32 {
		t.Fatalf("synthesis %+v, %d bytes", syn, sink.Len())
	}
	calls := fake.Calls()
	c := calls[len(calls)-1]
	vsx, _ := c.JSON["voice_settings"].(map[string]any)
	if !c.KeyValid || c.Path != "/v1/text-to-speech/pNInz6obpgDQGcFmaJgB/stream" || c.Query != "output_format=pcm_16000" ||
		c.JSON["model_id"] != "eleven_multilingual_v2" || vsx["speed"] != 0.8 || vsx["stability"] != 0.4 {
		t.Fatalf("call %+v", c)
	}
}

// leaks fails the test when err's text holds the key or the part of it a
// vendor echoes.
func leaks(t *testing.T, err error, key string) {
	t.Helper()
	if s := err.Error(); strings.Contains(s, key) || strings.Contains(s, key[len(key)-4:]) || strings.Contains(s, "****") {
		t.Fatalf("the error shows the key: %s", s)
	}
}

func TestVendorFailuresMapOntoTheEnginesErrors(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		eng   string
		fake  func(testing.TB) *relaytest.Server
		voice string
	}{
		{config.EngineOpenAI, relaytest.NewOpenAI, "af_bella"},
		{config.EngineElevenLabs, relaytest.NewElevenLabs, "21m00Tcm4TlvDq8ikWAM"},
	} {
		fake := tc.fake(t)
		p := newProvider(t, tc.eng, fake)
		req := api.TTSRequest{Text: "Hello.", VoiceCode: tc.voice}

		// A refused key: a vendor error that says so, without the key.
		bad, _ := New(Config{Engine: tc.eng, URL: fake.URL, APIKey: fake.Key[:len(fake.Key)-4] + "XXXX"})
		_, err := bad.Synthesize(ctx, req, &timedSink{})
		var ve *engine.VendorError
		if !errors.As(err, &ve) || ve.Status != 401 || !strings.Contains(ve.Detail, "API key was refused") {
			t.Fatalf("%s: bad key: %v", tc.eng, err)
		}
		leaks(t, err, fake.Key)

		// An unknown voice, known to the list or not.
		_, err = p.Synthesize(ctx, api.TTSRequest{Text: "Hello.", VoiceCode: "nobody"}, &timedSink{})
		var ie *engine.InputError
		if !errors.As(err, &ie) || ie.Field != "voice_code" {
			t.Fatalf("%s: unknown voice: %v", tc.eng, err)
		}
		fake.FailNext(relaytest.Failure{Status: 404, Code: "voice_not_found", Message: "A voice with the voice_id " + tc.voice + " was not found."})
		_, err = p.Synthesize(ctx, req, &timedSink{})
		if !errors.As(err, &ie) || ie.Field != "voice_code" || !strings.Contains(err.Error(), "not found") {
			t.Fatalf("%s: the vendor's unknown voice: %v", tc.eng, err)
		}

		// A rate limit, with the wait it asked for.
		fake.FailNext(relaytest.Failure{Status: 429, RetryAfter: "7"})
		_, err = p.Synthesize(ctx, req, &timedSink{})
		if !errors.As(err, &ve) || !ve.RateLimited() || ve.RetryAfter != 7*time.Second {
			t.Fatalf("%s: 429: %#v", tc.eng, err)
		}
		fake.FailNext(relaytest.Failure{Status: 429, Code: "insufficient_quota", Message: "You exceeded your current quota."})
		_, err = p.Synthesize(ctx, req, &timedSink{})
		if !errors.As(err, &ve) || !strings.HasPrefix(ve.Detail, "quota exceeded") {
			t.Fatalf("%s: quota: %v", tc.eng, err)
		}
		fake.FailNext(relaytest.Failure{Status: 403, Code: "output_format_not_allowed", Message: "pcm_44100 needs the Pro tier"})
		_, err = p.Synthesize(ctx, req, &timedSink{})
		if !errors.As(err, &ve) || ve.Status != 403 || ve.Detail != "not allowed for this key: pcm_44100 needs the Pro tier" {
			t.Fatalf("%s: 403: %v", tc.eng, err)
		}
		fake.FailNext(relaytest.Failure{Status: 500, Message: "upstream exploded"})
		_, err = p.Synthesize(ctx, req, &timedSink{})
		if !errors.As(err, &ve) || ve.Status != 500 || !strings.Contains(err.Error(), "upstream exploded") {
			t.Fatalf("%s: 500: %v", tc.eng, err)
		}

		// A 200 that holds JSON, not audio, is a failure, never sound.
		fake.FailNext(relaytest.Failure{Status: 200, Message: "the model is loading"})
		sink0 := &timedSink{}
		_, err = p.Synthesize(ctx, req, sink0)
		if !errors.As(err, &ve) || !strings.Contains(ve.Detail, "instead of audio: the model is loading") || sink0.Len() != 0 {
			t.Fatalf("%s: 200 with JSON: %v, %d bytes relayed", tc.eng, err, sink0.Len())
		}

		// A stream cut mid-way: what arrived was relayed, and the error
		// says where it broke.
		fake.DropAfter(10000)
		sink := &timedSink{}
		_, err = p.Synthesize(ctx, api.TTSRequest{Text: strings.Repeat("Long text. ", 10), VoiceCode: tc.voice}, sink)
		if !errors.As(err, &ve) || !strings.Contains(ve.Detail, "broke off") || sink.Len() < 8000 {
			t.Fatalf("%s: dropped: %v after %d bytes", tc.eng, err, sink.Len())
		}
	}
}

func TestInputsTheVendorsCannotTake(t *testing.T) {
	fake := relaytest.NewElevenLabs(t)
	p := newProvider(t, config.EngineElevenLabs, fake)
	for _, tc := range []struct {
		req   api.TTSRequest
		field string
	}{
		{api.TTSRequest{Text: " "}, "text"},
		{api.TTSRequest{Text: "x"}, "voice_code"},
		{api.TTSRequest{Text: "x", VoiceCode: "21m00Tcm4TlvDq8ikWAM", Pitch: 5}, "pitch"},
		{api.TTSRequest{Text: "x", VoiceCode: "21m00Tcm4TlvDq8ikWAM", SpeechRate: 50}, "speech_rate"},
		{api.TTSRequest{Text: "x", VoiceCode: "21m00Tcm4TlvDq8ikWAM", SampleRate: 12345}, "sample_rate"},
		{api.TTSRequest{Text: "x", VoiceCode: "21m00Tcm4TlvDq8ikWAM", Format: "ogg"}, "format"},
		{api.TTSRequest{Text: "x", VoiceCode: "21m00Tcm4TlvDq8ikWAM", Extra: map[string]any{"ssml": true}}, "extra.ssml"},
		{api.TTSRequest{Text: "x", VoiceCode: "21m00Tcm4TlvDq8ikWAM", Extra: map[string]any{"stability": 2.0}}, "extra.stability"},
	} {
		_, err := p.Synthesize(context.Background(), tc.req, &timedSink{})
		var ie *engine.InputError
		if !errors.As(err, &ie) || ie.Field != tc.field {
			t.Errorf("%+v: %v, want a rule of %s", tc.req, err, tc.field)
		}
	}
}

func TestRecognitionSendsOneFileAndGivesOneFinalResult(t *testing.T) {
	for _, tc := range []struct {
		eng      string
		fake     func(testing.TB) *relaytest.Server
		path     string
		langKey  string
		modelKey string
	}{
		{config.EngineOpenAI, relaytest.NewOpenAI, "/v1/audio/transcriptions", "language", "model"},
		{config.EngineElevenLabs, relaytest.NewElevenLabs, "/v1/speech-to-text", "language_code", "model_id"},
	} {
		fake := tc.fake(t)
		p := newProvider(t, tc.eng, fake)
		raw := make([]byte, 16000*2) // one second of silence, raw pcm
		var got []engine.Transcript
		err := p.Recognize(context.Background(), api.STTRequest{SampleRate: 16000, Language: "en-us"}, bytes.NewReader(raw),
			func(tr engine.Transcript) error { got = append(got, tr); return nil })
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || !got[0].Final || got[0].Text != "hello from the fake" || got[0].DurationMs != 1000 {
			t.Fatalf("%s: results %+v", tc.eng, got)
		}
		calls := fake.Calls()
		c := calls[len(calls)-1]
		f, herr := wav.ReadHeader(bytes.NewReader(c.File))
		if c.Path != tc.path || c.FileName != "audio.wav" || herr != nil || f.Rate != 16000 || c.Form[tc.langKey] != "en" || c.Form[tc.modelKey] == "" {
			t.Fatalf("%s: call %+v (header %+v %v)", tc.eng, c.Form, f, herr)
		}
		err = p.Recognize(context.Background(), api.STTRequest{}, bytes.NewReader(raw), func(engine.Transcript) error { return nil })
		var ie *engine.InputError
		if !errors.As(err, &ie) || ie.Field != "audio_data" {
			t.Fatalf("%s: raw pcm without a rate: %v", tc.eng, err)
		}
		fake.FailNext(relaytest.Failure{Status: 401})
		err = p.Recognize(context.Background(), api.STTRequest{SampleRate: 16000}, bytes.NewReader(raw), func(engine.Transcript) error { return nil })
		if err == nil {
			t.Fatalf("%s: a refusal passed", tc.eng)
		}
		leaks(t, err, fake.Key)
	}
}

func TestLongTextIsSpokenInVendorSizedPieces(t *testing.T) {
	fake := relaytest.NewOpenAI(t)
	p := newProvider(t, config.EngineOpenAI, fake)
	text := strings.Repeat("This is one sentence of a long text. ", 250) // over 9000 characters
	if _, err := p.Synthesize(context.Background(), api.TTSRequest{Text: text, VoiceCode: "af_bella"}, &timedSink{}); err != nil {
		t.Fatal(err)
	}
	var n int
	for _, c := range fake.Calls() {
		if in, ok := c.JSON["input"].(string); ok {
			n++
			if len(in) > 4000 {
				t.Fatalf("a call of %d characters", len(in))
			}
		}
	}
	if n < 3 {
		t.Fatalf("%d calls", n)
	}
}
