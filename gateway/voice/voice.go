// Package voice is hark's local voice provider: speech with espeak-ng,
// flite and festival, recognition with pocketsphinx (en-us), behind
// engine.VoiceProvider. It needs no account and no network. It runs the
// engines as child processes (TTS, lame, opusdec; festival kept warm
// between calls) or through cgo
// (pocketsphinx) and must never block on, or panic from, a bad request:
// every field with a range of its own is checked here and reported as
// *engine.InputError. It knows nothing of HTTP or WebSocket framing.
package voice

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os/exec"
	"runtime"
	"sync"
	"sync/atomic"
	"time"

	"hark/api"
	"hark/gateway/engine"
	"hark/gateway/voice/sphinx"
)

// Config locates the engines and sets limits. Zero values are defaults.
type Config struct {
	EspeakPath string // espeak-ng binary; default "espeak-ng" from PATH
	FlitePath  string // flite binary; default "flite" from PATH
	// FestivalPath is the festival binary; default "festival" from PATH.
	FestivalPath string
	// FestivalProcesses is the most festival processes kept warm (about
	// 55 MB each), and so the festival requests that speak at once; more
	// wait up to DecoderWait. Default 2.
	FestivalProcesses int
	LamePath          string // lame binary for mp3 in and out; default "lame" from PATH
	OpusdecPath       string // opusdec binary for Ogg Opus input; default "opusdec" from PATH
	ModelDir          string // pocketsphinx en-us model; default sphinx.DefaultModelDir

	// Decoders is the most pocketsphinx decoders kept (about 90 MB each),
	// and so the number of recognitions that decode at once; more wait.
	// One is kept warm in reserve. Default: the number of cores.
	Decoders int
	// DecoderWait is the longest a recognition waits for a decoder before
	// it fails with engine.ErrUnavailable, unless its context says
	// otherwise (engine.WithQueueWait: the gateway waits a stream's
	// stream_idle_timeout, a REST call's upstream_timeout). A recognition
	// whose audio pauses between utterances gives its decoder to a
	// waiting one (see yieldAfter), so the wait is short unless every
	// decoder is decoding. Default 5 s.
	DecoderWait time.Duration
	// MaxTextRunes bounds the TTS text. Default 100000, the gateway's
	// stream limit; the gateway holds REST text to its own, lower limit.
	MaxTextRunes int
	// MaxAudio bounds the audio of one recognition. Default 60 minutes.
	MaxAudio time.Duration
	// WarmAfter is how long after New the first decoder starts loading
	// in the background, so that a short-lived hark command (which builds
	// the embedded gateway but never listens) does not pay for it; the
	// first recognition starts it at once. Default 1 s; negative loads at
	// once; WarmOnDemand waits for the first recognition.
	WarmAfter time.Duration
	// PartialInterval is how much new audio passes between partial
	// results (sent only when the hypothesis changed). Default 300 ms.
	PartialInterval time.Duration
	// Trace, when set, is told when the voice catalogue has been listed
	// ("voice catalogue listed" or "voice catalogue failed"), for a
	// start-up log. It must be quick.
	Trace func(event string)
}

// Defaults of Config.
const (
	DefaultDecoderWait     = 5 * time.Second
	DefaultMaxTextRunes    = 100000
	DefaultMaxAudio        = 60 * time.Minute
	DefaultPartialInterval = 300 * time.Millisecond
	DefaultWarmAfter       = time.Second
	// WarmOnDemand, as WarmAfter, loads no decoder before a recognition
	// needs one: the embedded gateway of an idle TUI then stays at a tenth
	// of the memory (a decoder is about 90 MB), and the first recognition
	// loads it while its audio is still arriving.
	WarmOnDemand time.Duration = math.MaxInt64
)

// Local is the local voice provider; it implements engine.VoiceProvider.
type Local struct {
	cfg    Config
	espeak string // resolved paths; "" when not installed
	flite  string
	// festival keeps festival's processes; nil when it is not installed.
	festival *festivalPool
	lame     string
	opusdec  string
	pool     *decoderPool
	// uttSoft and uttHard are utteranceSoftMax and utteranceHardMax,
	// in samples; tests shorten them.
	uttSoft, uttHard int64

	catMu sync.Mutex
	// voices is listed on first use (see catalog): asking espeak-ng and
	// flite takes three processes, which a hark command that speaks no
	// word should not start.
	voices *voiceCatalog
	// festivalList is festival's voices, listed on first use too.
	festivalList *festivalListing
}

var _ engine.VoiceProvider = (*Local)(nil)

// New finds the engines and sets up the decoder pool (warmed per
// Config.WarmAfter); it starts no process. It fails only when neither TTS
// engine is installed. The voices are listed on first use (Voices,
// Synthesize), which reports an engine that cannot list them; a missing
// recogniser or encoder makes just those requests fail, with an error
// that says what to install.
func New(cfg Config) (*Local, error) {
	if cfg.Decoders <= 0 {
		cfg.Decoders = runtime.NumCPU()
	}
	if cfg.DecoderWait <= 0 {
		cfg.DecoderWait = DefaultDecoderWait
	}
	if cfg.MaxTextRunes <= 0 {
		cfg.MaxTextRunes = DefaultMaxTextRunes
	}
	if cfg.MaxAudio <= 0 {
		cfg.MaxAudio = DefaultMaxAudio
	}
	if cfg.PartialInterval <= 0 {
		cfg.PartialInterval = DefaultPartialInterval
	}
	if cfg.WarmAfter == 0 {
		cfg.WarmAfter = DefaultWarmAfter
	}
	if cfg.ModelDir == "" {
		cfg.ModelDir = sphinx.DefaultModelDir
	}
	l := &Local{
		cfg:     cfg,
		espeak:  findTool(cfg.EspeakPath, "espeak-ng"),
		flite:   findTool(cfg.FlitePath, "flite"),
		lame:    findTool(cfg.LamePath, "lame"),
		opusdec: findTool(cfg.OpusdecPath, "opusdec"),
		uttSoft: utteranceSoftMax,
		uttHard: utteranceHardMax,
	}
	if cfg.FestivalProcesses <= 0 {
		cfg.FestivalProcesses = 2
	}
	if fest := findTool(cfg.FestivalPath, "festival"); fest != "" {
		l.festival = newFestivalPool(fest, cfg.FestivalProcesses, cfg.DecoderWait)
	}
	if l.espeak == "" && l.flite == "" && l.festival == nil {
		return nil, errors.New("no voices: neither espeak-ng, flite nor festival is installed")
	}
	l.pool = newDecoderPool(sphinx.ModelIn(cfg.ModelDir), cfg.Decoders, cfg.WarmAfter)
	l.pool.maxWait = cfg.DecoderWait
	return l, nil
}

func findTool(path, name string) string {
	if path == "" {
		path = name
	}
	p, err := exec.LookPath(path)
	if err != nil {
		return ""
	}
	return p
}

// Close frees the decoders. Recognitions still running finish with their
// decoder, which is then freed.
func (l *Local) Close() error {
	l.pool.close()
	if l.festival != nil {
		l.festival.close()
	}
	return nil
}

// Voices lists espeak-ng's languages (with the variants of English as
// voices of their own), flite's voices and festival's. Festival's come
// when festival has listed them within festivalListWait of the call (a
// festival start: half a second, or many on a cold disk); a list made
// before then lacks them, and the next has them.
func (l *Local) Voices(ctx context.Context) ([]api.Voice, error) {
	fl := l.festivalVoices()
	c, err := l.catalog()
	if err != nil {
		return nil, err
	}
	out := make([]api.Voice, len(c.list))
	copy(out, c.list)
	if fl != nil {
		wait := time.NewTimer(festivalListWait)
		defer wait.Stop()
		select {
		case <-fl.done:
			out = append(out, fl.list...)
		case <-wait.C:
		case <-ctx.Done():
		}
	}
	if len(out) == 0 {
		if fl != nil && fl.err != nil {
			return nil, fmt.Errorf("local voice engine: %w: %v", engine.ErrUnavailable, fl.err)
		}
		return nil, fmt.Errorf("local voice engine: %w: no voices", engine.ErrUnavailable)
	}
	return out, nil
}

// catalog lists the engines' voices the first time it is asked, one
// caller at a time; a failure is returned to that caller and the next
// one tries again (an engine may be installed meanwhile).
func (l *Local) catalog() (*voiceCatalog, error) {
	l.catMu.Lock()
	defer l.catMu.Unlock()
	if l.voices != nil {
		return l.voices, nil
	}
	c, err := loadCatalog(l.espeak, l.flite)
	if l.cfg.Trace != nil {
		if err != nil {
			l.cfg.Trace("voice catalogue failed")
		} else {
			l.cfg.Trace("voice catalogue listed")
		}
	}
	if err != nil {
		return nil, fmt.Errorf("local voice engine: %w: %v", engine.ErrUnavailable, err)
	}
	l.voices = c
	return c, nil
}

// decoderPool keeps loaded pocketsphinx decoders for reuse; loading one
// takes about 0.7 s and 90 MB. It keeps one decoder warm in reserve and
// loads the next in the background whenever the reserve is taken, up to
// max decoders in all, so that a stream never waits for a model load
// unless max streams are already running.
type decoderPool struct {
	model   sphinx.Model
	max     int
	maxWait time.Duration
	free    chan *sphinx.Decoder
	waiting atomic.Int32 // recognitions waiting in get

	mu      sync.Mutex
	closed  bool
	total   int // decoders loaded or loading
	loaded  int // decoders loaded and not freed
	loadErr error
	failed  chan struct{} // closed when a load failed
	done    chan struct{} // closed by close
	warm    *time.Timer
}

func newDecoderPool(m sphinx.Model, max int, warmAfter time.Duration) *decoderPool {
	p := &decoderPool{model: m, max: max, free: make(chan *sphinx.Decoder, max),
		failed: make(chan struct{}), done: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case warmAfter == WarmOnDemand:
	case warmAfter < 0:
		p.growLocked()
	default:
		p.warm = time.AfterFunc(warmAfter, func() {
			p.mu.Lock()
			defer p.mu.Unlock()
			p.growLocked()
		})
	}
	return p
}

// growLocked starts loading a decoder when none is in reserve and the pool
// may grow.
func (p *decoderPool) growLocked() {
	if p.closed || p.loadErr != nil || len(p.free) > 0 || p.total >= p.max {
		return
	}
	p.total++
	go p.load()
}

func (p *decoderPool) load() {
	d, err := sphinx.New(p.model)
	p.mu.Lock()
	defer p.mu.Unlock()
	if err != nil {
		p.total--
		if p.loadErr == nil {
			p.loadErr = err
			close(p.failed)
		}
		return
	}
	if p.closed {
		p.total--
		d.Close()
		return
	}
	p.loaded++
	p.free <- d // never blocks: at most max decoders exist
}

var errPoolClosed = errors.New("voice provider closed")

// maxDecoderQueue bounds the recognitions waiting for a decoder, beyond
// the gateway's own bounds of streams and calls.
const maxDecoderQueue = 1024

// busyError is a recognition refused for want of a decoder: the gateway
// answers it as unavailable (503).
type busyError string

func (e busyError) Error() string        { return string(e) }
func (e busyError) Is(target error) bool { return target == engine.ErrUnavailable }

// taken readies the next decoder in reserve once d has been taken.
func (p *decoderPool) taken(d *sphinx.Decoder) *sphinx.Decoder {
	p.mu.Lock()
	p.growLocked()
	p.mu.Unlock()
	return d
}

// get waits for a free decoder, at most maxWait. When it must wait, it
// first tells queued (when not nil) its place in the queue.
func (p *decoderPool) get(ctx context.Context, queued func(place int) error) (*sphinx.Decoder, error) {
	p.mu.Lock()
	if p.total == 0 {
		p.growLocked() // not warmed yet
	}
	p.mu.Unlock()
	select {
	case d := <-p.free:
		return p.taken(d), nil
	default:
	}
	// Recognitions queue, each for as long as its own deadline allows
	// (engine.QueueWait: a stream's is the silence it is allowed); the
	// gateway's stream and call bounds bound the queue.
	n := p.waiting.Add(1)
	if int(n) > maxDecoderQueue {
		p.waiting.Add(-1)
		return nil, busyError(fmt.Sprintf("speech recognition busy: all %d recognisers decoding and %d recognitions waiting (stt_recognisers); retry shortly", p.max, n-1))
	}
	defer p.waiting.Add(-1)
	if queued != nil {
		if err := queued(int(n)); err != nil {
			return nil, err
		}
	}
	wait := engine.QueueWait(ctx, p.maxWait)
	timeout := time.NewTimer(wait)
	defer timeout.Stop()
	failed := p.failed
	for {
		select {
		case d := <-p.free:
			return p.taken(d), nil
		case <-failed:
			p.mu.Lock()
			loaded, err := p.loaded, p.loadErr
			p.mu.Unlock()
			if loaded == 0 {
				return nil, fmt.Errorf("speech recognition unavailable: %w", err)
			}
			failed = nil // decoders exist: wait for one to come back
		case <-p.done:
			return nil, errPoolClosed
		case <-timeout.C:
			// A decoder that came free as the time ran out is taken: a
			// select with both ready picks either. Loading is read first:
			// a load counts itself loaded and frees its decoder under the
			// lock, so one seen loaded is already in p.free.
			p.mu.Lock()
			loading := p.total > p.loaded
			p.mu.Unlock()
			select {
			case d := <-p.free:
				return p.taken(d), nil
			default:
			}
			if loading {
				// A decoder is still loading (seconds on a loaded
				// machine, the first one on a cold start): waiting for it
				// is not waiting on busy ones. It ends loaded or failed.
				timeout.Reset(wait)
				continue
			}
			return nil, busyError(fmt.Sprintf("speech recognition busy: all %d recognisers stayed busy for %s (stt_recognisers); retry shortly", p.max, wait))
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// put returns a decoder; a broken one is freed and replaced.
func (p *decoderPool) put(d *sphinx.Decoder, broken bool) {
	if !broken {
		d.Reset()
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed || broken {
		d.Close()
		p.total--
		p.loaded--
		p.growLocked()
		return
	}
	p.free <- d // never blocks: at most max decoders exist
}

func (p *decoderPool) close() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return
	}
	p.closed = true
	close(p.done)
	if p.warm != nil {
		p.warm.Stop()
	}
	for {
		select {
		case d := <-p.free:
			d.Close()
			p.total--
			p.loaded--
		default:
			return
		}
	}
}
