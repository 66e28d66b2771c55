package audio

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"testing"
)

func TestFixWAVSizes(t *testing.T) {
	pcm := make([]byte, 3200)
	for i := range pcm {
		pcm[i] = byte(i)
	}
	// A streamed header: placeholder sizes, and a LIST chunk before data.
	h := wavHeader(16000, 0xFFFFFFFF)
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
	if err := FixWAVSizes(f); err != nil {
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
	out, rate, err := DecodeToPCM(FormatWAV, got, 0)
	if err != nil || rate != 16000 || !bytes.Equal(out, pcm) {
		t.Errorf("decode after fix: rate %d err %v, %d bytes", rate, err, len(out))
	}

	bad := filepath.Join(t.TempDir(), "b.wav")
	os.WriteFile(bad, []byte("not a wav file at all"), 0o600)
	g, _ := os.OpenFile(bad, os.O_RDWR, 0)
	defer g.Close()
	if err := FixWAVSizes(g); err == nil {
		t.Error("fixed a file that is not WAV")
	}
}
