package audio

import (
	"os"
	"testing"
)

// The decoders take bytes straight from the network: no input may panic or
// hang them.
func FuzzDecode(f *testing.F) {
	for _, name := range []string{"testdata/espeak-hark.wav", "testdata/tone-24k.mp3", "testdata/tone-8k-mpeg25.mp3"} {
		b, _ := os.ReadFile(name)
		f.Add(b[:min(len(b), 1200)])
	}
	f.Add(streamedWAVHeader(16000, 0))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, format := range []string{"wav", "mp3", "pcm"} {
			DecodeToPCM(format, data, 16000)
		}
	})
}
