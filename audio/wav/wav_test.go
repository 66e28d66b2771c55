package wav

import (
	"bytes"
	"encoding/binary"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestFixSizes(t *testing.T) {
	pcm := make([]byte, 3200)
	for i := range pcm {
		pcm[i] = byte(i)
	}
	// A streamed header: placeholder sizes, and a LIST chunk before data.
	h := Header(16000, StreamSize)
	list := append([]byte("LIST"), 5, 0, 0, 0, 'I', 'N', 'F', 'O', 'x', 0) // odd size, padded
	file := append(append(append([]byte{}, h[:36]...), list...), h[36:]...)
	file = append(file, pcm...)
	p := filepath.Join(t.TempDir(), "s.wav")
	if err := os.WriteFile(p, file, 0o600); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(p, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := FixSizes(f); err != nil {
		t.Fatal(err)
	}
	f.Close()
	got, _ := os.ReadFile(p)
	if riff := binary.LittleEndian.Uint32(got[4:8]); int(riff) != len(got)-8 {
		t.Errorf("RIFF size %d, want %d", riff, len(got)-8)
	}
	dataAt := bytes.Index(got, []byte("data"))
	if d := binary.LittleEndian.Uint32(got[dataAt+4:]); int(d) != len(pcm) {
		t.Errorf("data size %d, want %d", d, len(pcm))
	}
	r := bytes.NewReader(got)
	fm, err := ReadHeader(r)
	if err != nil || fm.Rate != 16000 || !fm.SizeKnown() || fm.DataBytes != uint32(len(pcm)) {
		t.Errorf("header after fix: %+v %v", fm, err)
	}

	bad := filepath.Join(t.TempDir(), "b.wav")
	os.WriteFile(bad, []byte("not a wav file at all"), 0o600)
	g, _ := os.OpenFile(bad, os.O_RDWR, 0)
	defer g.Close()
	if err := FixSizes(g); err == nil {
		t.Error("fixed a file that is not WAV")
	}
}

// The streamed header says "read to the end" in both sizes; a header with
// a known size says it, and the RIFF size covers the 36 header bytes.
func TestHeaderSizes(t *testing.T) {
	s := Header(22050, StreamSize)
	if binary.LittleEndian.Uint32(s[4:]) != StreamSize || binary.LittleEndian.Uint32(s[40:]) != StreamSize {
		t.Errorf("streamed header sizes %x %x", s[4:8], s[40:44])
	}
	f, err := ReadHeader(bytes.NewReader(s))
	if err != nil || f.SizeKnown() || f.Rate != 22050 || f.Channels != 1 || f.Bits != 16 {
		t.Errorf("streamed header reads %+v %v", f, err)
	}
	k := Header(8000, 1000)
	if binary.LittleEndian.Uint32(k[4:]) != 1036 {
		t.Errorf("RIFF size %d, want 1036", binary.LittleEndian.Uint32(k[4:]))
	}
	// espeak-ng's placeholder and a zero size read to the end too.
	for _, size := range []uint32{0, 0x7FFFF000} {
		h := Header(16000, size)
		if f, _ := ReadHeader(bytes.NewReader(h)); f.SizeKnown() {
			t.Errorf("size %#x taken as known", size)
		}
	}
}

// Every sample format the readers accept mixes down to the same mono
// 16-bit samples.
func TestAppendMonoFormats(t *testing.T) {
	want := []int16{0, 16384, -16384, 32767}
	frame := func(f Format, v int16) []byte {
		var b []byte
		for c := 0; c < f.Channels; c++ {
			switch {
			case f.Float:
				b = binary.LittleEndian.AppendUint32(b, math.Float32bits(float32(v)/32768))
			case f.Bits == 8:
				b = append(b, byte(int(v>>8)+128))
			case f.Bits == 16:
				b = binary.LittleEndian.AppendUint16(b, uint16(v))
			case f.Bits == 24:
				u := uint32(int32(v) << 8)
				b = append(b, byte(u), byte(u>>8), byte(u>>16))
			case f.Bits == 32:
				b = binary.LittleEndian.AppendUint32(b, uint32(int32(v)<<16))
			}
		}
		return b
	}
	for _, f := range []Format{{Bits: 8, Channels: 1}, {Bits: 16, Channels: 2}, {Bits: 24, Channels: 1}, {Bits: 32, Channels: 3}, {Bits: 32, Float: true, Channels: 2}} {
		var b []byte
		for _, v := range want {
			b = append(b, frame(f, v)...)
		}
		// Split mid-frame: the rest carries over.
		cut := len(b)/2 + 1
		got, rest := AppendMono(nil, b[:cut], f)
		got, rest = AppendMono(got, append(rest, b[cut:]...), f)
		if len(rest) != 0 || len(got) != len(want) {
			t.Fatalf("%+v: %d samples, rest %d", f, len(got), len(rest))
		}
		for i := range want {
			tol := 0
			if f.Bits == 8 {
				tol = 256
			}
			if d := int(got[i]) - int(want[i]); d > tol || d < -tol {
				t.Errorf("%+v: sample %d = %d, want %d", f, i, got[i], want[i])
			}
		}
	}
}

func TestReadHeaderErrorsNameTheProblem(t *testing.T) {
	good := Header(16000, 100)
	cases := []struct {
		name string
		in   []byte
		want string
	}{
		{"short", good[:8], "truncated"},
		{"not wav", []byte("RIFF\x00\x00\x00\x00AVI LIST"), "not a RIFF/WAVE"},
		{"truncated fmt", good[:30], "truncated \"fmt \" chunk"},
		{"no data", good[:36], "no \"data\" chunk"},
		{"rate", func() []byte { b := bytes.Clone(good); binary.LittleEndian.PutUint32(b[24:], 1000); return b }(), "sample rate 1000 Hz is out of range"},
		{"bits", func() []byte { b := bytes.Clone(good); binary.LittleEndian.PutUint16(b[34:], 12); return b }(), "12-bit samples is not supported"},
		{"channels", func() []byte { b := bytes.Clone(good); binary.LittleEndian.PutUint16(b[22:], 0); return b }(), "channels 0 is out of range"},
	}
	for _, c := range cases {
		_, err := ReadHeader(bytes.NewReader(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to say %q", c.name, err, c.want)
		}
	}
}

// FuzzWAV feeds arbitrary bytes through both uses: the gateway reads a
// header and mixes whatever follows in pieces (an engine's output, an
// upload), and the client reads the samples the header bounds. Neither
// may panic, samples are bounded by the input, and a header written for a
// format read back gives the same format.
func FuzzWAV(f *testing.F) {
	f.Add(append(Header(16000, StreamSize), 1, 2, 3, 4, 5))
	f.Add(append(Header(8000, 4), 1, 2, 3, 4, 5, 6))
	ext := Header(44100, 8)
	binary.LittleEndian.PutUint16(ext[20:], 0xFFFE)
	f.Add(ext)
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		fm, err := ReadHeader(r)
		if err != nil {
			return
		}
		// The gateway: pieces of any size, rest carried over.
		var got []int16
		var rest []byte
		body, _ := io.ReadAll(fm.Samples(r))
		for i := 0; i < len(body); i += 7 {
			got, rest = AppendMono(got, append(rest, body[i:min(i+7, len(body))]...), fm)
		}
		if len(got) > len(body)/fm.FrameBytes() || len(rest) >= fm.FrameBytes() {
			t.Fatalf("%d samples and %d left from %d bytes of %+v", len(got), len(rest), len(body), fm)
		}
		// The client: all at once gives the same samples.
		all, _ := AppendMono(nil, body, fm)
		if len(all) != len(got) {
			t.Fatalf("all at once %d samples, in pieces %d", len(all), len(got))
		}
		if fm.Channels == 1 && fm.Bits == 16 && !fm.Float {
			back, err := ReadHeader(bytes.NewReader(Header(fm.Rate, fm.DataBytes)))
			if err != nil || back.Rate != fm.Rate || back.DataBytes != fm.DataBytes {
				t.Fatalf("header round trip: %+v %v, want %+v", back, err, fm)
			}
		}
	})
}

// A streamed WAV held in memory gets its true sizes in place.
func TestFixBytes(t *testing.T) {
	pcm := make([]byte, 1000)
	b := append(Header(8000, StreamSize), pcm...)
	if err := FixBytes(b); err != nil {
		t.Fatal(err)
	}
	fm, err := ReadHeader(bytes.NewReader(b))
	if err != nil || !fm.SizeKnown() || fm.DataBytes != 1000 || binary.LittleEndian.Uint32(b[4:8]) != uint32(len(b)-8) {
		t.Errorf("after FixBytes: %+v %v", fm, err)
	}
	if err := FixBytes([]byte("RIFF....WAVEfmt ")); err == nil {
		t.Error("fixed a WAV with no data chunk")
	}
}
