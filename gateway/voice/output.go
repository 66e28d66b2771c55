package voice

import (
	"context"

	"hark/api"
	"hark/gateway/engine"
)

// Output encodes s16le mono samples at one rate into a TTS format (pcm,
// wav or mp3) and writes them to a sink as they come: the same encoders
// the local engines speak through, for providers that relay another
// vendor's samples (gateway/voice/relay).
type Output interface {
	Write(s []int16) error
	// Finish ends the audio; failed says synthesis already failed, so
	// that what was made is kept without its error hiding the first.
	Finish(failed bool) error
}

// NewOutput is an Output of format at rate to sink; mp3 runs lame (the
// path given, "" when it is not installed: then mp3 is refused).
func NewOutput(ctx context.Context, lame, format string, rate int, sink engine.AudioSink) (Output, error) {
	if format == api.FormatMP3 {
		if lame == "" {
			return nil, &engine.InputError{Field: "format", Rule: "mp3 needs lame, which is not installed; use pcm or wav"}
		}
		o, err := startMP3(ctx, lame, rate, sink)
		if err != nil {
			return nil, err
		}
		return outputOf{o}, nil
	}
	return outputOf{newPCMOut(sink, rate, format == api.FormatWAV)}, nil
}

type outputOf struct{ o audioOut }

func (w outputOf) Write(s []int16) error    { return w.o.write(s) }
func (w outputOf) Finish(failed bool) error { return w.o.finish(failed) }

// FindLame is lame's path from PATH, "" when it is not installed.
func FindLame() string { return findTool("", "lame") }
