package audio

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"hark/audio/wav"
)

// nullSink discards audio as fast as it is decoded.
type nullSink struct{}

func (nullSink) start(p *Playback, rate int) error {
	go func() {
		buf := make([]byte, 16*1024)
		for {
			if _, eof := p.pull(buf, 0, false); eof {
				p.finish(nil)
				return
			}
		}
	}()
	return nil
}

func (nullSink) pause(*Playback, bool)        {}
func (nullSink) setVolume(*Playback, float64) {}
func (nullSink) stop(p *Playback)             { p.finish(nil) }

// fileSink saves each playback as a 16-bit mono WAV at the stream's own rate.
// The header is written first with placeholder sizes and fixed at the end, so
// a file cut short by a crash is still readable by tolerant players.
type fileSink struct {
	dir  string
	keep int // newest files kept in dir; 0 keeps all
	log  io.Writer
}

var fileSeq atomic.Int64

func (s *fileSink) start(p *Playback, rate int) error {
	p.mu.Lock()
	stopped := p.stopped
	p.mu.Unlock()
	if stopped {
		return errStopped
	}
	if err := os.MkdirAll(s.dir, 0o755); err != nil {
		return fmt.Errorf("audio: file sink: %w", err)
	}
	name := fmt.Sprintf("hark-%s-%d-%d.wav", time.Now().Format("20060102-150405"), os.Getpid(), fileSeq.Add(1))
	path := filepath.Join(s.dir, name)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("audio: file sink: %w", err)
	}
	if _, err := f.Write(wav.Header(rate, wav.StreamSize)); err != nil {
		f.Close()
		return fmt.Errorf("audio: file sink %s: %w", path, err)
	}
	p.mu.Lock()
	p.savedTo = path
	p.mu.Unlock()
	go func() {
		buf := make([]byte, 32*1024)
		var written int64
		var werr error
		for {
			n, eof := p.pull(buf, 0, false)
			if n > 0 && werr == nil {
				_, werr = f.Write(buf[:n])
				written += int64(n)
			}
			if eof {
				break
			}
		}
		if werr == nil {
			_, werr = f.WriteAt(wav.Header(rate, uint32(min(written, wav.StreamSize-wav.HeaderSize))), 0)
		}
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		switch {
		case werr != nil:
			werr = fmt.Errorf("audio: file sink %s: %w", path, werr)
		case written == 0:
			// No audio ever arrived: leave no empty file behind.
			os.Remove(path)
			p.mu.Lock()
			p.savedTo = ""
			p.mu.Unlock()
		default:
			fmt.Fprintf(s.log, "audio: saved %s\n", path)
			s.prune()
		}
		p.finish(werr)
	}()
	return nil
}

func (s *fileSink) pause(*Playback, bool)        {}
func (s *fileSink) setVolume(*Playback, float64) {}

// stop lets the writer goroutine finish the file with what it has.
func (s *fileSink) stop(*Playback) {}

// prune removes all but the newest keep of the sink's files (hark-*.wav)
// from dir: previews and speech played with no device are a cache, not a
// pile. Files of other names are never touched.
func (s *fileSink) prune() {
	if s.keep <= 0 {
		return
	}
	names, err := filepath.Glob(filepath.Join(s.dir, "hark-*.wav"))
	if err != nil || len(names) <= s.keep {
		return
	}
	type file struct {
		path string
		mod  time.Time
	}
	files := make([]file, 0, len(names))
	for _, n := range names {
		if fi, err := os.Stat(n); err == nil {
			files = append(files, file{n, fi.ModTime()})
		}
	}
	// Newest first; names carry the time and a sequence number, so they
	// order files written within one clock tick.
	slices.SortFunc(files, func(a, b file) int {
		if c := b.mod.Compare(a.mod); c != 0 {
			return c
		}
		return strings.Compare(b.path, a.path)
	})
	for _, f := range files[min(s.keep, len(files)):] {
		if err := os.Remove(f.path); err != nil {
			fmt.Fprintf(s.log, "audio: prune %s: %v\n", f.path, err)
		}
	}
}
