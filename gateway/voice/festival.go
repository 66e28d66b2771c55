package voice

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"golang.org/x/text/unicode/norm"

	"hark/api"
	"hark/gateway/engine"
)

// Festival runs as a few long-lived processes, each reading Scheme
// commands on stdin and answering on stdout, rather than one process per
// call: starting festival and loading a voice takes 0.3 to 1 s, a
// sentence then takes tens of milliseconds. Not `festival --server`:
// that listens on a TCP port where any local user could send Scheme,
// which can run programs; a pipe reaches only hark.
//
// The protocol is hark's own, defined by festivalPrelude: for each
// sentence festival prints "HARK-WAVE <n>", the utterance as one RIFF
// WAV, then "HARK-DONE <n>", or "HARK-ERR <n>" when it failed. Anything
// else festival prints is kept for an error message.

// festivalHeapCells is festival's Lisp heap. Its default (10 million
// cells) costs 330 MB of resident memory a process; one million is
// 53 MB with the three Debian voices loaded and holds a 400-character
// sentence with room to spare (TestFestivalLongText).
const festivalHeapCells = 1000000

// festivalStartTimeout bounds a festival start: loading the lexicon and
// the prelude takes about 0.3 s on a warm disk, 13 s on a cold one.
const festivalStartTimeout = 60 * time.Second

// festivalPrelude defines the commands hark sends. Utterance does not
// evaluate its arguments, so hark.say builds the call with eval.
const festivalPrelude = `
(define (hark.f0 params f)
  (mapcar (lambda (p)
            (if (or (eq (car p) 'target_f0_mean) (eq (car p) 'target_f0_std))
                (list (car p) (* f (cadr p)))
                p))
          params))
(define (hark.field d k)
  (let ((e (assoc k d))) (if e (cadr e) "-")))
(define (hark.describe v)
  (unwind-protect
    (begin
      (voice.select v)
      (let ((d (cadr (voice.description v)))
            (u (utt.synth (Utterance Text "a"))))
        (format t "HARK-VOICE %s %s %s %s %s %s %s\n" v
                (hark.field d 'language) (hark.field d 'dialect) (hark.field d 'gender)
                (cadr (assoc 'sample_rate (wave.info (utt.wave u))))
                (Parameter.get 'Synth_Method)
                (if (and (assoc 'target_f0_mean int_lr_params)
                         (eq (Parameter.get 'Int_Target_Method) Int_Targets_LR)) "lr" "-"))))
    (format t "HARK-VOICE-ERR %s\n" v)))
(define (hark.list)
  (mapcar hark.describe (voice.list))
  (format t "HARK-LISTED\n")
  (fflush nil))
(define (hark.select v stretch speed f0)
  (unwind-protect
    (begin
      (voice.select v)
      (if (string-equal (Parameter.get 'Synth_Method) "HTS")
          (set! hts_engine_params (append hts_engine_params (list (list "-r" speed))))
          (begin
            (Parameter.set 'Duration_Stretch stretch)
            (if (assoc 'target_f0_mean int_lr_params)
                (set! int_lr_params (hark.f0 int_lr_params f0)))))
      (format t "HARK-SELECTED\n"))
    (format t "HARK-ERR select\n"))
  (fflush nil))
(define (hark.say n text)
  (unwind-protect
    (let ((u (utt.synth (eval (list 'Utterance 'Text text)))))
      (format t "HARK-WAVE %d\n" n)
      (utt.save.wave u "-" 'riff)
      (format t "HARK-DONE %d\n" n))
    (format t "HARK-ERR %d\n" n))
  (fflush nil))
(format t "HARK-READY\n")
(fflush nil)
`

// festivalVoice is what festival says of one of its voices.
type festivalVoice struct {
	name, language, dialect, gender, method string
	rate                                    int
	pitchLR                                 bool // intonation by linear regression: pitch scales its targets
}

// festivalProc is one festival process.
type festivalProc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	out    *bufio.Reader
	stderr *tailBuffer
	exited chan struct{} // closed once the process has been waited for
	err    error         // how it exited, set before exited is closed
	noise  tailBuffer    // what it printed on stdout outside the protocol
}

func startFestival(path string) (*festivalProc, error) {
	cmd := exec.Command(path, "--pipe", "--heap", strconv.Itoa(festivalHeapCells))
	p := &festivalProc{cmd: cmd, stderr: &tailBuffer{}, exited: make(chan struct{})}
	cmd.Stderr = p.stderr
	var err error
	if p.stdin, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("festival: %w", err)
	}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	p.out = bufio.NewReaderSize(stdout, 64<<10)
	ready := make(chan error, 1)
	go func() {
		if _, err := io.WriteString(p.stdin, festivalPrelude); err != nil {
			ready <- err
			return
		}
		ready <- p.expect("HARK-READY")
	}()
	select {
	case err = <-ready:
	case <-time.After(festivalStartTimeout):
		err = fmt.Errorf("not ready after %s", festivalStartTimeout)
	}
	if err != nil {
		p.kill()
		return nil, fmt.Errorf("festival did not start: %w", p.failure(err))
	}
	return p, nil
}

// kill stops the process and waits for it.
func (p *festivalProc) kill() {
	p.cmd.Process.Kill()
	<-p.exited
}

// failure explains err with how the process ended and its last words.
func (p *festivalProc) failure(err error) error {
	select {
	case <-p.exited:
		if p.err != nil {
			err = p.err // "signal: segmentation fault" says more than EOF
		}
	case <-time.After(100 * time.Millisecond): // still running: err stands
	}
	if s := p.stderr.last(); s != "" {
		return fmt.Errorf("%w: %s", err, s)
	}
	if s := p.noise.last(); s != "" {
		return fmt.Errorf("%w: %s", err, s)
	}
	return err
}

// line reads the next protocol line, keeping any other output as noise.
func (p *festivalProc) line() (string, error) {
	for {
		s, err := p.out.ReadString('\n')
		if err != nil {
			if err == io.EOF {
				err = errors.New("festival stopped")
			}
			return "", err
		}
		s = strings.TrimRight(s, "\r\n")
		if strings.HasPrefix(s, "HARK-") {
			return s, nil
		}
		p.noise.Write([]byte(s + "\n"))
	}
}

// expect reads lines until want; a HARK-ERR line is an error.
func (p *festivalProc) expect(want string) error {
	s, err := p.line()
	if err != nil {
		return err
	}
	if s != want {
		return fmt.Errorf("festival said %q, expected %q", s, want)
	}
	return nil
}

// list asks festival for its voices.
func (p *festivalProc) list() ([]festivalVoice, error) {
	if _, err := io.WriteString(p.stdin, "(hark.list)\n"); err != nil {
		return nil, err
	}
	var out []festivalVoice
	for {
		s, err := p.line()
		if err != nil {
			return nil, err
		}
		f := strings.Fields(s)
		switch {
		case s == "HARK-LISTED":
			return out, nil
		case f[0] == "HARK-VOICE" && len(f) == 8:
			rate, _ := strconv.Atoi(f[5])
			if !festivalName(f[1]) || rate <= 0 {
				continue
			}
			out = append(out, festivalVoice{name: f[1], language: f[2], dialect: f[3], gender: f[4],
				rate: rate, method: f[6], pitchLR: f[7] == "lr"})
		case f[0] == "HARK-VOICE-ERR":
			// A voice that cannot load is not offered.
		default:
			return nil, fmt.Errorf("festival said %q while listing voices", s)
		}
	}
}

// festivalName reports whether s can stand as a Scheme symbol in a
// command: festival's voice names are lower-case letters, digits and _.
func festivalName(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return true
}

// festivalSettings are a request's controls in festival's own terms.
// Festival's HTS module (hts_engine 1.07) takes a speed and no pitch, so
// its voices have no pitch control.
type festivalSettings struct {
	stretch float64 // Duration_Stretch of diphone voices: 2 twice as long
	speed   float64 // HTS -r: 2 twice as fast
	f0      float64 // factor on an LR intonation's target mean and spread
}

func festivalControls(speechRate, pitch int) festivalSettings {
	speed := float64(100+speechRate) / 100
	return festivalSettings{stretch: 1 / speed, speed: speed, f0: 1 + float64(pitch)/100}
}

// speak synthesises the sentences in voice, passing each utterance's
// audio to emit as festival finishes it. All commands are written at
// once, so festival goes on to the next sentence while this one is
// relayed; a sentence with nothing festival can say is skipped. It
// returns whether the process is still fit for another request, and the
// error naming the sentence that failed.
func (p *festivalProc) speak(ctx context.Context, voice string, set festivalSettings, sentences []string, emit func(rate int, s []int16) error) (reusable bool, err error) {
	if !festivalName(voice) {
		return true, fmt.Errorf("festival voice %q is not a plain name", voice)
	}
	p.stderr.reset()
	p.noise.reset()
	stop := context.AfterFunc(ctx, func() { p.cmd.Process.Kill() })
	defer stop()
	var cmds bytes.Buffer
	fmt.Fprintf(&cmds, "(hark.select '%s %s %s %s)\n", voice, schemeFloat(set.stretch), schemeFloat(set.speed), schemeFloat(set.f0))
	var said []int // the sentences sent, by their number
	for i, s := range sentences {
		if festivalSpeakable(s) {
			said = append(said, i+1)
			fmt.Fprintf(&cmds, "(hark.say %d %s)\n", i+1, schemeString(s))
		}
	}
	written := make(chan error, 1)
	go func() {
		_, err := p.stdin.Write(cmds.Bytes())
		written <- err
	}()
	fail := func(err error) (bool, error) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		return false, p.failure(err)
	}
	if err := p.expect("HARK-SELECTED"); err != nil {
		return fail(fmt.Errorf("voice %s: %w", voice, err))
	}
	for _, i := range said {
		n := strconv.Itoa(i)
		s, err := p.line()
		if err == nil && s != "HARK-WAVE "+n {
			err = fmt.Errorf("festival said %q", s)
		}
		if err == nil {
			err = p.readWave(emit)
		}
		if err == nil {
			err = p.expect("HARK-DONE " + n)
		}
		if err != nil {
			var sinkErr sinkError
			if errors.As(err, &sinkErr) {
				return false, sinkErr.err // the sink's own error (the client left, say), not festival's
			}
			reusable, err := fail(err)
			if err == ctx.Err() {
				return reusable, err
			}
			return reusable, fmt.Errorf("sentence %d of %d: festival: %w", i, len(sentences), err)
		}
	}
	if err := <-written; err != nil {
		return fail(err)
	}
	return ctx.Err() == nil, ctx.Err()
}

// speakFestival speaks plan's sentences with a warm festival process.
func (l *Local) speakFestival(ctx context.Context, plan *ttsPlan, emit func(rate int, s []int16) error) error {
	if l.festival == nil {
		return errors.New("festival is not installed")
	}
	p, err := l.festival.get(ctx)
	if err != nil {
		return err
	}
	reusable, err := p.speak(ctx, plan.voice.name, plan.festival, plan.sentences, emit)
	l.festival.put(p, reusable)
	return err
}

// sinkError is an error of emit, told apart from festival's own.
type sinkError struct{ err error }

func (e sinkError) Error() string { return e.err.Error() }

// readWave reads one RIFF WAV from the process, exactly as long as its
// RIFF size says, and emits it in pieces so that a long utterance leaves
// in several frames.
func (p *festivalProc) readWave(emit func(rate int, s []int16) error) error {
	head, err := p.out.Peek(8)
	if err != nil {
		return err
	}
	if string(head[:4]) != "RIFF" {
		return fmt.Errorf("festival wrote %q where a WAV should start", head[:4])
	}
	size := int64(binary.LittleEndian.Uint32(head[4:8]))
	r := io.LimitReader(p.out, 8+size)
	err = readEngineWAV(r, func(rate int, s []int16) error {
		if err := emit(rate, s); err != nil {
			return sinkError{err}
		}
		return nil
	})
	if err == nil {
		_, err = io.Copy(io.Discard, r) // chunks after the samples, if any
	}
	return err
}

func schemeFloat(f float64) string { return strconv.FormatFloat(f, 'f', 4, 64) }

// schemeString quotes s as a Scheme string literal: the text can never
// end the literal and become a command.
func schemeString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r < ' ' || r == 0x7f:
			b.WriteByte(' ')
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}

// festivalText is what festival's English voices can read of s: accents
// taken off Latin letters, anything else outside ASCII a space. Festival
// reads bytes; a UTF-8 letter reaches its lexicon as noise, and a
// sentence of nothing it can say crashes its diphone voices.
func festivalText(s string) string {
	var b strings.Builder
	for _, r := range norm.NFD.String(s) {
		switch {
		case unicode.Is(unicode.Mn, r):
		case r < 0x80:
			b.WriteRune(r)
		default:
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// festivalSpeakable reports whether festival has a word to say in s: a
// letter or digit. Without one, its diphone voices crash (segmentation
// fault) rather than say nothing.
func festivalSpeakable(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool {
		return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
	})
}

// tailBuffer keeps the last 2 KiB written to it: a long-lived process's
// latest words, for the request that failed.
type tailBuffer struct {
	mu sync.Mutex
	b  []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if over := len(t.b) - 2048; over > 0 {
		t.b = append(t.b[:0], t.b[over:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) reset() {
	t.mu.Lock()
	t.b = t.b[:0]
	t.mu.Unlock()
}

// last is the last non-empty line written.
func (t *tailBuffer) last() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	lines := strings.Split(strings.TrimSpace(string(t.b)), "\n")
	return strings.TrimSpace(lines[len(lines)-1])
}

// festivalPool keeps festival processes warm: one is started with the
// voice list and kept; more start when requests overlap, up to max, and
// stay. A process that failed or whose request was cancelled mid-way is
// killed, and when none is left another is started in the background.
type festivalPool struct {
	path    string
	max     int
	maxWait time.Duration
	free    chan *festivalProc

	mu     sync.Mutex
	total  int // running or starting
	closed bool
	done   chan struct{}
	starts int          // processes started, for tests
	live   map[int]bool // their PIDs while they run, for tests
}

func newFestivalPool(path string, max int, maxWait time.Duration) *festivalPool {
	return &festivalPool{path: path, max: max, maxWait: maxWait, free: make(chan *festivalProc, max),
		done: make(chan struct{}), live: map[int]bool{}}
}

// start starts a process for the pool, which has counted it in total.
func (f *festivalPool) start() (*festivalProc, error) {
	p, err := startFestival(f.path)
	f.mu.Lock()
	defer f.mu.Unlock()
	if err != nil {
		f.total--
		return nil, err
	}
	pid := p.cmd.Process.Pid
	f.live[pid] = true
	go func() {
		<-p.exited
		f.mu.Lock()
		delete(f.live, pid)
		f.mu.Unlock()
	}()
	return p, nil
}

// pids lists the PIDs of the pool's running processes.
func (f *festivalPool) pids() []int {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]int, 0, len(f.live))
	for pid := range f.live {
		out = append(out, pid)
	}
	slices.Sort(out)
	return out
}

// idle takes an idle process that still runs; one that ended while idle
// (killed, out of memory) is dropped.
func (f *festivalPool) idle() *festivalProc {
	for {
		select {
		case p := <-f.free:
			select {
			case <-p.exited:
				f.mu.Lock()
				f.total--
				f.mu.Unlock()
				continue
			default:
				return p
			}
		default:
			return nil
		}
	}
}

var errFestivalBusy = busyError("festival busy: every festival process is speaking; retry shortly")

// get returns an idle process, starting one when none is idle and the
// pool may grow, else waiting at most maxWait for one.
func (f *festivalPool) get(ctx context.Context) (*festivalProc, error) {
	if p := f.idle(); p != nil {
		return p, nil
	}
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return nil, errPoolClosed
	}
	if f.total < f.max {
		f.total++
		f.starts++
		f.mu.Unlock()
		return f.start()
	}
	f.mu.Unlock()
	t := time.NewTimer(f.maxWait)
	defer t.Stop()
	select {
	case p := <-f.free:
		return p, nil
	case <-f.done:
		return nil, errPoolClosed
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-t.C:
		return nil, errFestivalBusy
	}
}

// put gives a process back; one not fit for reuse is killed, and the
// pool warms a new one if it would otherwise be empty.
func (f *festivalPool) put(p *festivalProc, reusable bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if reusable && !f.closed {
		f.free <- p // never blocks: at most max processes exist
		return
	}
	go p.kill()
	f.total--
	if f.total == 0 && !f.closed {
		f.total++
		f.starts++
		go func() {
			p, err := f.start()
			if err != nil {
				return
			}
			f.mu.Lock()
			defer f.mu.Unlock()
			if f.closed {
				f.total--
				go p.kill()
				return
			}
			f.free <- p
		}()
	}
}

// close ends the idle processes and waits for them; those speaking are
// killed when their request gives them back.
func (f *festivalPool) close() {
	f.mu.Lock()
	if f.closed {
		f.mu.Unlock()
		return
	}
	f.closed = true
	close(f.done)
	var idle []*festivalProc
	for len(f.free) > 0 {
		idle = append(idle, <-f.free)
		f.total--
	}
	f.mu.Unlock()
	for _, p := range idle {
		p.stdin.Close() // festival ends at the end of its input
		select {
		case <-p.exited:
		case <-time.After(time.Second):
			p.kill()
		}
	}
}

// list asks a warm process for festival's voices; the process stays warm
// for the first request.
func (f *festivalPool) list() ([]festivalVoice, error) {
	p, err := f.get(context.Background())
	if err != nil {
		return nil, err
	}
	vs, err := p.list()
	if err != nil {
		err = p.failure(err)
	}
	f.put(p, err == nil)
	if err != nil {
		return nil, fmt.Errorf("festival voices: %w", err)
	}
	return vs, nil
}

// festivalListWait is how long a voice list waits for festival's voices.
const festivalListWait = 2 * time.Second

// festivalListing is festival's voices, listed once in the background.
type festivalListing struct {
	done   chan struct{} // closed when list, byCode and err are set
	list   []api.Voice
	byCode map[string]*voiceInfo
	err    error
}

// festivalVoices starts listing festival's voices, the first time or
// after a listing failed (festival may have been mended since), and
// returns the listing; nil when festival is not installed.
func (l *Local) festivalVoices() *festivalListing {
	if l.festival == nil {
		return nil
	}
	l.catMu.Lock()
	defer l.catMu.Unlock()
	if fl := l.festivalList; fl != nil {
		select {
		case <-fl.done:
			if fl.err == nil {
				return fl
			}
		default:
			return fl
		}
	}
	fl := &festivalListing{done: make(chan struct{}), byCode: map[string]*voiceInfo{}}
	l.festivalList = fl
	go func() {
		defer close(fl.done)
		vs, err := l.festival.list()
		if err != nil {
			fl.err = err
			return
		}
		for _, fv := range vs {
			v := festivalVoiceInfo(fv)
			v.SampleRate = v.rate
			fl.list = append(fl.list, v.Voice)
			fl.byCode[v.Value] = v
		}
	}()
	return fl
}

// festivalVoice finds a festival voice by code, waiting for festival's
// list.
func (l *Local) festivalVoice(ctx context.Context, code string) (*voiceInfo, error) {
	fl := l.festivalVoices()
	if fl == nil {
		return nil, nil
	}
	select {
	case <-fl.done:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if fl.err != nil {
		return nil, fmt.Errorf("festival's voices are missing: %w: %v", engine.ErrUnavailable, fl.err)
	}
	return fl.byCode[code], nil
}
