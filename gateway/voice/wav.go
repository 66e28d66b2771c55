package voice

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// wavStreamSize is the RIFF and data size written in a streamed WAV header,
// whose real size is unknown when the header leaves: the largest value, as
// streaming encoders do. Readers that honour it read to the end.
const wavStreamSize = 0xFFFFFFFF

// wavHeader is the 44-byte header of 16-bit mono PCM at rate.
func wavHeader(rate int, dataBytes uint32) []byte {
	h := make([]byte, 44)
	copy(h[0:], "RIFF")
	riff := dataBytes
	if dataBytes != wavStreamSize {
		riff = dataBytes + 36
	}
	binary.LittleEndian.PutUint32(h[4:], riff)
	copy(h[8:], "WAVEfmt ")
	binary.LittleEndian.PutUint32(h[16:], 16)
	binary.LittleEndian.PutUint16(h[20:], 1) // PCM
	binary.LittleEndian.PutUint16(h[22:], 1) // mono
	binary.LittleEndian.PutUint32(h[24:], uint32(rate))
	binary.LittleEndian.PutUint32(h[28:], uint32(rate*2))
	binary.LittleEndian.PutUint16(h[32:], 2)
	binary.LittleEndian.PutUint16(h[34:], 16)
	copy(h[36:], "data")
	binary.LittleEndian.PutUint32(h[40:], dataBytes)
	return h
}

// pcmFormat describes interleaved PCM samples.
type pcmFormat struct {
	rate     int
	channels int
	bits     int  // 8, 16, 24 or 32
	float    bool // 32-bit IEEE float
	// dataBytes is the data chunk's size as its header gives it: often a
	// placeholder (see dataBytesKnown).
	dataBytes uint32
}

// dataBytesKnown says whether the data size in the header is real, not
// one of the placeholders streaming writers use: 0, or anything near
// 2 or 4 GiB (0x7ffff000 from espeak-ng, 0xffffffff from this package).
func (f pcmFormat) dataBytesKnown() bool { return f.dataBytes > 0 && f.dataBytes < 0x7fff0000 }

func (f pcmFormat) frameBytes() int { return f.channels * f.bits / 8 }

var errNotWAV = errors.New("not a RIFF/WAVE stream")

// readWAVHeader reads a WAV header up to the start of the data chunk. It
// ignores the RIFF size and only reports the data size, which streaming
// writers (espeak-ng, this package) fill with placeholders.
func readWAVHeader(r io.Reader) (pcmFormat, error) {
	var f pcmFormat
	var head [12]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return f, fmt.Errorf("wav header: %w", errNotWAV)
	}
	if string(head[0:4]) != "RIFF" || string(head[8:12]) != "WAVE" {
		return f, errNotWAV
	}
	haveFmt := false
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			return f, errors.New("wav header: no data chunk")
		}
		id, size := string(ch[0:4]), binary.LittleEndian.Uint32(ch[4:])
		switch id {
		case "fmt ":
			if size < 16 || size > 1024 {
				return f, fmt.Errorf("wav header: fmt chunk of %d bytes", size)
			}
			b := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, b); err != nil {
				return f, errors.New("wav header: truncated fmt chunk")
			}
			tag := binary.LittleEndian.Uint16(b[0:])
			f.channels = int(binary.LittleEndian.Uint16(b[2:]))
			f.rate = int(binary.LittleEndian.Uint32(b[4:]))
			f.bits = int(binary.LittleEndian.Uint16(b[14:]))
			if tag == 0xFFFE && size >= 26 { // WAVE_FORMAT_EXTENSIBLE: the subformat says
				tag = binary.LittleEndian.Uint16(b[24:])
			}
			switch {
			case tag == 1 && (f.bits == 8 || f.bits == 16 || f.bits == 24 || f.bits == 32):
			case tag == 3 && f.bits == 32:
				f.float = true
			default:
				return f, fmt.Errorf("wav encoding %d with %d-bit samples is not supported (PCM 8/16/24/32-bit or 32-bit float)", tag, f.bits)
			}
			if f.channels < 1 || f.channels > 16 {
				return f, fmt.Errorf("wav has %d channels (1 to 16 supported)", f.channels)
			}
			if f.rate < minInputRate || f.rate > maxInputRate {
				return f, fmt.Errorf("wav sample rate %d Hz outside %d..%d", f.rate, minInputRate, maxInputRate)
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return f, errors.New("wav header: data chunk before fmt chunk")
			}
			f.dataBytes = size
			return f, nil
		default:
			if size > 1<<24 {
				return f, fmt.Errorf("wav header: %q chunk of %d bytes", id, size)
			}
			if _, err := io.CopyN(io.Discard, r, int64(size+size%2)); err != nil {
				return f, errors.New("wav header: truncated chunk")
			}
		}
	}
}

// Rates accepted for input audio (STT, engine output).
const (
	minInputRate = 4000
	maxInputRate = 192000
)

// appendMono decodes whole frames of b in format f, mixes them down to
// mono 16-bit and appends them to dst. It returns the bytes of an
// incomplete trailing frame, to be prefixed to the next read.
func appendMono(dst []int16, b []byte, f pcmFormat) ([]int16, []byte) {
	fb := f.frameBytes()
	n := len(b) / fb
	bps := f.bits / 8
	for i := 0; i < n; i++ {
		frame := b[i*fb : (i+1)*fb]
		var sum float64
		for c := 0; c < f.channels; c++ {
			s := frame[c*bps : (c+1)*bps]
			switch {
			case f.float:
				v := float64(math.Float32frombits(binary.LittleEndian.Uint32(s)))
				if math.IsNaN(v) {
					v = 0
				}
				sum += v * 32768
			case f.bits == 8:
				sum += float64(int(s[0])-128) * 256
			case f.bits == 16:
				sum += float64(int16(binary.LittleEndian.Uint16(s)))
			case f.bits == 24:
				v := int32(uint32(s[0])<<8|uint32(s[1])<<16|uint32(s[2])<<24) >> 8
				sum += float64(v) / 256
			case f.bits == 32:
				sum += float64(int32(binary.LittleEndian.Uint32(s))) / 65536
			}
		}
		dst = append(dst, clip16(float32(sum/float64(f.channels))))
	}
	return dst, b[n*fb:]
}

// s16le appends samples as little-endian bytes.
func s16le(dst []byte, s []int16) []byte {
	for _, v := range s {
		dst = append(dst, byte(v), byte(uint16(v)>>8))
	}
	return dst
}
