// Package relay passes hark's voice interface through to speech vendors:
// any OpenAI-compatible speech server (OpenAI, Kokoro-FastAPI,
// openedai-speech, LocalAI; whisper.cpp's and faster-whisper's servers for
// recognition) and ElevenLabs. It maps the interface's request onto the
// vendor's, relays the vendor's audio as its chunks arrive in the format
// the client asked for (converting only where needed), and maps the
// vendor's failures onto the engine's errors.
//
// The vendor's key goes into the request's header and nowhere else: never
// into an error, a log line or a response. It knows nothing of the
// gateway's HTTP or WebSocket framing.
package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"hark/api"
	"hark/audio/pcm"
	"hark/gateway/config"
	"hark/gateway/engine"
	gwtext "hark/gateway/text"
	"hark/gateway/voice"
)

// Config is one provider's settings (gateway.toml's
// [workspace.voice.<code>]) and what the gateway lends it.
type Config struct {
	Engine   string // config.EngineOpenAI or config.EngineElevenLabs
	URL      string // base URL; empty takes the vendor's own
	APIKey   string
	Model    string // speech model; empty takes the vendor's default
	STTModel string // recognition model; empty takes the vendor's default
	Voices   []string
	// Lame is lame's path, for mp3 made here from the vendor's samples
	// (a rate or loudness the vendor's own mp3 lacks); "" refuses those.
	Lame string
	// Client makes the vendor calls; nil: a client of its own with no
	// overall timeout (the gateway's context bounds each call).
	Client *http.Client
	// MaxAudioBytes bounds the audio of one recognition, which is sent
	// whole. Default 25 MiB, OpenAI's limit.
	MaxAudioBytes int
}

// DefaultMaxAudioBytes is Config.MaxAudioBytes' default.
const DefaultMaxAudioBytes = 25 << 20

// voiceListTTL is how long a vendor's voice list is used before it is
// asked again.
const voiceListTTL = time.Minute

// Provider is one vendor behind the voice interface; it implements
// engine.VoiceProvider and engine.TTSDescriber.
type Provider struct {
	cfg    Config
	vendor vendor
	client *http.Client

	mu     sync.Mutex
	voices []api.Voice
	listed time.Time
}

var (
	_ engine.VoiceProvider = (*Provider)(nil)
	_ engine.TTSDescriber  = (*Provider)(nil)
)

// vendor is what differs between the vendors: their requests, their
// ranges and how their bodies read.
type vendor interface {
	// name is the vendor as errors name it ("OpenAI", "ElevenLabs").
	name() string
	defaultURL() string
	authorize(h http.Header, key string)
	listVoices(ctx context.Context, p *Provider) ([]api.Voice, error)
	// speedRange is speech_rate's bounds: percent faster or slower, as
	// far as the vendor's speed control goes.
	speedRange() (lo, hi int)
	// defaultRate is the rate of the vendor's audio when the request
	// names none.
	defaultRate() int
	// maxChunk is the most characters one vendor call speaks; longer text
	// is spoken in turns, cut between sentences.
	maxChunk() int
	// extraKeys are the extra keys the vendor takes, with their rules.
	extraKeys() []extraKey
	// speech builds one speech call. asMP3 asks for the vendor's mp3 at
	// rate (0: its own); else it asks for raw s16le samples, ideally at
	// rate, and says at which rate they come.
	speech(ctx context.Context, p *Provider, plan *ttsPlan, text string, asMP3 bool, rate int) (req *http.Request, pcmRate int, err error)
	// mp3At says whether the vendor makes mp3 at rate itself (0: its
	// default rate, which it returns).
	mp3At(rate int) (int, bool)
	// transcription builds one recognition call of a whole file.
	transcription(ctx context.Context, p *Provider, audio []byte, filename, language string) (*http.Request, error)
	// transcript reads the vendor's recognition answer.
	transcript(body []byte) (text string, confidence float64, err error)
	// failure reads a vendor's error body: its code (or status word) and
	// message.
	failure(body []byte) (code, msg string)
}

// New builds the provider of cfg.Engine.
func New(cfg Config) (*Provider, error) {
	var v vendor
	switch cfg.Engine {
	case config.EngineOpenAI:
		v = openAI{}
	case config.EngineElevenLabs:
		v = elevenLabs{}
	default:
		return nil, fmt.Errorf("engine: %q is not a relayed vendor (openai or elevenlabs)", cfg.Engine)
	}
	if cfg.APIKey == "" {
		return nil, engine.ErrCredentialsMissing
	}
	if cfg.URL == "" {
		cfg.URL = v.defaultURL()
	}
	u, err := url.Parse(cfg.URL)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, errors.New("url: must be an absolute http(s) URL")
	}
	cfg.URL = strings.TrimRight(u.String(), "/")
	if cfg.MaxAudioBytes <= 0 {
		cfg.MaxAudioBytes = DefaultMaxAudioBytes
	}
	p := &Provider{cfg: cfg, vendor: v, client: cfg.Client}
	if p.client == nil {
		p.client = &http.Client{Transport: http.DefaultTransport.(*http.Transport).Clone()}
	}
	return p, nil
}

// Voices lists the vendor's voices, asked at most once a minute.
func (p *Provider) Voices(ctx context.Context) ([]api.Voice, error) {
	p.mu.Lock()
	if p.voices != nil && time.Since(p.listed) < voiceListTTL {
		out := slices.Clone(p.voices)
		p.mu.Unlock()
		return out, nil
	}
	p.mu.Unlock()
	vs, err := p.vendor.listVoices(ctx, p)
	if err != nil {
		return nil, err
	}
	for i := range vs {
		if vs[i].SampleRate == 0 {
			vs[i].SampleRate = p.vendor.defaultRate()
		}
	}
	p.mu.Lock()
	p.voices, p.listed = vs, time.Now()
	p.mu.Unlock()
	return slices.Clone(vs), nil
}

// configuredVoices are Config.Voices as voice items.
func (p *Provider) configuredVoices() []api.Voice {
	out := make([]api.Voice, 0, len(p.cfg.Voices))
	for _, c := range p.cfg.Voices {
		out = append(out, voiceItem(strings.TrimSpace(c), ""))
	}
	return out
}

// do sends a vendor call with the key and reads a failure into an error.
// The caller closes a successful response's body.
func (p *Provider) do(req *http.Request) (*http.Response, error) {
	p.vendor.authorize(req.Header, p.cfg.APIKey)
	resp, err := p.client.Do(req)
	if err != nil {
		if ctxErr := req.Context().Err(); ctxErr != nil {
			return nil, ctxErr
		}
		return nil, &engine.VendorError{Vendor: p.vendor.name(), Detail: p.scrub(unwrapURL(err).Error())}
	}
	if resp.StatusCode/100 == 2 {
		return resp, nil
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	return nil, p.failure(resp, body)
}

// speak sends one speech call and checks that audio came back: a
// server that answers 200 with JSON or a page (a proxy's, or an error
// in a 200) is read as the failure it is, never relayed as sound.
func (p *Provider) speak(req *http.Request) (*http.Response, error) {
	resp, err := p.do(req)
	if err != nil {
		return nil, err
	}
	ct, _, _ := strings.Cut(strings.ToLower(resp.Header.Get("Content-Type")), ";")
	if ct == "application/json" || strings.HasPrefix(ct, "text/") {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		_, msg := p.vendor.failure(body)
		return nil, &engine.VendorError{Vendor: p.vendor.name(), Detail: gwtext.TruncateRunes(p.scrub("answered "+ct+" instead of audio: "+strings.TrimSpace(msg)), 300)}
	}
	return resp, nil
}

// failure maps a vendor's refusal onto the engine's errors: a refused key
// (its message left out: vendors echo part of the key), an unknown voice
// (the request's voice_code), a rate limit or quota with the wait asked
// for, and any other failure with the vendor's own words.
func (p *Provider) failure(resp *http.Response, body []byte) error {
	code, msg := p.vendor.failure(body)
	msg = gwtext.TruncateRunes(p.scrub(strings.TrimSpace(msg)), 300)
	lcode, lmsg := strings.ToLower(code), strings.ToLower(msg)
	quota := strings.Contains(lcode, "quota") || strings.Contains(lmsg, "quota")
	ve := &engine.VendorError{Vendor: p.vendor.name(), Status: resp.StatusCode, Detail: msg}
	switch {
	case resp.StatusCode == http.StatusUnauthorized && !quota:
		ve.Detail = "the API key was refused; check api_key of this provider in gateway.toml"
	case resp.StatusCode == http.StatusForbidden && !quota:
		// The key is good but may not do this (a plan without the
		// output format, a region, a permission): the vendor says which.
		ve.Detail = "not allowed for this key: " + msg
	case resp.StatusCode == http.StatusTooManyRequests:
		ve.RetryAfter = retryAfter(resp.Header)
		if quota {
			ve.Detail = "quota exceeded: " + msg
		}
	case quota:
		ve.Detail = "quota exceeded: " + msg
	case strings.Contains(lcode, "voice") || (resp.StatusCode == http.StatusNotFound ||
		resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusUnprocessableEntity) && strings.Contains(lmsg, "voice"):
		return &engine.InputError{Field: "voice_code", Rule: fmt.Sprintf("%s does not know this voice (%s); pick a value from the voice list", p.vendor.name(), msg)}
	}
	if ve.Detail == "" {
		ve.Detail = http.StatusText(resp.StatusCode)
	}
	return ve
}

// retryAfter reads Retry-After in seconds or as an HTTP date.
func retryAfter(h http.Header) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	var secs int
	if _, err := fmt.Sscanf(v, "%d", &secs); err == nil && secs >= 0 {
		return time.Duration(secs) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil {
		return max(0, time.Until(t))
	}
	return 0
}

// scrub takes the key out of s, should a vendor or a library echo it.
func (p *Provider) scrub(s string) string {
	if p.cfg.APIKey != "" {
		s = strings.ReplaceAll(s, p.cfg.APIKey, "[redacted]")
	}
	return s
}

func unwrapURL(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		return ue.Err
	}
	return err
}

// ttsPlan is a checked TTS request.
type ttsPlan struct {
	voice   string
	chunks  []string // the text in vendor-sized pieces
	format  string   // what the client gets
	rate    int      // output rate; 0 with passMP3 takes the vendor's
	speed   float64  // 1 normal
	gain    float64
	passMP3 bool // the vendor's own mp3, relayed as it comes
	extra   map[string]any
}

// extraKey is one extra key a vendor takes.
type extraKey struct {
	name  string
	check func(field string, v any) error
}

func (p *Provider) plan(ctx context.Context, req api.TTSRequest) (*ttsPlan, error) {
	text := strings.ToValidUTF8(req.Text, " ")
	if strings.TrimSpace(text) == "" {
		return nil, &engine.InputError{Field: "text", Rule: "must not be empty"}
	}
	if n := utf8.RuneCountInString(text); n > voice.DefaultMaxTextRunes {
		return nil, &engine.InputError{Field: "text", Rule: fmt.Sprintf("%d characters is over the limit of %d", n, voice.DefaultMaxTextRunes)}
	}
	if req.VoiceCode == "" {
		return nil, &engine.InputError{Field: "voice_code", Rule: "required; pick a value from the voice list"}
	}
	plan := &ttsPlan{voice: req.VoiceCode, format: req.Format, rate: req.SampleRate, speed: 1, gain: 1}
	switch plan.format {
	case "":
		plan.format = api.FormatPCM
	case api.FormatPCM, api.FormatWAV, api.FormatMP3:
	default:
		return nil, &engine.InputError{Field: "format", Rule: fmt.Sprintf("%q is not one of pcm, wav, mp3", req.Format)}
	}
	if plan.rate != 0 && !slices.Contains(voice.SampleRates, plan.rate) {
		return nil, &engine.InputError{Field: "sample_rate", Rule: fmt.Sprintf("%d Hz is not supported; use one of %s", plan.rate, rateList())}
	}
	lo, hi := p.vendor.speedRange()
	if req.SpeechRate < lo || req.SpeechRate > hi {
		return nil, &engine.InputError{Field: "speech_rate", Rule: fmt.Sprintf("%d is outside %d..%d (percent change of speed, 0 normal; %s's range)", req.SpeechRate, lo, hi, p.vendor.name())}
	}
	plan.speed = float64(100+req.SpeechRate) / 100
	if req.Pitch != 0 {
		return nil, &engine.InputError{Field: "pitch", Rule: fmt.Sprintf("%s voices have no pitch control; must be 0", p.vendor.name())}
	}
	if req.Loudness < voice.LoudnessMin || req.Loudness > voice.LoudnessMax {
		return nil, &engine.InputError{Field: "loudness", Rule: fmt.Sprintf("%d is outside %d..%d (-50 silent, 0 normal, 50 double amplitude)", req.Loudness, voice.LoudnessMin, voice.LoudnessMax)}
	}
	plan.gain = float64(100+2*req.Loudness) / 100
	keys := p.vendor.extraKeys()
	for k, v := range req.Extra {
		i := slices.IndexFunc(keys, func(e extraKey) bool { return e.name == k })
		if i < 0 {
			names := make([]string, len(keys))
			for j, e := range keys {
				names[j] = e.name
			}
			return nil, &engine.InputError{Field: "extra." + k, Rule: fmt.Sprintf("unknown key for %s voices; accepted: %s", p.vendor.name(), strings.Join(names, ", "))}
		}
		if err := keys[i].check("extra."+k, v); err != nil {
			return nil, err
		}
	}
	plan.extra = req.Extra
	if plan.format == api.FormatMP3 && plan.gain == 1 {
		if r, ok := p.vendor.mp3At(plan.rate); ok {
			plan.passMP3, plan.rate = true, r
		}
	}
	if plan.format == api.FormatMP3 && !plan.passMP3 && p.cfg.Lame == "" {
		return nil, &engine.InputError{Field: "format", Rule: fmt.Sprintf("mp3 at this sample_rate or loudness is made here with lame, which is not installed; use pcm or wav, or %s's own mp3", p.vendor.name())}
	}
	if plan.rate == 0 {
		plan.rate = p.vendor.defaultRate()
	}
	// The voice is checked against the vendor's list, so a typo is a 400
	// naming voice_code before any audio is asked for.
	vs, err := p.Voices(ctx)
	if err != nil {
		return nil, err
	}
	if !slices.ContainsFunc(vs, func(v api.Voice) bool { return v.Value == req.VoiceCode }) {
		return nil, &engine.InputError{Field: "voice_code", Rule: fmt.Sprintf("unknown voice %q of %s; pick a value from the voice list", gwtext.TruncateRunes(req.VoiceCode, 100), p.vendor.name())}
	}
	plan.chunks = chunks(text, p.vendor.maxChunk())
	return plan, nil
}

// chunks cuts text between sentences into pieces of at most max runes.
func chunks(text string, max int) []string {
	if utf8.RuneCountInString(text) <= max {
		return []string{strings.TrimSpace(text)}
	}
	var out []string
	var cur strings.Builder
	for _, s := range gwtext.Spoken(text, max) {
		if cur.Len() > 0 && utf8.RuneCountInString(cur.String())+1+utf8.RuneCountInString(s) > max {
			out = append(out, cur.String())
			cur.Reset()
		}
		if cur.Len() > 0 {
			cur.WriteByte(' ')
		}
		cur.WriteString(s)
	}
	if cur.Len() > 0 {
		out = append(out, cur.String())
	}
	return out
}

func rateList() string {
	s := make([]string, len(voice.SampleRates))
	for i, r := range voice.SampleRates {
		s[i] = fmt.Sprint(r)
	}
	return strings.Join(s, ", ") + " Hz"
}

// Synthesize speaks req through the vendor, chunk by chunk, writing its
// audio to sink as it arrives.
func (p *Provider) Synthesize(ctx context.Context, req api.TTSRequest, sink engine.AudioSink) (engine.Synthesis, error) {
	plan, err := p.plan(ctx, req)
	if err != nil {
		return engine.Synthesis{}, err
	}
	if plan.passMP3 {
		return p.relayMP3(ctx, plan, sink)
	}
	return p.relayPCM(ctx, plan, sink)
}

// relayMP3 passes the vendor's mp3 through as its chunks arrive, timing
// it by its frames.
func (p *Provider) relayMP3(ctx context.Context, plan *ttsPlan, sink engine.AudioSink) (engine.Synthesis, error) {
	res := engine.Synthesis{Format: api.FormatMP3, SampleRate: plan.rate}
	var frames mp3Frames
	sent := 0
	for _, text := range plan.chunks {
		req, _, err := p.vendor.speech(ctx, p, plan, text, true, plan.rate)
		if err != nil {
			return res, err
		}
		resp, err := p.speak(req)
		if err != nil {
			return res, err
		}
		buf := make([]byte, 16<<10)
		for {
			n, rerr := resp.Body.Read(buf)
			if n > 0 {
				frames.write(buf[:n])
				if _, err := sink.Write(buf[:n]); err != nil {
					resp.Body.Close()
					return res, err
				}
				sent += n
			}
			if rerr == io.EOF {
				break
			}
			if rerr != nil {
				resp.Body.Close()
				res.DurationMs = frames.ms()
				return res, p.broken(ctx, rerr, res.DurationMs)
			}
		}
		resp.Body.Close()
	}
	if frames.rate > 0 {
		res.SampleRate = frames.rate
	}
	res.DurationMs = frames.ms()
	if sent == 0 {
		return res, &engine.VendorError{Vendor: p.vendor.name(), Detail: "the vendor sent no audio"}
	}
	return res, nil
}

// relayPCM reads the vendor's raw samples as they arrive and gives them,
// resampled and scaled where asked, to an encoder of the client's format.
func (p *Provider) relayPCM(ctx context.Context, plan *ttsPlan, sink engine.AudioSink) (engine.Synthesis, error) {
	res := engine.Synthesis{Format: plan.format, SampleRate: plan.rate}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	out, err := voice.NewOutput(ctx, p.cfg.Lame, plan.format, plan.rate, sink)
	if err != nil {
		return res, err
	}
	var rs *pcm.Resampler
	var samples, resampled []int16
	var odd []byte
	err = func() error {
		for _, text := range plan.chunks {
			req, inRate, err := p.vendor.speech(ctx, p, plan, text, false, plan.rate)
			if err != nil {
				return err
			}
			resp, err := p.speak(req)
			if err != nil {
				return err
			}
			if rs == nil {
				rs = pcm.NewResampler(inRate, plan.rate)
			}
			buf := make([]byte, 8<<10)
			for {
				n, rerr := resp.Body.Read(buf)
				if n > 0 {
					b := append(odd, buf[:n]...)
					whole := len(b) &^ 1
					samples = appendS16(samples[:0], b[:whole])
					odd = append(odd[:0:0], b[whole:]...)
					pcm.Scale(samples, plan.gain)
					resampled = rs.Write(resampled[:0], samples)
					if err := out.Write(resampled); err != nil {
						resp.Body.Close()
						return err
					}
				}
				if rerr == io.EOF {
					break
				}
				if rerr != nil {
					resp.Body.Close()
					return p.broken(ctx, rerr, int(rs.Produced()*1000/int64(plan.rate)))
				}
			}
			resp.Body.Close()
		}
		return out.Write(rs.Flush(resampled[:0]))
	}()
	if ferr := out.Finish(err != nil); err == nil {
		err = ferr
	}
	if rs != nil {
		res.DurationMs = int((rs.Produced()*1000 + int64(plan.rate)/2) / int64(plan.rate))
	}
	return res, err
}

// broken is the error of a vendor stream that stopped before its end.
func (p *Provider) broken(ctx context.Context, err error, ms int) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return &engine.VendorError{Vendor: p.vendor.name(), Detail: fmt.Sprintf("the audio stream broke off after %.1f s of audio: %s", float64(ms)/1000, p.scrub(unwrapURL(err).Error()))}
}

func appendS16(dst []int16, b []byte) []int16 {
	for i := 0; i+1 < len(b); i += 2 {
		dst = append(dst, int16(uint16(b[i])|uint16(b[i+1])<<8))
	}
	return dst
}

// TTSInputs are the TTS fields with this vendor's bounds.
func (p *Provider) TTSInputs() []api.Field {
	bound := func(n int) *float64 { f := float64(n); return &f }
	formats := []string{api.FormatPCM, api.FormatWAV, api.FormatMP3}
	rates := make([]string, len(voice.SampleRates))
	for i, r := range voice.SampleRates {
		rates[i] = fmt.Sprint(r)
	}
	lo, hi := p.vendor.speedRange()
	return []api.Field{
		{Name: "format", Type: "string", Default: api.FormatPCM, Enum: formats, Description: "audio format"},
		{Name: "sample_rate", Type: "integer", Enum: rates, Description: fmt.Sprintf("Hz; %d when absent", p.vendor.defaultRate())},
		{Name: "speech_rate", Type: "integer", Default: 0, Min: bound(lo), Max: bound(hi), Description: "percent change of speed, 0 normal"},
		{Name: "pitch", Type: "integer", Default: 0, Min: bound(0), Max: bound(0), Description: "no pitch control: 0"},
		{Name: "loudness", Type: "integer", Default: 0, Min: bound(voice.LoudnessMin), Max: bound(voice.LoudnessMax), Description: "-50 silent, 0 normal, 50 double amplitude"},
	}
}
