package voices

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
	"hark/deck"
	"hark/ui/common"
)

// job identifies the job a message belongs to, so that the messages of a
// stopped or replaced job are recognised and only drained: its number
// among the pane's calls, and the stream its messages come through.
type job struct {
	id int
	r  *common.Stream
}

// jobMsg is a message of a job: every one embeds job.
type jobMsg interface{ jobOf() job }

func (j job) jobOf() job { return j }

// clip is a piece of synthesized audio, whole.
type clip struct {
	data   []byte
	format string
	rate   int
	voice  string
	text   string
}

// Messages of the jobs.
type (
	voicesMsg struct {
		provider string
		voices   []api.Voice
		err      error
		// missing are the other enabled providers whose voices could
		// not be listed.
		missing []string
	}
	// ttsInputsMsg: the provider's TTS inputs, whose bounds the Speak
	// controls take (err when the gateway serves none).
	ttsInputsMsg struct {
		provider string
		inputs   *api.TTSInputs
		err      error
	}
	// ttsOpenedMsg: the playback is open, audio may follow.
	ttsOpenedMsg struct {
		job
		pb        *audio.Playback
		outKind   string
		outDesc   string
		outReason string // why the file sink, when it is (audio.Reason*)
		fromMemo  bool   // preview played from the cache
	}
	// ttsChunkMsg: audio arrived; first is the time from request to the
	// first audio, received the bytes so far.
	ttsChunkMsg struct {
		job
		first    time.Duration
		received int64
	}
	ttsDoneMsg struct {
		job
		clip    *clip // what arrived, even when err is set
		err     error
		savedTo string
		stats   audio.Stats
		levels  []float64 // the last meter reading: a short clip may end before the first
		stopped bool
	}
	meterMsg struct {
		job
		stats  audio.Stats
		levels []float64
		level  float64
		pos    time.Duration
	}
	savedMsg struct {
		path string
		err  error
	}
	sttFrameMsg struct {
		job
		frame api.STTResultFrame
	}
	// sttRecordingMsg: seconds of audio recorded, or sent of a file's
	// total.
	sttRecordingMsg struct {
		job
		seconds, total float64
	}
	sttDoneMsg struct {
		job
		text       string
		confidence float64
		durationMs int
		err        error
	}
	roundTripMsg struct {
		job
		spoken, heard string
		confidence    float64
		ttsTime       time.Duration
		sttTime       time.Duration
		audio         *clip
		err           error
	}
)

const (
	voicesTimeout = 30 * time.Second
	// otherVoicesTimeout bounds the wait for the other providers' voices.
	otherVoicesTimeout = 5 * time.Second
	meterEvery         = 80 * time.Millisecond
	meterBars          = 48
)

func loadVoicesCmd(c *common.Common, provider string) tea.Cmd {
	return func() tea.Msg {
		if c.Client == nil {
			return voicesMsg{provider: provider, err: errors.New("no gateway client")}
		}
		ctx, cancel := context.WithTimeout(context.Background(), voicesTimeout)
		defer cancel()
		vs, err := c.Client.Voices(ctx, provider)
		if err != nil {
			return voicesMsg{provider: provider, err: err}
		}
		// The voices of every other provider the workspace enables join
		// the list, their values qualified by their provider
		// (openai_speech/af_bella); one that fails to list is left out
		// and named.
		// They are asked at once, each for at most otherVoicesTimeout,
		// so that a vendor that is slow or away holds the list back no
		// longer than that.
		pctx, pcancel := context.WithTimeout(ctx, otherVoicesTimeout)
		defer pcancel()
		ps, perr := c.Client.VoiceProviders(pctx)
		var others []string
		for _, ps := range ps {
			if ps.Enabled && ps.Provider != provider {
				others = append(others, ps.Provider)
			}
		}
		lists := make([][]api.Voice, len(others))
		errs := make([]error, len(others))
		var wg sync.WaitGroup
		for i, op := range others {
			wg.Add(1)
			go func() {
				defer wg.Done()
				lists[i], errs[i] = c.Client.Voices(pctx, op)
			}()
		}
		wg.Wait()
		var missing []string
		for i, op := range others {
			if errs[i] != nil {
				missing = append(missing, op)
				continue
			}
			for _, v := range lists[i] {
				v.Value = op + "/" + v.Value
				vs = append(vs, v)
			}
		}
		if perr != nil {
			missing = append(missing, "(the provider list)")
		}
		return voicesMsg{provider: provider, voices: vs, missing: missing}
	}
}

// voiceTarget is the provider and voice code a list value names: a
// value qualified by another provider ("elevenlabs/21m00…") names that
// provider's voice, any other the pane's own provider's.
func voiceTarget(provider, value string) (string, string) {
	if p, code, err := deck.ParseVoiceRef(value); err == nil && p != "" {
		return p, code
	}
	return provider, value
}

// loadTTSInputsCmd asks the gateway for the provider's TTS inputs.
func loadTTSInputsCmd(c *common.Common, provider string) tea.Cmd {
	return func() tea.Msg {
		if c.Client == nil {
			return ttsInputsMsg{provider: provider, err: errors.New("no gateway client")}
		}
		ctx, cancel := context.WithTimeout(context.Background(), voicesTimeout)
		defer cancel()
		in, err := c.Client.TTSInputs(ctx, provider)
		return ttsInputsMsg{provider: provider, inputs: in, err: err}
	}
}

// meterCmd samples a playback's meters once, after a short pause.
func meterCmd(j job, pb *audio.Playback) tea.Cmd {
	return tea.Tick(meterEvery, func(time.Time) tea.Msg {
		return meterMsg{job: j, stats: pb.Stats(), levels: pb.Levels(meterBars), level: pb.Level(), pos: pb.Position()}
	})
}

func stopCmd(pb *audio.Playback) tea.Cmd {
	if pb == nil {
		return nil
	}
	return func() tea.Msg { pb.Stop(); return nil }
}

// ttsJob synthesizes req (by stream or REST) and plays it as it arrives.
// A memo, when set, is played instead of calling the gateway.
type ttsJob struct {
	job
	c      *common.Common
	ctx    context.Context
	req    api.TTSRequest
	stream bool
	memo   *clip
	paused *atomic.Bool // set while the user has paused the playback
}

func (t ttsJob) run() {
	start := time.Now()
	done := ttsDoneMsg{job: t.job}
	defer func() {
		if t.ctx.Err() != nil {
			done.stopped, done.err = true, nil
		}
		t.r.Finish(done)
	}()

	if t.c.Audio == nil {
		done.err = errors.New("audio output: none configured")
		return
	}
	out, err := t.c.Audio()
	if err != nil {
		done.err = fmt.Errorf("audio output: %w", err)
		return
	}

	var (
		pb   *audio.Playback
		got  int64
		open = func(format string, rate int) error {
			p, err := out.Play(format, rate)
			if err != nil {
				return fmt.Errorf("play %s at %d Hz: %w", format, rate, err)
			}
			pb = p
			t.r.Emit(ttsOpenedMsg{job: t.job, pb: p, outKind: out.Kind(), outDesc: out.Describe(), outReason: out.Reason(), fromMemo: t.memo != nil})
			return nil
		}
		write = func(chunk []byte) {
			if len(chunk) == 0 {
				return
			}
			first := got == 0
			got += int64(len(chunk))
			_, _ = pb.Write(chunk) // a failed playback reports through Err below
			m := ttsChunkMsg{job: t.job, received: got}
			if first {
				m.first = time.Since(start)
				t.r.Emit(m)
				return
			}
			t.r.Progress(m)
		}
	)

	switch {
	case t.memo != nil:
		done.clip = t.memo
		if done.err = open(t.memo.format, t.memo.rate); done.err != nil {
			return
		}
		write(t.memo.data)
	case t.stream:
		format, rate := playFormat(t.req)
		done.clip = &clip{format: format, rate: rate, voice: t.req.VoiceCode, text: t.req.Text}
		s, err := t.c.Client.TTSStream(t.ctx, t.req, api.KeepAudio())
		if err != nil {
			done.err = err
			return
		}
		defer s.Close()
		if done.err = open(format, rate); done.err != nil {
			return
		}
		for {
			chunk, err := s.Next()
			if err != nil {
				if !errors.Is(err, io.EOF) {
					done.err = err
				}
				break
			}
			write(chunk)
		}
		done.clip.data = s.Received()
	default:
		a, err := t.c.Client.TTS(t.ctx, t.req)
		if err != nil {
			done.err = err
			return
		}
		done.clip = &clip{data: a.Data, format: a.Format, rate: a.SampleRate, voice: t.req.VoiceCode, text: t.req.Text}
		if done.clip.format == "" {
			done.clip.format, _ = playFormat(t.req)
		}
		if done.err = open(done.clip.format, done.clip.rate); done.err != nil {
			return
		}
		write(a.Data)
	}

	_ = pb.CloseWrite()
	done.err = cmp.Or(done.err, waitPlayback(t.ctx, pb, t.paused))
	if t.ctx.Err() != nil {
		// Stopped by the user: whatever the stream or player said about
		// being cut off is not a failure.
		done.stopped = true
		done.err = nil
	}
	if done.err == nil {
		done.err = pb.Err()
	}
	done.stats = pb.Stats()
	done.levels = pb.Levels(meterBars)
	done.savedTo = pb.SavedTo()
}

// playbackStall is how long a playback may go without playing anything
// before hark gives up on the sound device rather than wait forever.
const playbackStall = 5 * time.Second

// waitPlayback waits for pb to play out, to be stopped through ctx, or to
// stall (its position unchanged for playbackStall while not paused).
func waitPlayback(ctx context.Context, pb *audio.Playback, paused *atomic.Bool) error {
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	last, since := pb.Position(), time.Now()
	for {
		select {
		case <-pb.Done():
			return nil
		case <-ctx.Done():
			pb.Stop()
			select {
			case <-pb.Done():
			case <-time.After(2 * time.Second):
			}
			return nil
		case <-tick.C:
			if pos := pb.Position(); pos != last || paused.Load() {
				last, since = pos, time.Now()
			} else if time.Since(since) > playbackStall {
				pb.Stop()
				return fmt.Errorf("playback: the sound output played nothing for %v; gave up (the audio is kept: w saves it)", playbackStall)
			}
		}
	}
}

// saveCmd writes a clip to path, a new file: pcm as WAV, wav and mp3 as
// they are.
func saveCmd(cl *clip, path string, now time.Time) tea.Cmd {
	return func() tea.Msg {
		path, err := saveClip(cl, path, now)
		return savedMsg{path: path, err: err}
	}
}

// clipName is the file name offered for a clip.
func clipName(cl *clip, now time.Time) string {
	ext := cl.format
	if ext == api.FormatPCM || ext == "" {
		ext = "wav"
	}
	return fmt.Sprintf("hark-tts-%s-%s.%s", fileSafe(cl.voice), now.Format("20060102-150405"), ext)
}

func saveClip(cl *clip, path string, now time.Time) (string, error) {
	if cl == nil || len(cl.data) == 0 {
		return "", errors.New("save: no audio yet")
	}
	var buf bytes.Buffer
	if cl.format == api.FormatPCM || cl.format == "" {
		if err := audio.WriteWAV(&buf, cl.data, cl.rate); err != nil {
			return "", fmt.Errorf("save %s: %w", path, err)
		}
	} else {
		buf.Write(cl.data)
	}
	path, err := common.WriteNew(path, clipName(cl, now), buf.Bytes())
	if err != nil {
		return "", fmt.Errorf("save: %w", err)
	}
	return path, nil
}

func fileSafe(s string) string {
	s = strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '-', r == '.':
			return r
		}
		return '_'
	}, s)
	if s == "" {
		return "voice"
	}
	return s
}
