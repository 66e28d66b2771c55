package voices

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"hark/api"
	"hark/audio"
	"hark/ui/common"
)

// STT audio hark sends itself (decoded files, the microphone) is 16 kHz
// mono s16le, sent in 100 ms frames.
const (
	sttRate  = 16000
	sttFrame = sttRate * 2 / 10
	// sttPace is the pause between frames of a file: four times real time,
	// so partial results can be watched without waiting the file's length.
	sttPace = 25 * time.Millisecond
)

// audioFileTypes are the extensions the file picker offers.
var audioFileTypes = []string{".wav", ".mp3", ".pcm", ".opus", ".ogg"}

// sttJob recognises a file or the microphone, by REST or by stream.
type sttJob struct {
	job
	c        *common.Common
	ctx      context.Context // cancelled to abandon the job
	recCtx   context.Context // cancelled to stop recording and finish
	provider string
	language string
	stream   bool
	path     string // "" means the microphone
}

func (t sttJob) run() {
	done := sttDoneMsg{job: t.job}
	defer func() { t.r.Finish(done) }()
	if t.c.Client == nil {
		done.err = errors.New("no gateway client")
		return
	}
	req := api.STTRequest{Provider: t.provider, Language: t.language}

	src, raw, rate, err := t.source()
	if err != nil {
		done.err = err
		return
	}
	if src != nil {
		defer src.Close()
	}

	if !t.stream {
		data := raw
		if src != nil { // microphone: record until stopped, send as WAV
			pcm, err := t.readAll(src)
			if err != nil {
				done.err = err
				return
			}
			var buf bytes.Buffer
			if err := audio.WriteWAV(&buf, pcm, sttRate); err != nil {
				done.err = err
				return
			}
			data = buf.Bytes()
		}
		req.SampleRate = rate
		res, err := t.c.Client.STT(t.ctx, req, data)
		if err != nil {
			done.err = err
			return
		}
		done.text, done.confidence, done.durationMs = res.Text, res.Confidence, res.DurationMs
		return
	}

	req.SampleRate = rate
	s, err := t.c.Client.STTStream(t.ctx, req)
	if err != nil {
		done.err = err
		return
	}
	defer s.Close()

	sendErr := make(chan error, 1)
	go func() { sendErr <- t.send(s, src, raw, rate) }()

	var finals []string
	var confSum float64
	var confN int
	partial := ""
	for f := range s.Results() {
		t.r.Emit(sttFrameMsg{job: t.job, frame: f})
		if f.Error != "" && done.err == nil {
			done.err = fmt.Errorf("stt stream: %s", f.Error)
		}
		switch {
		case f.IsFinal:
			if txt := strings.TrimSpace(f.Text); txt != "" {
				finals = append(finals, txt)
			}
			if f.Confidence > 0 {
				confSum += f.Confidence
				confN++
			}
			partial = ""
		case f.IsPartial:
			partial = f.Text
		}
	}
	if err := <-sendErr; err != nil && done.err == nil && t.ctx.Err() == nil {
		done.err = err
	}
	if err := s.Err(); err != nil && done.err == nil {
		done.err = err
	}
	if t.ctx.Err() != nil && done.err != nil && errors.Is(done.err, context.Canceled) {
		done.err = nil
	}
	if done.durationMs == 0 && rate > 0 && len(raw) > 0 && t.ctx.Err() == nil {
		// The stream's results carry no duration; the audio's is known.
		done.durationMs = int(pcmSeconds(len(raw), rate) * 1000)
	}
	done.text = strings.Join(finals, " ")
	if done.text == "" {
		done.text = strings.TrimSpace(partial)
	}
	if confN > 0 {
		done.confidence = confSum / float64(confN)
	}
}

// noMicrophone is the screen's error for a microphone that cannot be
// opened; the recording tools' own words (ALSA's) go to the log.
func (t sttJob) noMicrophone(ce *audio.CaptureError) error {
	if t.c != nil {
		t.c.Logf("microphone: %v", ce)
	}
	return fmt.Errorf("%s; choose an audio file instead (o)", ce.Summary())
}

// source opens the audio: a recording (src) or a file's bytes (raw), with
// the sample rate to declare (0: let the provider detect it).
func (t sttJob) source() (src io.ReadCloser, raw []byte, rate int, err error) {
	if t.path == "" {
		rec, err := audio.Record(t.recCtx)
		if err != nil {
			var ce *audio.CaptureError
			if errors.As(err, &ce) {
				return nil, nil, 0, t.noMicrophone(ce)
			}
			return nil, nil, 0, fmt.Errorf("microphone: %w", err)
		}
		return rec, nil, sttRate, nil
	}
	data, err := os.ReadFile(t.path)
	if err != nil {
		return nil, nil, 0, fmt.Errorf("audio file: %w", err)
	}
	if len(data) == 0 {
		return nil, nil, 0, fmt.Errorf("audio file %s: is empty", t.path)
	}
	ext := strings.ToLower(strings.TrimPrefix(filepath.Ext(t.path), "."))
	switch {
	case ext == "pcm":
		return nil, data, sttRate, nil
	case t.stream && (ext == "wav" || ext == "mp3"):
		// Decode here so the stream carries plain frames at a known rate.
		pcm, r, err := audio.DecodeToPCM(ext, data, sttRate)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("audio file %s: %w", filepath.Base(t.path), err)
		}
		return nil, pcm, r, nil
	}
	return nil, data, 0, nil
}

// send writes the audio to the stream in frames, then ends it.
func (t sttJob) send(s *api.STTStream, src io.Reader, raw []byte, rate int) error {
	defer s.CloseSend()
	if src != nil {
		buf := make([]byte, sttFrame)
		var total int64
		for {
			n, err := io.ReadFull(src, buf)
			if n > 0 {
				if _, werr := s.Write(buf[:n]); werr != nil {
					return werr
				}
				total += int64(n)
				t.r.Progress(sttRecordingMsg{job: t.job, seconds: float64(total) / (2 * sttRate)})
			}
			if err != nil || t.recCtx.Err() != nil {
				return nil
			}
		}
	}
	frame := rate * 2 / 10 // 100 ms of s16le mono
	if rate == 0 {
		frame = 4096 // compressed or self-describing: no pace to keep
	}
	for off := 0; off < len(raw); off += frame {
		if t.ctx.Err() != nil {
			return t.ctx.Err()
		}
		end := min(off+frame, len(raw))
		if _, err := s.Write(raw[off:end]); err != nil {
			return err
		}
		if rate > 0 {
			t.r.Progress(sttRecordingMsg{job: t.job, seconds: pcmSeconds(end, rate), total: pcmSeconds(len(raw), rate)})
		}
		select {
		case <-time.After(sttPace):
		case <-t.ctx.Done():
			return t.ctx.Err()
		}
	}
	return nil
}

// pcmSeconds is the duration of n bytes of s16le mono at rate.
func pcmSeconds(n, rate int) float64 { return float64(n) / float64(2*rate) }

// readAll records until the recording ends (stop or error).
func (t sttJob) readAll(src io.Reader) ([]byte, error) {
	var pcm bytes.Buffer
	buf := make([]byte, sttFrame)
	for {
		n, err := src.Read(buf)
		pcm.Write(buf[:n])
		if n > 0 {
			t.r.Progress(sttRecordingMsg{job: t.job, seconds: float64(pcm.Len()) / (2 * sttRate)})
		}
		if err != nil || t.recCtx.Err() != nil {
			break
		}
	}
	if t.ctx.Err() != nil {
		return nil, t.ctx.Err()
	}
	if pcm.Len() == 0 {
		return nil, errors.New("microphone: nothing was recorded")
	}
	return pcm.Bytes(), nil
}

// roundTripJob speaks text with a voice, then recognises that audio.
type roundTripJob struct {
	job
	c        *common.Common
	ctx      context.Context
	req      api.TTSRequest
	language string
	// sttProvider hears the take back: the pane's own provider, when
	// another provider's voice spoke it.
	sttProvider string
}

func (t roundTripJob) run() {
	done := roundTripMsg{job: t.job, spoken: t.req.Text}
	defer func() { t.r.Finish(done) }()
	if t.c.Client == nil {
		done.err = errors.New("no gateway client")
		return
	}
	t.req.Format = api.FormatWAV // self-describing, so STT needs no rate
	start := time.Now()
	a, err := t.c.Client.TTS(t.ctx, t.req)
	done.ttsTime = time.Since(start)
	if err != nil {
		done.err = fmt.Errorf("speak: %w", err)
		return
	}
	done.audio = &clip{data: a.Data, format: a.Format, rate: a.SampleRate, voice: t.req.VoiceCode, text: t.req.Text}
	start = time.Now()
	// Heard back by the pane's own provider, whichever spoke.
	res, err := t.c.Client.STT(t.ctx, api.STTRequest{Provider: cmp.Or(t.sttProvider, t.req.Provider), Language: t.language}, a.Data)
	done.sttTime = time.Since(start)
	if err != nil {
		done.err = fmt.Errorf("listen: %w", err)
		return
	}
	done.heard, done.confidence = res.Text, res.Confidence
}

// wordMatch is the share of the spoken words, in order, that were heard:
// the longest common subsequence of the two word lists over the spoken
// length. Case and punctuation are ignored.
func wordMatch(spoken, heard string) float64 {
	a, b := words(spoken), words(heard)
	if len(a) == 0 {
		return 0
	}
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for i := range a {
		for j := range b {
			if a[i] == b[j] {
				cur[j+1] = prev[j] + 1
			} else {
				cur[j+1] = max(prev[j+1], cur[j])
			}
		}
		prev, cur = cur, prev
	}
	return float64(prev[len(b)]) / float64(len(a))
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '\'' || r > 127)
	})
}
