package sphinx

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// SampleRate is the only rate the en-us acoustic model accepts.
const SampleRate = 16000

// Model names the files of a pocketsphinx model.
type Model struct {
	HMM  string // acoustic model directory
	LM   string // language model (.lm.bin or .lm)
	Dict string // pronunciation dictionary
}

// DefaultModelDir is where Debian's pocketsphinx-en-us puts the en-us model.
const DefaultModelDir = "/usr/share/pocketsphinx/model/en-us"

// ModelIn returns the en-us model layout of Debian's pocketsphinx-en-us
// package rooted at dir.
func ModelIn(dir string) Model {
	return Model{
		HMM:  filepath.Join(dir, "en-us"),
		LM:   filepath.Join(dir, "en-us.lm.bin"),
		Dict: filepath.Join(dir, "cmudict-en-us.dict"),
	}
}

// Check reports a missing model file by name, before the C library is
// asked to load it (it would only log the reason).
func (m Model) Check() error {
	for _, p := range []string{m.HMM, m.LM, m.Dict} {
		if _, err := os.Stat(p); err != nil {
			return fmt.Errorf("pocketsphinx model: %w (install pocketsphinx-en-us)", err)
		}
	}
	return nil
}

// ErrClosed is returned by a Decoder used after Close.
var ErrClosed = errors.New("pocketsphinx decoder closed")
