package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hark/audio/wav"
	"io"
	"math"
	"strings"

	"github.com/hajimehoshi/go-mp3"
)

// Formats accepted by Play and DecodeToPCM, as named by the gateway's TTS
// request field "format".
const (
	FormatPCM = "pcm"
	FormatWAV = "wav"
	FormatMP3 = "mp3"
)

// Rates outside this range are refused: they are not speech audio and would
// make the resampler produce absurd amounts of data.
const (
	minSampleRate = 4000
	maxSampleRate = 192000
)

// ErrMPEG25 is returned for MP3 streams in MPEG version 2.5 (8, 11.025 and
// 12 kHz), which go-mp3 cannot decode.
var ErrMPEG25 = errors.New("audio: mp3 in MPEG 2.5 (8-12 kHz sample rates) cannot be decoded; request format \"pcm\" or \"wav\", or an mp3 sample_rate of 16000 Hz or more")

func checkRate(field string, rate int) error {
	if rate < minSampleRate || rate > maxSampleRate {
		return fmt.Errorf("audio: %s %d Hz is out of range (must be %d..%d)", field, rate, minSampleRate, maxSampleRate)
	}
	return nil
}

// decoder turns one encoded stream (read from r) into s16le mono samples.
// It calls rate once, before the first samples, with the stream's rate, and
// emit with each block of samples. emit must not keep the slice.
type decoder func(r io.Reader, rate func(int) error, emit func([]int16) error) error

func newDecoder(format string, pcmRate int) (decoder, error) {
	switch strings.ToLower(format) {
	case FormatPCM, "":
		if pcmRate == 0 {
			return nil, errors.New("audio: sample_rate is required for format \"pcm\"")
		}
		if err := checkRate("sample_rate", pcmRate); err != nil {
			return nil, err
		}
		return func(r io.Reader, rate func(int) error, emit func([]int16) error) error {
			if err := rate(pcmRate); err != nil {
				return err
			}
			return decodeS16(r, 1, emit)
		}, nil
	case FormatWAV:
		return decodeWAV, nil
	case FormatMP3:
		return decodeMP3, nil
	}
	return nil, fmt.Errorf("audio: format %q is not supported (must be pcm, wav or mp3)", format)
}

// decodeS16 reads interleaved s16le frames of the given channel count until
// EOF, averaging channels to mono. A trailing partial frame is dropped.
func decodeS16(r io.Reader, channels int, emit func([]int16) error) error {
	frame := 2 * channels
	buf := make([]byte, 16*1024)
	out := make([]int16, 0, len(buf)/2)
	have := 0
	for {
		n, err := r.Read(buf[have:])
		have += n
		usable := have / frame * frame
		if usable > 0 {
			out = out[:0]
			for i := 0; i < usable; i += frame {
				if channels == 1 {
					out = append(out, int16(binary.LittleEndian.Uint16(buf[i:])))
					continue
				}
				sum := 0
				for c := 0; c < channels; c++ {
					sum += int(int16(binary.LittleEndian.Uint16(buf[i+2*c:])))
				}
				out = append(out, int16(sum/channels))
			}
			if e := emit(out); e != nil {
				return e
			}
			have = copy(buf, buf[usable:have])
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// decodeWAV reads a RIFF/WAVE stream (see package wav). It is tolerant of
// streamed files: the RIFF size is ignored, and a data chunk whose size is
// a placeholder is read until the end of input.
func decodeWAV(r io.Reader, rate func(int) error, emit func([]int16) error) error {
	f, err := wav.ReadHeader(r)
	if err != nil {
		return fmt.Errorf("audio: %w", err)
	}
	if err := rate(f.Rate); err != nil {
		return err
	}
	body := f.Samples(r)
	buf := make([]byte, 16*1024)
	var rest []byte
	var out []int16
	for {
		n, err := body.Read(buf[len(rest):])
		out, rest = wav.AppendMono(out[:0], buf[:len(rest)+n], f)
		rest = buf[:copy(buf, rest)]
		if len(out) > 0 {
			if e := emit(out); e != nil {
				return e
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// decodeMP3 decodes MPEG-1 and MPEG-2 layer III with go-mp3, which always
// yields s16le stereo; hark averages it to mono.
func decodeMP3(r io.Reader, rate func(int) error, emit func([]int16) error) (err error) {
	defer func() {
		// go-mp3 can panic on corrupt frames; a bad stream must not take
		// hark down with it.
		if v := recover(); v != nil {
			err = fmt.Errorf("audio: mp3: corrupt stream (%v)", v)
		}
	}()
	d, err := mp3.NewDecoder(r)
	if err != nil {
		return mp3Error(err)
	}
	if err := rate(d.SampleRate()); err != nil {
		return err
	}
	if err := decodeS16(d, 2, emit); err != nil {
		return mp3Error(err)
	}
	return nil
}

func mp3Error(err error) error {
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return errors.New("audio: mp3: no complete frame in the stream")
	}
	if strings.Contains(err.Error(), "version 2.5") {
		return ErrMPEG25
	}
	return fmt.Errorf("audio: mp3: %w", err)
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

// resampler converts a mono stream from one rate to another by linear
// interpolation, keeping state across blocks. Linear is enough for speech and
// costs almost nothing; at equal rates samples pass through unchanged.
type resampler struct {
	from, to int
	pos      float64 // position of the next output sample, in input samples, relative to prev
	prev     int16
	primed   bool
	out      []int16
}

func (r *resampler) process(in []int16) []int16 {
	if r.from == r.to {
		return in
	}
	r.out = r.out[:0]
	step := float64(r.from) / float64(r.to)
	for _, s := range in {
		if !r.primed {
			r.prev, r.primed = s, true
			continue
		}
		// Output samples lying between prev (0) and s (1).
		for r.pos < 1 {
			v := float64(r.prev) + (float64(s)-float64(r.prev))*r.pos
			r.out = append(r.out, int16(math.Round(v)))
			r.pos += step
		}
		r.pos--
		r.prev = s
	}
	return r.out
}

// DecodeToPCM decodes a whole buffer of pcm (s16le mono at sampleRate), wav or
// mp3 to s16le mono at the stream's own rate, which it returns. sampleRate is
// only used (and required) for pcm. A truncated stream yields what decoded.
func DecodeToPCM(format string, data []byte, sampleRate int) (pcm []byte, rate int, err error) {
	dec, err := newDecoder(format, sampleRate)
	if err != nil {
		return nil, 0, err
	}
	var out []byte
	err = dec(bytes.NewReader(data), func(r int) error {
		rate = r
		return nil
	}, func(s []int16) error {
		out = appendS16(out, s)
		return nil
	})
	return out, rate, err
}

func appendS16(b []byte, s []int16) []byte {
	for _, v := range s {
		b = append(b, byte(v), byte(uint16(v)>>8))
	}
	return b
}

// WriteWAV writes s16le mono pcm as a complete 16-bit mono WAV file.
func WriteWAV(w io.Writer, pcm []byte, sampleRate int) error {
	if err := checkRate("sample_rate", sampleRate); err != nil {
		return err
	}
	if len(pcm)%2 != 0 {
		return fmt.Errorf("audio: pcm length %d is odd (must be whole s16le samples)", len(pcm))
	}
	if len(pcm) > math.MaxUint32-44 {
		return fmt.Errorf("audio: pcm length %d is too large for a WAV file (max 4 GiB)", len(pcm))
	}
	if _, err := w.Write(wav.Header(sampleRate, uint32(len(pcm)))); err != nil {
		return err
	}
	_, err := w.Write(pcm)
	return err
}

// Resample converts s16le mono pcm from one rate to another (linear
// interpolation, as playback does).
func Resample(pcm []byte, from, to int) []byte {
	in := make([]int16, len(pcm)/2)
	for i := range in {
		in[i] = int16(uint16(pcm[2*i]) | uint16(pcm[2*i+1])<<8)
	}
	r := &resampler{from: from, to: to}
	outS := r.process(in)
	out := make([]byte, 2*len(outS))
	for i, v := range outS {
		out[2*i], out[2*i+1] = byte(v), byte(uint16(v)>>8)
	}
	return out
}
