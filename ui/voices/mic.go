package voices

import (
	"context"
	"errors"
	"io"
)

// errNoMic means no microphone could be opened.
var errNoMic = errors.New("no capture device")

// openMic starts recording 16 kHz mono s16le from the microphone.
// TODO(G): switch to audio.Record once engineer E lands it.
func openMic(ctx context.Context) (io.ReadCloser, error) { return nil, errNoMic }
