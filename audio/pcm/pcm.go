// Package pcm is hark's one place for raw audio: the formats the gateway
// and the client exchange, 16-bit sample conversion, decoding pcm, wav and
// mp3 (go-mp3, pure Go) to mono samples, the sinc resampler, and the
// capped buffer that keeps a tool's stderr. The gateway's engines and the
// client's playback share it, so it plays nothing and starts no process.
package pcm

import (
	"bytes"
	"encoding/binary"
	"io"
	"sync"

	"hark/audio/wav"
)

// Formats of audio, as named by the TTS request's field "format".
const (
	FormatPCM = "pcm" // s16le mono, raw samples
	FormatWAV = "wav"
	FormatMP3 = "mp3"
)

// Rates outside this range are refused: they are not speech audio and
// would make the resampler produce absurd amounts of data. (A WAV header
// is held to the same range: package wav, which needs nothing, holds it.)
const (
	MinRate = wav.MinRate
	MaxRate = wav.MaxRate
)

// AppendS16 appends samples as little-endian 16-bit bytes.
func AppendS16(dst []byte, s []int16) []byte {
	for _, v := range s {
		dst = append(dst, byte(v), byte(uint16(v)>>8))
	}
	return dst
}

// S16 reads little-endian 16-bit bytes as samples; a trailing odd byte is
// dropped.
func S16(b []byte) []int16 {
	out := make([]int16, len(b)/2)
	for i := range out {
		out[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

// DecodeS16 reads interleaved s16le frames of the given channel count until
// EOF, averaging channels to mono, and hands them to emit block by block
// (emit must not keep the slice). A trailing partial frame is dropped.
func DecodeS16(r io.Reader, channels int, emit func([]int16) error) error {
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

// CappedBuffer keeps the first Max bytes written to it (4 KiB when Max is
// 0): enough of a tool's stderr to explain a failure, however much it
// writes. It is safe for concurrent use.
type CappedBuffer struct {
	Max int
	mu  sync.Mutex
	b   bytes.Buffer
}

func (c *CappedBuffer) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	limit := c.Max
	if limit <= 0 {
		limit = 4096
	}
	if room := limit - c.b.Len(); room > 0 {
		c.b.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *CappedBuffer) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.b.String()
}
