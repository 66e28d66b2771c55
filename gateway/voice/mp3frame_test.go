package voice

import "testing"

func TestMP3FrameLen(t *testing.T) {
	// MPEG-1 layer III, 128 kbps, 44.1 kHz, no padding: 417 bytes.
	if n := mp3FrameLen([]byte{0xFF, 0xFB, 0x90, 0x00}); n != 417 {
		t.Errorf("frame length %d, want 417", n)
	}
	// MPEG-2 layer III, 64 kbps, 22.05 kHz: 72*64000/22050 = 208.
	if n := mp3FrameLen([]byte{0xFF, 0xF3, 0x80, 0x00}); n != 208 {
		t.Errorf("frame length %d, want 208", n)
	}
	for _, b := range [][]byte{{0xFF, 0xFF, 0xFF, 0xFF}, {0xFF, 0xFB, 0xF0, 0}, {0x12, 0x34, 0x56, 0x78}, {0xFF}} {
		if n := mp3FrameLen(b); n != 0 {
			t.Errorf("% x read as a frame of %d bytes", b, n)
		}
	}
}
