package voice

import (
	"context"
	"fmt"
	"io"
	"math"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"hark/api"
	"hark/audio/pcm"
	"hark/audio/wav"
	"hark/gateway/engine"
	gwtext "hark/gateway/text"
)

// Ranges of the TTS controls; 0 is each engine's normal voice.
const (
	SpeechRateMin, SpeechRateMax = -50, 100 // percent faster (+) or slower (-)
	PitchMin, PitchMax           = -50, 50  // percent higher or lower
	LoudnessMin, LoudnessMax     = -50, 50  // amplitude: -50 silent, 0 normal, +50 double
	WordGapMaxMs                 = 1000     // extra.word_gap_ms, espeak-ng only
	maxSentenceRunes             = 400      // longer sentences are cut at a comma or space
)

// SampleRates are the output rates TTS accepts: those an MP3 stream can
// carry, so that every format offers the same list.
var SampleRates = []int{8000, 11025, 12000, 16000, 22050, 24000, 32000, 44100, 48000}

// ttsPlan is a validated TTS request.
type ttsPlan struct {
	voice     *voiceInfo
	format    string
	rate      int              // output rate
	args      []string         // engine arguments before the text
	festival  festivalSettings // festival's controls, for its voices
	gain      float64          // applied to samples here (engines without a volume control)
	sentences []string
}

func rangeError(field string, v, lo, hi int, unit string) error {
	return &engine.InputError{Field: field, Rule: fmt.Sprintf("%d is outside %d..%d (%s)", v, lo, hi, unit)}
}

func (l *Local) planTTS(ctx context.Context, req api.TTSRequest) (plan *ttsPlan, err error) {
	text := strings.ToValidUTF8(req.Text, " ")
	if strings.TrimSpace(text) == "" {
		return nil, &engine.InputError{Field: "text", Rule: "must not be empty"}
	}
	if n := utf8.RuneCountInString(text); n > l.cfg.MaxTextRunes {
		return nil, &engine.InputError{Field: "text", Rule: fmt.Sprintf("%d characters is over the limit of %d", n, l.cfg.MaxTextRunes)}
	}
	if req.VoiceCode == "" {
		return nil, &engine.InputError{Field: "voice_code", Rule: "required; pick a value from the voice list"}
	}
	var v *voiceInfo
	if strings.HasPrefix(req.VoiceCode, engineFestival+":") {
		if v, err = l.festivalVoice(ctx, req.VoiceCode); err != nil {
			return nil, err
		}
	} else {
		cat, err := l.catalog()
		if err != nil {
			return nil, err
		}
		v, _ = cat.lookup(req.VoiceCode)
	}
	if v == nil {
		return nil, &engine.InputError{Field: "voice_code", Rule: fmt.Sprintf("unknown voice %q; pick a value from the voice list", req.VoiceCode)}
	}
	if v.engine == engineFestival {
		text = festivalText(text)
	}
	if (v.engine == engineFlite || v.engine == engineFestival) && !strings.ContainsFunc(text, isLatinOrDigit) {
		return nil, &engine.InputError{Field: "text", Rule: fmt.Sprintf("has no Latin letters or digits, and %s speaks only English (it would say nothing); pick an espeak voice of the text's language", v.Value)}
	}
	p := &ttsPlan{voice: v, format: req.Format, rate: req.SampleRate, gain: 1}
	switch p.format {
	case "":
		p.format = api.FormatPCM
	case api.FormatPCM, api.FormatWAV, api.FormatMP3:
	default:
		return nil, &engine.InputError{Field: "format", Rule: fmt.Sprintf("%q is not one of pcm, wav, mp3", req.Format)}
	}
	if p.format == api.FormatMP3 && l.lame == "" {
		return nil, &engine.InputError{Field: "format", Rule: "mp3 needs lame, which is not installed; use pcm or wav"}
	}
	if p.rate == 0 {
		p.rate = v.rate
	} else if !slices.Contains(SampleRates, p.rate) {
		return nil, &engine.InputError{Field: "sample_rate", Rule: fmt.Sprintf("%d Hz is not supported; use one of %s", p.rate, rateList())}
	}
	if req.SpeechRate < SpeechRateMin || req.SpeechRate > SpeechRateMax {
		return nil, rangeError("speech_rate", req.SpeechRate, SpeechRateMin, SpeechRateMax, "percent change of speed, 0 normal")
	}
	if req.Pitch < PitchMin || req.Pitch > PitchMax {
		return nil, rangeError("pitch", req.Pitch, PitchMin, PitchMax, "percent change of pitch, 0 normal")
	}
	if req.Pitch != 0 && v.noPitch {
		return nil, &engine.InputError{Field: "pitch", Rule: fmt.Sprintf("voice %s has no pitch control; must be 0", v.Value)}
	}
	if req.Loudness < LoudnessMin || req.Loudness > LoudnessMax {
		return nil, rangeError("loudness", req.Loudness, LoudnessMin, LoudnessMax, "-50 silent, 0 normal, 50 double amplitude")
	}
	ex, err := parseExtra(req.Extra, v.engine)
	if err != nil {
		return nil, err
	}
	amplitude := 100 + 2*req.Loudness // percent
	switch v.engine {
	case engineEspeak:
		wpm := int(math.Round(175 * float64(100+req.SpeechRate) / 100))
		pitch := int(math.Round(float64(req.Pitch+50) * 99 / 100))
		p.args = []string{"--stdout", "-v", v.name, "-s", strconv.Itoa(wpm), "-p", strconv.Itoa(pitch), "-a", strconv.Itoa(amplitude)}
		if ex.wordGapMs > 0 {
			p.args = append(p.args, "-g", strconv.Itoa((ex.wordGapMs+5)/10))
		}
		if ex.ssml {
			p.args = append(p.args, "-m")
		}
		if ex.punctuation {
			p.args = append(p.args, "--punct")
		}
	case engineFestival:
		p.festival = festivalControls(req.SpeechRate, req.Pitch)
		p.gain = float64(amplitude) / 100
	case engineFlite:
		p.args = []string{"-voice", v.name,
			"--setf", "duration_stretch=" + strconv.FormatFloat(100/float64(100+req.SpeechRate), 'f', 4, 64)}
		if req.Pitch != 0 {
			p.args = append(p.args, "--setf", "f0_shift="+strconv.FormatFloat(1+float64(req.Pitch)/100, 'f', 4, 64))
		}
		p.gain = float64(amplitude) / 100
	}
	if ex.split && !ex.ssml {
		p.sentences = gwtext.Spoken(text, maxSentenceRunes)
	} else {
		p.sentences = []string{strings.TrimSpace(text)}
	}
	return p, nil
}

// isLatinOrDigit reports whether flite can say r: its voices read Latin
// letters (accents dropped) and digits and skip everything else.
func isLatinOrDigit(r rune) bool {
	return unicode.In(r, unicode.Latin) || r >= '0' && r <= '9'
}

func rateList() string {
	s := make([]string, len(SampleRates))
	for i, r := range SampleRates {
		s[i] = strconv.Itoa(r)
	}
	return strings.Join(s, ", ") + " Hz"
}

// ttsExtra holds the extra keys TTS understands.
type ttsExtra struct {
	split       bool // split_sentences, default true
	wordGapMs   int  // word_gap_ms (espeak-ng)
	ssml        bool // ssml (espeak-ng)
	punctuation bool // punctuation (espeak-ng)
}

func parseExtra(m map[string]any, eng string) (ttsExtra, error) {
	ex := ttsExtra{split: true}
	keys := "split_sentences"
	if eng == engineEspeak {
		keys = "split_sentences, word_gap_ms, ssml, punctuation"
	}
	var err error
	for k, val := range m {
		field := "extra." + k
		switch {
		case k == "split_sentences":
			ex.split, err = boolValue(field, val)
		case k == "word_gap_ms" && eng == engineEspeak:
			ex.wordGapMs, err = intValue(field, val, 0, WordGapMaxMs, "milliseconds of extra pause between words")
		case k == "ssml" && eng == engineEspeak:
			ex.ssml, err = boolValue(field, val)
		case k == "punctuation" && eng == engineEspeak:
			ex.punctuation, err = boolValue(field, val)
		default:
			return ex, &engine.InputError{Field: field, Rule: fmt.Sprintf("unknown key for %s voices; accepted: %s", eng, keys)}
		}
		if err != nil {
			return ex, err
		}
	}
	return ex, nil
}

func boolValue(field string, v any) (bool, error) {
	b, ok := v.(bool)
	if !ok {
		return false, &engine.InputError{Field: field, Rule: "must be true or false"}
	}
	return b, nil
}

func intValue(field string, v any, lo, hi int, unit string) (int, error) {
	var f float64
	switch n := v.(type) {
	case float64:
		f = n
	case int:
		f = float64(n)
	case int64:
		f = float64(n)
	default:
		return 0, &engine.InputError{Field: field, Rule: fmt.Sprintf("must be an integer in %d..%d (%s)", lo, hi, unit)}
	}
	if f != math.Trunc(f) || f < float64(lo) || f > float64(hi) {
		return 0, &engine.InputError{Field: field, Rule: fmt.Sprintf("%v is not an integer in %d..%d (%s)", v, lo, hi, unit)}
	}
	return int(f), nil
}

// Synthesize speaks req.Text sentence by sentence, writing each fragment of
// audio to sink as the engine produces it.
func (l *Local) Synthesize(ctx context.Context, req api.TTSRequest, sink engine.AudioSink) (engine.Synthesis, error) {
	plan, err := l.planTTS(ctx, req)
	if err != nil {
		return engine.Synthesis{}, err
	}
	res := engine.Synthesis{Format: plan.format, SampleRate: plan.rate}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	var out audioOut
	if plan.format == api.FormatMP3 {
		out, err = startMP3(ctx, l.lame, plan.rate, sink)
		if err != nil {
			return res, err
		}
	} else {
		out = newPCMOut(sink, plan.rate, plan.format == api.FormatWAV)
	}
	var rs *pcm.Resampler
	var resampled []int16
	emit := func(rate int, s []int16) error {
		if rs == nil {
			rs = pcm.NewResampler(rate, plan.rate)
		} else if rate != rs.InRate() {
			return fmt.Errorf("%s changed its sample rate from %d to %d Hz", plan.voice.engine, rs.InRate(), rate)
		}
		pcm.Scale(s, plan.gain)
		resampled = rs.Write(resampled[:0], s)
		return out.write(resampled)
	}
	if plan.voice.engine == engineFestival {
		err = l.speakFestival(ctx, plan, emit)
	} else {
		for i, sentence := range plan.sentences {
			if err = l.speakInTurn(ctx, plan, sentence, emit); err != nil {
				err = fmt.Errorf("sentence %d of %d: %w", i+1, len(plan.sentences), err)
				break
			}
		}
	}
	if err == nil && rs != nil {
		err = out.write(rs.Flush(resampled[:0]))
	}
	if ctxErr := ctx.Err(); ctxErr != nil && err != nil {
		err = ctxErr
	}
	if ferr := out.finish(err != nil); err == nil {
		err = ferr
	}
	if rs != nil {
		res.DurationMs = int((rs.Produced()*1000 + int64(plan.rate)/2) / int64(plan.rate))
	}
	return res, err
}

// speakInTurn speaks one sentence in a turn of the CPU that the gateway
// shares among its classes of work (engine.Turn): many streams speak a
// sentence each in turn, not all at once against the searches. The
// sentence's audio is held until the turn ends and only then sent, so
// that a client slow to read holds no turn. (Festival speaks a whole
// text in one of its warm processes, which bound its CPU themselves.)
func (l *Local) speakInTurn(ctx context.Context, plan *ttsPlan, sentence string, emit func(rate int, s []int16) error) error {
	release, err := engine.Turn(ctx)
	if err != nil {
		return err
	}
	type piece struct {
		rate int
		s    []int16
	}
	var held []piece
	err = l.speak(ctx, plan, sentence, func(rate int, s []int16) error {
		held = append(held, piece{rate, slices.Clone(s)})
		return nil
	})
	release()
	for _, p := range held {
		if err := emit(p.rate, p.s); err != nil {
			return err
		}
	}
	return err
}

// audioOut encodes resampled samples into the requested format and writes
// them to the sink.
type audioOut interface {
	write(s []int16) error
	// finish ends the stream; failed says synthesis already failed.
	finish(failed bool) error
}

// pcmOut writes raw s16le samples, after a WAV header when wav is set.
type pcmOut struct {
	sink    engine.AudioSink
	wav     bool   // a WAV stream: header first, sizes fixed at the end
	header  []byte // pending WAV header, nil once written or for pcm
	start   int    // length of a Bytes() sink before the header
	samples int64
	rate    int
	buf     []byte
}

// bytesSink is a sink that holds all it received, such as *bytes.Buffer
// in the REST endpoint. For it, the streamed WAV header's sizes are
// fixed once the length is known.
type bytesSink interface{ Bytes() []byte }

func newPCMOut(sink engine.AudioSink, rate int, asWAV bool) *pcmOut {
	o := &pcmOut{sink: sink, rate: rate, wav: asWAV}
	if asWAV {
		o.header = wav.Header(rate, wav.StreamSize)
		if b, ok := sink.(bytesSink); ok {
			o.start = len(b.Bytes())
		}
	}
	return o
}

func (o *pcmOut) write(s []int16) error {
	if len(s) == 0 {
		return nil
	}
	// The header travels with the first samples, so the first fragment
	// already holds audio.
	o.buf = append(o.buf[:0], o.header...)
	o.header = nil
	o.buf = pcm.AppendS16(o.buf, s)
	o.samples += int64(len(s))
	_, err := o.sink.Write(o.buf)
	return err
}

func (o *pcmOut) finish(failed bool) error {
	if o.header != nil && !failed { // no audio at all: still a valid, empty WAV
		o.header = nil
		_, err := o.sink.Write(wav.Header(o.rate, 0))
		return err
	}
	if b, ok := o.sink.(bytesSink); ok && !failed && o.wav {
		// A sink that keeps what it received (REST) gets the real sizes
		// in place of the streamed placeholder.
		all := b.Bytes()
		return wav.FixBytes(all[min(o.start, len(all)):])
	}
	return nil
}

// mp3Out pipes samples through lame and writes its output as it comes.
type mp3Out struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	done   chan struct{}
	err    error // of the sink or of reading lame's output
	stderr *pcm.CappedBuffer
	buf    []byte
}

func startMP3(ctx context.Context, lame string, rate int, sink engine.AudioSink) (*mp3Out, error) {
	khz := strconv.FormatFloat(float64(rate)/1000, 'f', -1, 64)
	// -r: raw input; --resample: keep the rate (lame would pick its own);
	// -t: no Xing/LAME tag, which needs a seekable output; --flush: write
	// each frame as soon as it is encoded.
	cmd := exec.CommandContext(ctx, lame, "--quiet", "-r", "-s", khz, "--bitwidth", "16", "--signed", "--little-endian",
		"-m", "m", "--resample", khz, "-t", "--flush", "-", "-")
	o := &mp3Out{cmd: cmd, done: make(chan struct{}), stderr: &pcm.CappedBuffer{}}
	cmd.Stderr = o.stderr
	var err error
	if o.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("lame: %w", err)
	}
	go func() {
		defer close(o.done)
		buf := make([]byte, 16384)
		for {
			n, err := stdout.Read(buf)
			if n > 0 && o.err == nil {
				if _, werr := sink.Write(buf[:n]); werr != nil {
					o.err = werr
					o.stdin.Close()
				}
			}
			if err != nil {
				if err != io.EOF && o.err == nil {
					o.err = err
				}
				return
			}
		}
	}()
	return o, nil
}

func (o *mp3Out) write(s []int16) error {
	if len(s) == 0 {
		return nil
	}
	o.buf = pcm.AppendS16(o.buf[:0], s)
	if _, err := o.stdin.Write(o.buf); err != nil {
		<-o.done
		if o.err != nil {
			return o.err
		}
		return fmt.Errorf("lame: %v %s", err, strings.TrimSpace(o.stderr.String()))
	}
	return nil
}

func (o *mp3Out) finish(failed bool) error {
	o.stdin.Close() // lame encodes what it has, so audio already made is kept
	<-o.done
	werr := o.cmd.Wait()
	if o.err != nil {
		return o.err
	}
	if werr != nil && !failed {
		return fmt.Errorf("lame: %v %s", werr, strings.TrimSpace(o.stderr.String()))
	}
	return nil
}
