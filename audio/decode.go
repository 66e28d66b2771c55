package audio

import (
	"bytes"
	"fmt"
	"io"
	"math"

	"hark/audio/pcm"
	"hark/audio/wav"
)

// Formats accepted by Play and DecodeToPCM, as named by the gateway's TTS
// request field "format" (package pcm defines them).
const (
	FormatPCM = pcm.FormatPCM
	FormatWAV = pcm.FormatWAV
	FormatMP3 = pcm.FormatMP3
)

// ErrMPEG25 is returned for MP3 streams in MPEG version 2.5 (8, 11.025 and
// 12 kHz), which go-mp3 cannot decode.
var ErrMPEG25 = pcm.ErrMPEG25

// DecodeToPCM decodes a whole buffer of pcm (s16le mono at sampleRate), wav or
// mp3 to s16le mono at the stream's own rate, which it returns. sampleRate is
// only used (and required) for pcm. A truncated stream yields what decoded.
func DecodeToPCM(format string, data []byte, sampleRate int) (out []byte, rate int, err error) {
	dec, err := pcm.NewDecoder(format, sampleRate)
	if err != nil {
		return nil, 0, err
	}
	err = dec(bytes.NewReader(data), func(r int) error {
		rate = r
		return nil
	}, func(s []int16) error {
		out = pcm.AppendS16(out, s)
		return nil
	})
	return out, rate, err
}

// WriteWAV writes s16le mono pcm as a complete 16-bit mono WAV file.
func WriteWAV(w io.Writer, data []byte, sampleRate int) error {
	if err := pcm.CheckRate("sample_rate", sampleRate); err != nil {
		return err
	}
	if len(data)%2 != 0 {
		return fmt.Errorf("audio: pcm length %d is odd (must be whole s16le samples)", len(data))
	}
	if len(data) > math.MaxUint32-44 {
		return fmt.Errorf("audio: pcm length %d is too large for a WAV file (max 4 GiB)", len(data))
	}
	if _, err := w.Write(wav.Header(sampleRate, uint32(len(data)))); err != nil {
		return err
	}
	_, err := w.Write(data)
	return err
}

// Resample converts s16le mono pcm from one rate to another with the sinc
// resampler playback uses.
func Resample(data []byte, from, to int) []byte {
	r := pcm.NewResampler(from, to)
	out := r.Write(nil, pcm.S16(data))
	return pcm.AppendS16(nil, r.Flush(out))
}
