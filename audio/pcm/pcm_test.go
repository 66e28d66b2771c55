package pcm

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
)

func TestS16RoundTrip(t *testing.T) {
	in := []int16{0, 1, -1, 32767, -32768, 1234}
	b := AppendS16(nil, in)
	if len(b) != 2*len(in) || !slices.Equal(S16(b), in) || !slices.Equal(S16(append(b, 7)), in) {
		t.Errorf("%v -> % x -> %v", in, b, S16(b))
	}
	// Stereo frames average to mono; a partial frame at the end is dropped.
	var got []int16
	stereo := AppendS16(nil, []int16{100, 300, -100, -300, 5})
	if err := DecodeS16(bytes.NewReader(stereo), 2, func(s []int16) error { got = append(got, s...); return nil }); err != nil || !slices.Equal(got, []int16{200, -200}) {
		t.Errorf("stereo: %v %v", got, err)
	}
}

func TestCappedBuffer(t *testing.T) {
	var b CappedBuffer
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if n, err := b.Write(bytes.Repeat([]byte("x"), 1000)); n != 1000 || err != nil {
				t.Errorf("Write = %d, %v: a capped buffer must not fail its writer", n, err)
			}
		}()
	}
	wg.Wait()
	if len(b.String()) != 4096 {
		t.Errorf("kept %d bytes, want the first 4096", len(b.String()))
	}
	small := CappedBuffer{Max: 5}
	small.Write([]byte("abcdefgh"))
	if small.String() != "abcde" {
		t.Errorf("Max 5 kept %q", small.String())
	}
}

// Garbage never panics the decoder: it is an error naming mp3.
func TestMP3Garbage(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("ID3\x03\x00\x00\x00\x00\x00\x10"), append([]byte("ID3\x03\x00\x00\x00\x00\x00\x10"), bytes.Repeat([]byte{0x55}, 300)...)} {
		err := DecodeMP3(bytes.NewReader(in), func(int) error { return nil }, func([]int16) error { return nil })
		if err == nil || !strings.Contains(err.Error(), "mp3") {
			t.Errorf("% x...: %v", in[:min(8, len(in))], err)
		}
	}
}

func TestNewDecoder(t *testing.T) {
	for _, tc := range []struct {
		format string
		rate   int
		want   string
	}{{"pcm", 0, "sample_rate is required"}, {"pcm", 1000, "out of range"}, {"ogg", 0, "not supported"}} {
		if _, err := NewDecoder(tc.format, tc.rate); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s at %d: %v, want %q", tc.format, tc.rate, err, tc.want)
		}
	}
	dec, err := NewDecoder("pcm", 16000)
	if err != nil {
		t.Fatal(err)
	}
	var rate int
	var got []int16
	err = dec(bytes.NewReader(AppendS16(nil, []int16{1, 2, 3})), func(r int) error { rate = r; return nil }, func(s []int16) error { got = append(got, s...); return nil })
	if err != nil || rate != 16000 || !slices.Equal(got, []int16{1, 2, 3}) {
		t.Errorf("pcm: rate %d, %v, %v", rate, got, err)
	}
	stop := errors.New("stop")
	if err := dec(bytes.NewReader(make([]byte, 64)), func(int) error { return stop }, nil); err != stop {
		t.Errorf("rate's error not returned: %v", err)
	}
}
