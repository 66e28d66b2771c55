//go:build !cgo

package sphinx

import "errors"

// ErrNoCgo: pocketsphinx is a C library, so a build without cgo has no
// recognition; everything else in hark works.
var ErrNoCgo = errors.New("speech recognition needs hark built with cgo (CGO_ENABLED=1) and libpocketsphinx-dev")

// Decoder is unusable without cgo: New reports ErrNoCgo.
type Decoder struct{}

func New(Model) (*Decoder, error)                 { return nil, ErrNoCgo }
func (*Decoder) StartUtt() error                  { return ErrNoCgo }
func (*Decoder) Process([]int16) error            { return ErrNoCgo }
func (*Decoder) Hyp() (string, error)             { return "", ErrNoCgo }
func (*Decoder) EndUtt() (string, float64, error) { return "", 0, ErrNoCgo }
func (*Decoder) InSpeech() bool                   { return false }
func (*Decoder) Reset()                           {}
func (*Decoder) Close()                           {}
