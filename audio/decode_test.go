package audio

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math"
	"os"
	"testing"
	"time"

	"hark/audio/wav"
)

func readFile(t testing.TB, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// streamedWAVHeader is a 16-bit mono header with the given placeholder in
// both size fields, as streaming encoders write it.
func streamedWAVHeader(rate int, size uint32) []byte {
	h := wav.Header(rate, 0)
	binary.LittleEndian.PutUint32(h[4:], size)
	binary.LittleEndian.PutUint32(h[40:], size)
	return h
}

func le(b *bytes.Buffer, vals ...any) {
	for _, v := range vals {
		binary.Write(b, binary.LittleEndian, v)
	}
}

func TestWAVPlaceholderSizes(t *testing.T) {
	want := s16Bytes(testSignal(1000, 5))
	for _, size := range []uint32{0, 0xFFFFFFFF, 0x7FFFF000} {
		data := append(streamedWAVHeader(22050, size), want...)
		pcm, rate, err := DecodeToPCM("wav", data, 0)
		if err != nil || rate != 22050 || !bytes.Equal(pcm, want) {
			t.Errorf("size 0x%X: rate %d, %d bytes, err %v", size, rate, len(pcm), err)
		}
	}
}

func TestWAVFromEspeak(t *testing.T) {
	data := readFile(t, "testdata/espeak-hark.wav") // written by espeak-ng --stdout: sizes 0x7FFFF000
	pcm, rate, err := DecodeToPCM("wav", data, 0)
	if err != nil || rate != 22050 || len(pcm) != len(data)-44 {
		t.Fatalf("rate %d, %d bytes of %d, err %v", rate, len(pcm), len(data)-44, err)
	}
	// The same stream fed one byte at a time plays the same samples.
	rec := newRecordingSink()
	p, _ := rec.output().Play("wav", 0)
	for i := range data {
		p.Write(data[i : i+1])
	}
	p.CloseWrite()
	waitDone(t, p, 10*time.Second)
	if got := s16Bytes(rec.samples()); !bytes.Equal(got, pcm) {
		t.Errorf("byte-at-a-time stream played %d bytes, want %d", len(got), len(pcm))
	}
}

func TestWAVOtherLayouts(t *testing.T) {
	// Stereo 16-bit with a LIST chunk before data and an exact data size:
	// channels are averaged (rounded) and the trailing chunk is not played.
	var b bytes.Buffer
	b.WriteString("RIFF\x00\x00\x00\x00WAVEfmt ")
	le(&b, uint32(16), uint16(1), uint16(2), uint32(16000), uint32(64000), uint16(4), uint16(16))
	b.WriteString("LIST\x03\x00\x00\x00abc\x00")
	b.WriteString("data")
	le(&b, uint32(8), int16(100), int16(300), int16(-100), int16(-301))
	b.WriteString("junk....")
	pcm, rate, err := DecodeToPCM("wav", b.Bytes(), 0)
	if err != nil || rate != 16000 || !bytes.Equal(pcm, s16Bytes([]int16{200, -201})) {
		t.Errorf("stereo: rate %d pcm %v err %v", rate, pcm, err)
	}

	// Mono float 32.
	b.Reset()
	b.WriteString("RIFF\x00\x00\x00\x00WAVEfmt ")
	le(&b, uint32(16), uint16(3), uint16(1), uint32(8000), uint32(32000), uint16(4), uint16(32))
	b.WriteString("data\xff\xff\xff\xff")
	binary.Write(&b, binary.LittleEndian, []float32{0.5, -1, 2})
	pcm, _, err = DecodeToPCM("wav", b.Bytes(), 0)
	if err != nil || !bytes.Equal(pcm, s16Bytes([]int16{16384, -32768, 32767})) {
		t.Errorf("float: pcm %v err %v", pcm, err)
	}

	// A header cut short is an error, not a panic.
	if _, _, err := DecodeToPCM("wav", []byte("RIFF\x00\x00"), 0); err == nil {
		t.Error("truncated header decoded")
	}
}

func TestMP3(t *testing.T) {
	for _, c := range []struct {
		file string
		rate int
	}{{"testdata/tone-24k.mp3", 24000}, {"testdata/tone-44k-stereo.mp3", 44100}} {
		pcm, rate, err := DecodeToPCM("mp3", readFile(t, c.file), 0)
		if err != nil || rate != c.rate {
			t.Fatalf("%s: rate %d err %v", c.file, rate, err)
		}
		dur := time.Duration(len(pcm)/2) * time.Second / time.Duration(rate)
		if dur < 450*time.Millisecond || dur > 650*time.Millisecond {
			t.Errorf("%s: %v of audio, want about 500ms", c.file, dur)
		}
		// A 440 Hz tone at half scale: RMS about 0.35.
		var sum float64
		for i := 0; i+1 < len(pcm); i += 2 {
			v := float64(int16(binary.LittleEndian.Uint16(pcm[i:]))) / 32768
			sum += v * v
		}
		if rms := math.Sqrt(sum / float64(len(pcm)/2)); rms < 0.25 || rms > 0.45 {
			t.Errorf("%s: RMS %.2f, want about 0.35", c.file, rms)
		}
	}
	if _, _, err := DecodeToPCM("mp3", readFile(t, "testdata/tone-8k-mpeg25.mp3"), 0); !errors.Is(err, ErrMPEG25) {
		t.Errorf("MPEG 2.5: %v, want ErrMPEG25", err)
	}
	// A stream cut mid-frame keeps the frames before the cut.
	full := readFile(t, "testdata/tone-24k.mp3")
	pcm, _, err := DecodeToPCM("mp3", full[:len(full)/2], 0)
	if err != nil || len(pcm) < 8000 {
		t.Errorf("half an mp3: %d bytes, err %v", len(pcm), err)
	}
}

func TestWriteWAVRoundTrip(t *testing.T) {
	want := s16Bytes(testSignal(333, 6))
	var b bytes.Buffer
	if err := WriteWAV(&b, want, 16000); err != nil {
		t.Fatal(err)
	}
	pcm, rate, err := DecodeToPCM("wav", b.Bytes(), 0)
	if err != nil || rate != 16000 || !bytes.Equal(pcm, want) {
		t.Errorf("round trip: rate %d, %d bytes, err %v", rate, len(pcm), err)
	}
	if err := WriteWAV(&b, []byte{1, 2, 3}, 16000); err == nil {
		t.Error("odd-length pcm accepted")
	}
	if err := WriteWAV(&b, want, 0); err == nil {
		t.Error("rate 0 accepted")
	}
}

func TestMP3StreamedInSmallFrames(t *testing.T) {
	data := readFile(t, "testdata/tone-24k.mp3")
	want, _, err := DecodeToPCM("mp3", data, 0)
	if err != nil {
		t.Fatal(err)
	}
	rec := newRecordingSink()
	p, _ := rec.output().Play("mp3", 0)
	for i := 0; i < len(data); i += 100 {
		p.Write(data[i:min(i+100, len(data))])
	}
	p.CloseWrite()
	waitDone(t, p, 10*time.Second)
	if p.Err() != nil {
		t.Fatal(p.Err())
	}
	if got := s16Bytes(rec.samples()); !bytes.Equal(got, want) {
		t.Errorf("streamed mp3 played %d bytes, whole-buffer decode gave %d", len(got), len(want))
	}
}
