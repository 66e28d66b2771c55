package pcm

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/hajimehoshi/go-mp3"

	"hark/audio/wav"
)

// ErrMPEG25 is returned for MP3 streams in MPEG version 2.5 (8, 11.025 and
// 12 kHz), which go-mp3 cannot decode.
var ErrMPEG25 = errors.New("audio: mp3 in MPEG 2.5 (8-12 kHz sample rates) cannot be decoded; request format \"pcm\" or \"wav\", or an mp3 sample_rate of 16000 Hz or more")

// CheckRate refuses a rate outside MinRate..MaxRate, naming field.
func CheckRate(field string, rate int) error {
	if rate < MinRate || rate > MaxRate {
		return fmt.Errorf("audio: %s %d Hz is out of range (must be %d..%d)", field, rate, MinRate, MaxRate)
	}
	return nil
}

// Decoder turns one encoded stream (read from r) into s16le mono samples.
// It calls rate once, before the first samples, with the stream's rate,
// and emit with each block of samples. emit must not keep the slice.
type Decoder func(r io.Reader, rate func(int) error, emit func([]int16) error) error

// NewDecoder is the decoder of format: pcm (s16le mono at pcmRate), wav
// or mp3.
func NewDecoder(format string, pcmRate int) (Decoder, error) {
	switch strings.ToLower(format) {
	case FormatPCM, "":
		if pcmRate == 0 {
			return nil, errors.New("audio: sample_rate is required for format \"pcm\"")
		}
		if err := CheckRate("sample_rate", pcmRate); err != nil {
			return nil, err
		}
		return func(r io.Reader, rate func(int) error, emit func([]int16) error) error {
			if err := rate(pcmRate); err != nil {
				return err
			}
			return DecodeS16(r, 1, emit)
		}, nil
	case FormatWAV:
		return decodeWAV, nil
	case FormatMP3:
		return DecodeMP3, nil
	}
	return nil, fmt.Errorf("audio: format %q is not supported (must be pcm, wav or mp3)", format)
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

// DecodeMP3 decodes MPEG-1 and MPEG-2 layer III with go-mp3, which always
// yields s16le stereo; it is averaged to mono.
func DecodeMP3(r io.Reader, rate func(int) error, emit func([]int16) error) error {
	m, sampleRate, err := OpenMP3(r)
	if err != nil {
		return err
	}
	if err := rate(sampleRate); err != nil {
		return err
	}
	if err := DecodeS16(m, 2, emit); err != nil {
		if err == io.ErrUnexpectedEOF {
			return mp3Error(err)
		}
		return err
	}
	return nil
}

// OpenMP3 starts decoding an MP3 stream: it reads the first frame and
// returns a reader of s16le stereo samples at the stream's rate. A corrupt
// frame is an error, never a panic.
func OpenMP3(r io.Reader) (stereo io.Reader, rate int, err error) {
	defer func() {
		// go-mp3 can panic on corrupt frames; a bad stream must not take
		// hark down with it.
		if v := recover(); v != nil {
			err = fmt.Errorf("audio: mp3: corrupt stream (%v)", v)
		}
	}()
	d, err := mp3.NewDecoder(r)
	if err != nil {
		return nil, 0, mp3Error(err)
	}
	return mp3Reader{d}, d.SampleRate(), nil
}

// mp3Reader turns go-mp3's panics and errors into hark's.
type mp3Reader struct{ d *mp3.Decoder }

func (m mp3Reader) Read(b []byte) (n int, err error) {
	defer func() {
		if v := recover(); v != nil {
			n, err = 0, fmt.Errorf("audio: mp3: corrupt stream (%v)", v)
		}
	}()
	n, err = m.d.Read(b)
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		err = mp3Error(err)
	}
	return n, err
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
