package voice

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"hark/api"
	"hark/audio/pcm"
	"hark/audio/wav"
	"hark/gateway/engine"
	"hark/gateway/voice/sphinx"
)

// Bounds of extra.partial_interval_ms for STT.
const PartialIntervalMinMs, PartialIntervalMaxMs = 100, 5000

// Long audio is recognised as a series of utterances, each with its own
// final result: an utterance ends at the first pause after
// utteranceSoftMax, and at utteranceHardMax in any case, which keeps the
// decoder's search memory bounded. Local.uttSoft and uttHard hold them,
// so that a test can shorten them on its own provider.
const (
	utteranceSoftMax int64 = 20 * sphinx.SampleRate
	utteranceHardMax int64 = 30 * sphinx.SampleRate
)

// Audio container formats Recognize detects.
const (
	audioWAV  = "wav"
	audioMP3  = "mp3"
	audioOpus = "ogg-opus"
	audioPCM  = "pcm"
)

type sttOptions struct {
	partialSamples int // 16 kHz samples between partial results
	maxSamples     int64
	uttSoft        int64 // utterance length after which a pause ends it
	uttHard        int64 // utterance length that ends it regardless
}

func (l *Local) planSTT(cfg api.STTRequest) (sttOptions, error) {
	o := sttOptions{
		partialSamples: int(l.cfg.PartialInterval.Milliseconds()) * sphinx.SampleRate / 1000,
		maxSamples:     int64(l.cfg.MaxAudio.Seconds() * sphinx.SampleRate),
		uttSoft:        l.uttSoft,
		uttHard:        l.uttHard,
	}
	// Any English tag is heard with the US model; other languages have
	// no model here.
	if lang := strings.ToLower(strings.ReplaceAll(cfg.Language, "_", "-")); lang != "" && lang != "en" && !strings.HasPrefix(lang, "en-") {
		return o, &engine.InputError{Field: "language", Rule: fmt.Sprintf("%q is not supported; the local recogniser (pocketsphinx) knows only English, with its en-us model (send en, en-us or nothing)", cfg.Language)}
	}
	if cfg.SampleRate != 0 && (cfg.SampleRate < pcm.MinRate || cfg.SampleRate > pcm.MaxRate) {
		return o, rangeError("sample_rate", cfg.SampleRate, pcm.MinRate, pcm.MaxRate, "Hz of raw pcm input")
	}
	for k, v := range cfg.Extra {
		if k != "partial_interval_ms" {
			return o, &engine.InputError{Field: "extra." + k, Rule: "unknown key; accepted: partial_interval_ms"}
		}
		ms, err := intValue("extra."+k, v, PartialIntervalMinMs, PartialIntervalMaxMs, "milliseconds of audio between partial results")
		if err != nil {
			return o, err
		}
		o.partialSamples = ms * sphinx.SampleRate / 1000
	}
	return o, nil
}

func badAudio(format string, args ...any) error {
	return &engine.InputError{Field: "audio_data", Rule: fmt.Sprintf(format, args...)}
}

// detectAudio names the container of the stream from its first bytes,
// peeking no more than it needs so a live stream is not held up.
func detectAudio(br *bufio.Reader, sampleRate int) (string, error) {
	head, err := br.Peek(4)
	if len(head) == 0 {
		if err != nil && err != io.EOF {
			return "", err
		}
		return "", badAudio("no audio received")
	}
	switch {
	case bytes.HasPrefix(head, []byte("RIFF")):
		return audioWAV, nil
	case bytes.HasPrefix(head, []byte("OggS")):
		// The first packet of the first page names the codec. Checking
		// exactly there refuses garbage at once; opusdec would read a
		// live stream to its end looking for a page.
		page, _ := br.Peek(27)
		if len(page) == 27 {
			body := 27 + int(page[26]) // after the segment table
			page, _ = br.Peek(body + 8)
			switch first := page[min(body, len(page)):]; {
			case bytes.HasPrefix(first, []byte("OpusHead")):
				return audioOpus, nil
			case bytes.HasPrefix(first, []byte("\x01vorbis")):
				return "", badAudio("Ogg Vorbis is not supported; send Ogg Opus, wav, mp3 or raw pcm")
			}
		}
		return "", badAudio("Ogg stream whose first packet is not an Opus header; only Ogg Opus is supported")
	case bytes.HasPrefix(head, []byte("ID3")):
		return audioMP3, nil
	case bytes.HasPrefix(head, []byte("fLaC")):
		return "", badAudio("FLAC is not supported; send wav, mp3, Ogg Opus or raw pcm")
	}
	if n := mp3FrameLen(head); n > 0 {
		// Raw samples can look like a frame sync; a second frame right
		// after the first settles it.
		b, _ := br.Peek(n + 4)
		if len(b) >= n+4 && mp3FrameLen(b[n:]) > 0 {
			return audioMP3, nil
		}
	}
	if sampleRate > 0 {
		return audioPCM, nil
	}
	return "", badAudio("format not recognised: wav, mp3 and Ogg Opus are detected from their headers; raw pcm (s16le mono) needs sample_rate")
}

// mp3FrameLen returns the length of the MPEG audio layer III frame whose
// header starts b, or 0 when b does not start with one.
func mp3FrameLen(b []byte) int {
	if len(b) < 4 || b[0] != 0xFF || b[1]&0xE0 != 0xE0 {
		return 0
	}
	version := (b[1] >> 3) & 3 // 0: MPEG 2.5, 2: MPEG 2, 3: MPEG 1
	layer := (b[1] >> 1) & 3   // 1: layer III
	bitrateIdx := b[2] >> 4
	rateIdx := (b[2] >> 2) & 3
	padding := int(b[2]>>1) & 1
	if version == 1 || layer != 1 || bitrateIdx == 0 || bitrateIdx == 15 || rateIdx == 3 {
		return 0
	}
	v1 := []int{0, 32, 40, 48, 56, 64, 80, 96, 112, 128, 160, 192, 224, 256, 320}
	v2 := []int{0, 8, 16, 24, 32, 40, 48, 56, 64, 80, 96, 112, 128, 144, 160}
	rates := [4][3]int{{11025, 12000, 8000}, {}, {22050, 24000, 16000}, {44100, 48000, 32000}}
	rate := rates[version][rateIdx]
	if version == 3 {
		return 144*v1[bitrateIdx]*1000/rate + padding
	}
	return 72*v2[bitrateIdx]*1000/rate + padding
}

// audioSource yields mono 16-bit samples of the input at its own rate.
type audioSource struct {
	format wav.Format
	r      io.Reader
	rest   []byte
	buf    []byte
	// wait, for a decoder process, waits for it and reports how it
	// ended; later calls return the same.
	wait func() error
}

func (s *audioSource) read(dst []int16) ([]int16, error) {
	n, err := s.r.Read(s.buf[len(s.rest):])
	chunk := s.buf[:len(s.rest)+n]
	dst, rest := wav.AppendMono(dst, chunk, s.format)
	s.rest = s.buf[:copy(s.buf, rest)]
	return dst, err
}

// openAudio starts decoding br, whose container is kind.
func (l *Local) openAudio(ctx context.Context, br *bufio.Reader, kind string, sampleRate int) (*audioSource, error) {
	src := &audioSource{buf: make([]byte, 16384), wait: func() error { return nil }}
	switch kind {
	case audioPCM:
		src.format = wav.Format{Rate: sampleRate, Channels: 1, Bits: 16}
		src.r = br
		return src, nil
	case audioWAV:
		f, err := wav.ReadHeader(br)
		if err != nil {
			return nil, badAudio("%v", err)
		}
		src.format, src.r = f, br
		if f.SizeKnown() {
			// Chunks after the data (LIST, id3) are not audio.
			src.r = io.LimitReader(br, int64(f.DataBytes))
		}
		return src, nil
	case audioMP3:
		// go-mp3, in process: s16le stereo at the stream's rate.
		stereo, rate, err := pcm.OpenMP3(br)
		if err != nil {
			return nil, badAudio("mp3 audio could not be decoded (%v)", strings.TrimPrefix(err.Error(), "audio: mp3: "))
		}
		src.format, src.r = wav.Format{Rate: rate, Channels: 2, Bits: 16}, badFrames{stereo}
		return src, nil
	}
	path, args := l.opusdec, []string{"--quiet", "--force-wav", "--rate", "16000", "-", "-"}
	if path == "" {
		return nil, fmt.Errorf("decoding %s needs opusdec (opus-tools), which is not installed", kind)
	}
	cmd := exec.CommandContext(ctx, path, args...)
	var stderr pcm.CappedBuffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	copyErr := make(chan error, 1)
	go func() {
		_, err := io.Copy(stdin, br)
		stdin.Close()
		copyErr <- err
	}()
	src.wait = sync.OnceValue(func() error {
		io.Copy(io.Discard, stdout)
		werr := cmd.Wait()
		cerr := <-copyErr
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if werr != nil {
			return badAudio("%s audio could not be decoded (%s: %s)", kind, filepath.Base(path), firstLine(stderr.String(), werr))
		}
		if cerr != nil && !errors.Is(cerr, io.ErrClosedPipe) {
			return cerr
		}
		return nil
	})
	f, err := wav.ReadHeader(stdout)
	if err != nil {
		cmd.Cancel()
		if werr := src.wait(); werr != nil {
			return nil, werr
		}
		return nil, badAudio("%s audio could not be decoded (%s produced no audio)", kind, filepath.Base(path))
	}
	src.format, src.r = f, stdout
	return src, nil
}

// badFrames makes a frame go-mp3 cannot decode the caller's bad audio
// (HTTP 400), as a decoder process that fails is; the end of the stream,
// even mid-frame, ends the audio.
type badFrames struct{ r io.Reader }

func (b badFrames) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		err = badAudio("mp3 audio could not be decoded (%s)", strings.TrimPrefix(err.Error(), "audio: mp3: "))
	}
	return n, err
}

func firstLine(s string, fallback error) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return fallback.Error()
	}
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// yieldAfter is how long a recognition whose audio has paused keeps its
// decoder while another recognition waits for one: it then ends its
// utterance (sending that utterance's final result), gives the decoder
// back, and takes one again when audio comes. A client sending slowly
// thus never blocks one sending at real-time pace.
const yieldAfter = 200 * time.Millisecond

// midUtterancePause is how long audio may pause in the middle of an
// utterance (the decoder still hears speech) before the recognition
// gives its decoder to a waiting one anyway: a client's short pause
// keeps the utterance whole; a stream that stalls does not keep the
// decoder from others.
const midUtterancePause = time.Second

// samplesRead is one read of the audio source.
type samplesRead struct {
	s   []int16
	err error
}

// Recognize decodes the audio of r as it arrives, feeds it to a warm
// pocketsphinx decoder at 16 kHz and emits partial results while audio
// arrives and one final result at the end. It holds a decoder only while
// there is audio to decode, or while no other recognition waits.
func (l *Local) Recognize(ctx context.Context, cfg api.STTRequest, r io.Reader, emit func(engine.Transcript) error) (err error) {
	opts, err := l.planSTT(cfg)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	br := bufio.NewReaderSize(r, 64<<10)
	kind, err := detectAudio(br, cfg.SampleRate)
	if err != nil {
		return err
	}
	src, err := l.openAudio(ctx, br, kind, cfg.SampleRate)
	if err != nil {
		return err
	}
	reads := make(chan samplesRead)
	go func() { // ends when the source ends or fails, or ctx ends
		for {
			s, err := src.read(nil)
			select {
			case reads <- samplesRead{s, err}:
			case <-ctx.Done():
				return
			}
			if err != nil {
				return
			}
		}
	}()
	defer func() {
		cancel()
		if werr := src.wait(); err == nil && werr != nil && !errors.Is(werr, context.Canceled) {
			err = werr
		}
	}()
	rec := recognition{emit: emit, opts: opts, rs: pcm.NewResampler(src.format.Rate, sphinx.SampleRate)}
	broken := true // until the utterance ends cleanly or is abandoned
	defer func() {
		if p := recover(); p != nil {
			err, broken = fmt.Errorf("speech recognition failed: %v", p), true
		}
		if rec.dec != nil {
			l.pool.put(rec.dec, broken)
		}
	}()
	// take gets a decoder for audio that has come.
	take := func() error {
		dec, err := l.pool.get(ctx, func(place int) error { return emit(engine.Transcript{Queued: place}) })
		if err != nil {
			return err
		}
		rec.dec = dec
		return dec.StartUtt()
	}
	tick := time.NewTicker(yieldAfter)
	defer tick.Stop()
	heard := false // audio came since the last tick
	var lastAudio time.Time
	for {
		var rd samplesRead
		if rec.dec == nil {
			select {
			case rd = <-reads:
			case <-ctx.Done():
				broken = false
				return ctx.Err()
			}
		} else {
			select {
			case rd = <-reads:
			case <-tick.C:
				// Audio has paused while another recognition waits: give the
				// decoder back between utterances, or mid-utterance only once
				// the pause is long (a client's short pause must not split
				// what was said).
				if !heard && l.pool.waiting.Load() > 0 && (!rec.dec.InSpeech() || time.Since(lastAudio) >= midUtterancePause) {
					if err := rec.inTurn(ctx, rec.yield); err != nil {
						broken = !isInputOrEmit(err)
						return err
					}
					l.pool.put(rec.dec, false)
					rec.dec = nil
				}
				heard = false
				continue
			case <-ctx.Done():
				broken = false
				return ctx.Err()
			}
		}
		heard = true
		if len(rd.s) > 0 {
			lastAudio = time.Now()
		}
		if rec.dec == nil && len(rd.s) > 0 {
			if err := take(); err != nil {
				broken = false
				return err
			}
		}
		if rec.dec != nil {
			if err := rec.inTurn(ctx, func() error { return rec.feed(rd.s, false) }); err != nil {
				broken = !isInputOrEmit(err)
				return err
			}
		}
		if rd.err == io.EOF || rd.err == io.ErrUnexpectedEOF {
			break
		}
		if rd.err != nil {
			broken = false
			return rd.err
		}
		if err := ctx.Err(); err != nil {
			broken = false
			return err
		}
	}
	// Audio ended: a decoder process must have ended well for the audio
	// to be whole.
	if werr := src.wait(); werr != nil {
		broken = false
		if rec.samples == 0 || rec.dec == nil {
			return werr
		}
		if ferr := rec.inTurn(ctx, rec.final); ferr != nil {
			return ferr
		}
		return werr
	}
	if rec.dec == nil {
		// The last utterance ended when the decoder was given back; what
		// remains is the resampler's few samples of tail.
		broken = false
		if rec.samples == 0 {
			return badAudio("contains no audio samples")
		}
		if rec.finals == 0 {
			rec.finals++
			if err := emit(engine.Transcript{Final: true, DurationMs: rec.ms()}); err != nil {
				return emitError{err}
			}
		}
		return nil
	}
	if err := rec.inTurn(ctx, func() error { return rec.feed(nil, true) }); err != nil {
		broken = !isInputOrEmit(err)
		return err
	}
	if rec.samples == 0 {
		broken = false
		return badAudio("contains no audio samples")
	}
	broken = false
	return rec.inTurn(ctx, rec.final)
}

// inTurn decodes (f) in a turn of the CPU that the gateway shares among
// its classes of work (engine.Turn). What f emits is held until the turn
// ends and only then sent, so that a client slow to read holds no turn.
func (r *recognition) inTurn(ctx context.Context, f func() error) error {
	release, err := engine.Turn(ctx)
	if err != nil {
		return err
	}
	emit := r.emit
	var held []engine.Transcript
	r.emit = func(t engine.Transcript) error {
		held = append(held, t)
		return nil
	}
	err = f()
	r.emit = emit
	release()
	for _, t := range held {
		if eerr := emit(t); eerr != nil {
			return emitError{eerr}
		}
	}
	return err
}

// recognition is the state of one utterance.
type recognition struct {
	dec         *sphinx.Decoder
	emit        func(engine.Transcript) error
	opts        sttOptions
	rs          *pcm.Resampler
	pcm         []int16
	samples     int64 // 16 kHz samples fed
	uttStart    int64 // samples at the start of the current utterance
	finals      int   // final results emitted
	lastPartial int64 // samples at the last partial check
	hyp         string
}

func isInputOrEmit(err error) bool {
	var ie *engine.InputError
	return errors.As(err, &ie) || errors.Is(err, errEmit)
}

var errEmit = errors.New("emit")

type emitError struct{ err error }

func (e emitError) Error() string        { return e.err.Error() }
func (e emitError) Unwrap() error        { return e.err }
func (e emitError) Is(target error) bool { return target == errEmit }

func (r *recognition) feed(in []int16, flush bool) error {
	r.pcm = r.rs.Write(r.pcm[:0], in)
	if flush {
		r.pcm = r.rs.Flush(r.pcm)
	}
	for len(r.pcm) > 0 {
		step := min(len(r.pcm), r.opts.partialSamples-int(r.samples-r.lastPartial))
		step = max(step, 1)
		if r.samples+int64(step) > r.opts.maxSamples {
			// Hear the audio up to the limit, then end with its result.
			if room := int(r.opts.maxSamples - r.samples); room > 0 {
				if err := r.dec.Process(r.pcm[:room]); err != nil {
					return err
				}
				r.samples += int64(room)
			}
			if err := r.final(); err != nil {
				return err
			}
			return badAudio("longer than the limit of %d seconds", r.opts.maxSamples/sphinx.SampleRate)
		}
		if err := r.dec.Process(r.pcm[:step]); err != nil {
			return err
		}
		r.samples += int64(step)
		r.pcm = r.pcm[step:]
		if utt := r.samples - r.uttStart; utt >= r.opts.uttHard || utt >= r.opts.uttSoft && !r.dec.InSpeech() {
			if err := r.endUtterance(true); err != nil {
				return err
			}
			continue
		}
		if r.samples-r.lastPartial >= int64(r.opts.partialSamples) {
			r.lastPartial = r.samples
			hyp, err := r.dec.Hyp()
			if err != nil {
				return err
			}
			if hyp != "" && hyp != r.hyp {
				r.hyp = hyp
				if err := r.emit(engine.Transcript{Text: hyp, Partial: true, DurationMs: r.ms()}); err != nil {
					return emitError{err}
				}
			}
		}
	}
	return nil
}

func (r *recognition) ms() int {
	return int((r.samples*1000 + sphinx.SampleRate/2) / sphinx.SampleRate)
}

// yield ends the current utterance before its decoder is given back,
// sending its final result if it heard words.
func (r *recognition) yield() error {
	text, conf, err := r.dec.EndUtt()
	if err != nil {
		return err
	}
	if text != "" {
		r.finals++
		if err := r.emit(engine.Transcript{Text: text, Confidence: conf, Final: true, DurationMs: r.ms()}); err != nil {
			return emitError{err}
		}
	}
	r.uttStart, r.hyp = r.samples, ""
	return nil
}

// final ends the last utterance with its final result. A silent tail
// after earlier results adds no empty final; silent audio gets one.
func (r *recognition) final() error {
	return r.endUtterance(false)
}

// endUtterance emits the final result of the current utterance and, when
// more audio follows, starts the next one.
func (r *recognition) endUtterance(more bool) error {
	text, conf, err := r.dec.EndUtt()
	if err != nil {
		return err
	}
	if text != "" || (!more && r.finals == 0) {
		r.finals++
		if err := r.emit(engine.Transcript{Text: text, Confidence: conf, Final: true, DurationMs: r.ms()}); err != nil {
			return emitError{err}
		}
	}
	r.uttStart, r.hyp = r.samples, ""
	if more {
		return r.dec.StartUtt()
	}
	return nil
}
