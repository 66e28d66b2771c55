package common

import (
	"github.com/charmbracelet/x/ansi"

	"hark/audio"
)

// SoundNotice says where audio goes when no sound device plays it, for
// an output of kind (audio.SinkFile, audio.SinkNull; "" or the device
// give nothing) and its reason: why nothing is heard, then the WAV's path
// whole on a line of its own (never wrapped, so it can be read and copied;
// y copies it), or that one is being written. Every pane that plays
// says it in these words.
func SoundNotice(st *Styles, kind, reason, savedTo string, w int) string {
	wrap := func(s string) string { return ansi.Wrap(s, max(1, w), "") }
	if kind == audio.SinkNull {
		return st.Warn.Render(wrap(audio.Silence(kind, reason) + " w saves the audio."))
	}
	if kind != audio.SinkFile {
		return ""
	}
	// Why nothing is heard, in the words the command line uses too.
	why := audio.Silence(kind, reason)
	why = st.Warn.Render(wrap(why))
	if savedTo == "" {
		return why + "\n" + wrap("The audio is being saved to a WAV file.")
	}
	return why + "\n" + "Saved to (y copies the path):" + "\n" + savedTo
}
