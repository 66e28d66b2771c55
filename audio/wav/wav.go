// Package wav reads and writes the WAV audio hark's client and gateway
// exchange: 16-bit mono headers (with a placeholder size while streaming),
// header parsing of what engines and users send (PCM 8/16/24/32-bit and
// 32-bit float, any channel count up to 16, extensible format, extra
// chunks), mixing down to 16-bit mono, and fixing the sizes of a file
// written as a stream. It is pure Go (no cgo), so the gateway and the
// cgo-free build share it.
package wav

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
)

// StreamSize is the RIFF and data size of a header written before the
// length is known (a stream): the largest value, as streaming encoders
// write it. Readers treat it, 0 and espeak-ng's 0x7FFFF000 as "read to the
// end" (see Format.SizeKnown); FixSizes writes the real sizes afterwards.
const StreamSize = 0xFFFFFFFF

// Sample rates accepted in a header: below or above them it is not speech
// audio, and resampling would make absurd amounts of data.
const (
	MinRate = 4000
	MaxRate = 192000
)

// HeaderSize is the size of the header Header writes.
const HeaderSize = 44

// ErrNotWAV reports input without the RIFF/WAVE magic.
var ErrNotWAV = errors.New("wav: not a RIFF/WAVE stream (missing \"RIFF\"/\"WAVE\" magic)")

// Header is the 44-byte header of 16-bit mono PCM at rate with dataBytes
// of samples; StreamSize marks a stream of unknown length.
func Header(rate int, dataBytes uint32) []byte {
	h := make([]byte, HeaderSize)
	copy(h[0:], "RIFF")
	riff := uint32(StreamSize)
	if dataBytes != StreamSize && dataBytes <= StreamSize-36 {
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

// Format is what a header says about the samples after it.
type Format struct {
	Rate     int
	Channels int
	Bits     int  // 8, 16, 24 or 32
	Float    bool // 32-bit IEEE float
	// DataBytes is the data chunk's size as written, often a placeholder
	// (see SizeKnown).
	DataBytes uint32
}

// SizeKnown reports whether DataBytes is a real size, not a streaming
// placeholder: 0, or anything near 2 or 4 GiB (0x7FFFF000 from espeak-ng,
// StreamSize from hark).
func (f Format) SizeKnown() bool { return f.DataBytes > 0 && f.DataBytes < 0x7FFF0000 }

// FrameBytes is the size of one sample of every channel.
func (f Format) FrameBytes() int { return f.Channels * f.Bits / 8 }

// ReadHeader reads a WAV header up to the first byte of samples. It
// ignores the RIFF size, skips chunks other than "fmt " and "data", and
// checks the format; errors say what is wrong and what is accepted.
func ReadHeader(r io.Reader) (Format, error) {
	var f Format
	var head [12]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return f, errors.New("wav header: truncated (under 12 bytes)")
	}
	if string(head[0:4]) != "RIFF" || string(head[8:12]) != "WAVE" {
		return f, ErrNotWAV
	}
	haveFmt := false
	for {
		var ch [8]byte
		if _, err := io.ReadFull(r, ch[:]); err != nil {
			if err == io.EOF && haveFmt {
				return f, errors.New("wav: no \"data\" chunk")
			}
			return f, errors.New("wav header: truncated (no \"data\" chunk)")
		}
		id, size := string(ch[0:4]), binary.LittleEndian.Uint32(ch[4:])
		switch id {
		case "fmt ":
			if size < 16 || size > 1024 {
				return f, fmt.Errorf("wav: \"fmt \" chunk size %d is invalid (must be 16..1024)", size)
			}
			b := make([]byte, size+size%2)
			if _, err := io.ReadFull(r, b); err != nil {
				return f, errors.New("wav header: truncated \"fmt \" chunk")
			}
			tag := binary.LittleEndian.Uint16(b[0:])
			f.Channels = int(binary.LittleEndian.Uint16(b[2:]))
			f.Rate = int(binary.LittleEndian.Uint32(b[4:]))
			f.Bits = int(binary.LittleEndian.Uint16(b[14:]))
			if tag == 0xFFFE && size >= 26 { // WAVE_FORMAT_EXTENSIBLE: the sub-format says
				tag = binary.LittleEndian.Uint16(b[24:])
			}
			switch {
			case tag == 1 && (f.Bits == 8 || f.Bits == 16 || f.Bits == 24 || f.Bits == 32):
			case tag == 3 && f.Bits == 32:
				f.Float = true
			default:
				return f, fmt.Errorf("wav: encoding %d with %d-bit samples is not supported (must be PCM 8/16/24/32-bit or float 32-bit)", tag, f.Bits)
			}
			if f.Channels < 1 || f.Channels > 16 {
				return f, fmt.Errorf("wav: channels %d is out of range (must be 1..16)", f.Channels)
			}
			if f.Rate < MinRate || f.Rate > MaxRate {
				return f, fmt.Errorf("wav: sample rate %d Hz is out of range (must be %d..%d)", f.Rate, MinRate, MaxRate)
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return f, errors.New("wav: \"data\" chunk before \"fmt \" chunk")
			}
			f.DataBytes = size
			return f, nil
		default:
			if size > 1<<24 {
				return f, fmt.Errorf("wav: %q chunk of %d bytes is too large (must be under 16 MiB before \"data\")", id, size)
			}
			if _, err := io.CopyN(io.Discard, r, int64(size)+int64(size%2)); err != nil {
				return f, fmt.Errorf("wav header: truncated %q chunk", id)
			}
		}
	}
}

// Samples returns a reader of the samples after a header read by
// ReadHeader from r: the data chunk's size when it is known, the rest of
// r otherwise.
func (f Format) Samples(r io.Reader) io.Reader {
	if f.SizeKnown() {
		return io.LimitReader(r, int64(f.DataBytes))
	}
	return r
}

// AppendMono decodes the whole frames of b in format f, mixes them down to
// 16-bit mono and appends them to dst. It returns the bytes of an
// incomplete frame at the end of b, to be put before the next read.
func AppendMono(dst []int16, b []byte, f Format) ([]int16, []byte) {
	fb := f.FrameBytes()
	if fb <= 0 {
		return dst, nil
	}
	n := len(b) / fb
	bps := f.Bits / 8
	for i := 0; i < n; i++ {
		frame := b[i*fb : (i+1)*fb]
		var sum float64
		for c := 0; c < f.Channels; c++ {
			s := frame[c*bps : (c+1)*bps]
			switch {
			case f.Float:
				v := float64(math.Float32frombits(binary.LittleEndian.Uint32(s)))
				if math.IsNaN(v) {
					v = 0
				}
				sum += v * 32768
			case f.Bits == 8:
				sum += float64(int(s[0])-128) * 256
			case f.Bits == 16:
				sum += float64(int16(binary.LittleEndian.Uint16(s)))
			case f.Bits == 24:
				sum += float64(int32(uint32(s[0])<<8|uint32(s[1])<<16|uint32(s[2])<<24)>>8) / 256
			case f.Bits == 32:
				sum += float64(int32(binary.LittleEndian.Uint32(s))) / 65536
			}
		}
		dst = append(dst, clip16(sum/float64(f.Channels)))
	}
	return dst, b[n*fb:]
}

func clip16(v float64) int16 {
	switch {
	case v >= math.MaxInt16:
		return math.MaxInt16
	case v <= math.MinInt16:
		return math.MinInt16
	}
	return int16(math.Round(v))
}

// FixSizes writes the true RIFF and data sizes into a WAV file whose
// header was streamed with placeholder sizes, so that players and tools
// such as soxi read the real duration. f holds the whole file; the data
// chunk runs to its end.
func FixSizes(f io.ReadWriteSeeker) error {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if size < 12 || size > StreamSize {
		return fmt.Errorf("wav: %d bytes is not a WAV file whose sizes can be fixed", size)
	}
	var hdr [12]byte
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return err
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return ErrNotWAV
	}
	if err := putU32(f, 4, uint32(size-8)); err != nil {
		return err
	}
	off := int64(12)
	for off+8 <= size {
		var ch [8]byte
		if _, err := f.Seek(off, io.SeekStart); err != nil {
			return err
		}
		if _, err := io.ReadFull(f, ch[:]); err != nil {
			return err
		}
		if string(ch[0:4]) == "data" {
			return putU32(f, off+4, uint32(size-off-8))
		}
		n := int64(binary.LittleEndian.Uint32(ch[4:8]))
		off += 8 + n + n%2
	}
	return errors.New("wav: no \"data\" chunk")
}

func putU32(f io.WriteSeeker, at int64, v uint32) error {
	if _, err := f.Seek(at, io.SeekStart); err != nil {
		return err
	}
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], v)
	_, err := f.Write(b[:])
	return err
}

// FixBytes is FixSizes for a WAV held in memory (a take streamed whole),
// in place.
func FixBytes(b []byte) error { return FixSizes(&memFile{b: b}) }

// memFile is a fixed-size byte slice as a file.
type memFile struct {
	b   []byte
	off int64
}

func (m *memFile) Read(p []byte) (int, error) {
	if m.off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[m.off:])
	m.off += int64(n)
	return n, nil
}

func (m *memFile) Write(p []byte) (int, error) {
	if m.off+int64(len(p)) > int64(len(m.b)) {
		return 0, errors.New("wav: write past the end of the data")
	}
	n := copy(m.b[m.off:], p)
	m.off += int64(n)
	return n, nil
}

func (m *memFile) Seek(off int64, whence int) (int64, error) {
	switch whence {
	case io.SeekCurrent:
		off += m.off
	case io.SeekEnd:
		off += int64(len(m.b))
	}
	if off < 0 {
		return 0, errors.New("wav: seek before the start")
	}
	m.off = off
	return off, nil
}
