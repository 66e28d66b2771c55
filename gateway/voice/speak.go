package voice

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"hark/audio/pcm"
	"hark/audio/wav"
)

// How an engine process gets one sentence and gives back its audio.

// speak runs the engine on one sentence and passes its samples to emit as
// they arrive.
func (l *Local) speak(ctx context.Context, plan *ttsPlan, text string, emit func(rate int, s []int16) error) error {
	// The text never goes in the arguments, which every local user can
	// read (ps): espeak-ng reads it on stdin; flite reads stdin only as a
	// terminal would, so it gets a file in a private folder and writes its
	// audio beside it (its file mode rewrites the WAV header, so it cannot
	// write to a pipe).
	var path string
	args := slices.Clone(plan.args)
	var private string
	switch plan.voice.engine {
	case engineEspeak:
		path = l.espeak
		args = append(args, "--stdin")
	case engineFlite:
		path = l.flite
	}
	if path == "" {
		return fmt.Errorf("%s is not installed", map[string]string{engineEspeak: "espeak-ng", engineFlite: "flite"}[plan.voice.engine])
	}
	if plan.voice.engine == engineFlite {
		dir, err := os.MkdirTemp("", "hark-tts-*") // 0700
		if err != nil {
			return fmt.Errorf("flite: %w", err)
		}
		defer os.RemoveAll(dir)
		if err := os.WriteFile(filepath.Join(dir, "text"), []byte(text+"\n"), 0o600); err != nil {
			return fmt.Errorf("flite: %w", err)
		}
		private = filepath.Join(dir, "audio.wav")
		args = append(args, "-f", filepath.Join(dir, "text"), "-o", private)
	}
	program := filepath.Base(path)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, args...)
	if plan.voice.engine == engineEspeak {
		cmd.Stdin = strings.NewReader(text)
	}
	var stderr pcm.CappedBuffer
	cmd.Stderr = &stderr
	if private != "" {
		if err := cmd.Run(); err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return fmt.Errorf("%s: %v %s", program, err, strings.TrimSpace(stderr.String()))
		}
		f, err := os.Open(private)
		if err != nil {
			return fmt.Errorf("%s wrote no audio: %w", program, err)
		}
		defer f.Close()
		return readEngineWAV(f, emit)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w", program, err)
	}
	readErr := readEngineWAV(stdout, emit)
	if readErr != nil {
		cancel() // stop the engine; its remaining output is not wanted
		io.Copy(io.Discard, stdout)
	}
	waitErr := cmd.Wait()
	if ctx.Err() != nil && readErr == nil {
		return ctx.Err()
	}
	var badOutput engineOutputError
	if readErr != nil && !(errors.As(readErr, &badOutput) && waitErr != nil) {
		return readErr
	}
	if waitErr != nil {
		return fmt.Errorf("%s: %v %s", program, waitErr, strings.TrimSpace(stderr.String()))
	}
	return nil
}

// readEngineWAV reads a WAV stream from an engine and emits mono samples
// per read, so that audio leaves as soon as the engine writes it.
func readEngineWAV(r io.Reader, emit func(rate int, s []int16) error) error {
	f, err := wav.ReadHeader(r)
	if err != nil {
		return engineOutputError{err}
	}
	buf := make([]byte, 8192)
	var rest []byte
	var samples []int16
	for {
		n, err := r.Read(buf[len(rest):])
		if n > 0 {
			chunk := buf[:len(rest)+n]
			samples, rest = wav.AppendMono(samples[:0], chunk, f)
			copy(buf, rest)
			rest = buf[:len(rest)]
			if len(samples) > 0 {
				if err := emit(f.Rate, samples); err != nil {
					return err
				}
			}
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// engineOutputError is output of an engine that is not WAV; when the
// engine also failed, its own message says more.
type engineOutputError struct{ err error }

func (e engineOutputError) Error() string { return "engine output: " + e.err.Error() }
func (e engineOutputError) Unwrap() error { return e.err }
