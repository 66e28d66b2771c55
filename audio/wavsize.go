package audio

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// FixWAVSizes writes the true RIFF and data sizes into a WAV file whose
// header was streamed with placeholder sizes (espeak-ng and hark's TTS
// stream do not know the length when the header leaves), so that players
// and tools like soxi read the real duration. f holds the whole file.
func FixWAVSizes(f io.ReadWriteSeeker) error {
	size, err := f.Seek(0, io.SeekEnd)
	if err != nil {
		return err
	}
	if size < 12 || size > 0xFFFFFFFF {
		return fmt.Errorf("audio: wav: %d bytes is not a WAV file hark can fix", size)
	}
	var hdr [12]byte
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return err
	}
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		return err
	}
	if string(hdr[0:4]) != "RIFF" || string(hdr[8:12]) != "WAVE" {
		return errors.New("audio: wav: not a RIFF/WAVE file")
	}
	if err := putU32(f, 4, uint32(size-8)); err != nil {
		return err
	}
	// Walk the chunks to the data chunk; it runs to the end of the file.
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
	return errors.New("audio: wav: no data chunk")
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
