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
		return st.Warn.Render(wrap("Audio output is off (audio sink null): nothing is played or saved; w saves the audio."))
	}
	if kind != audio.SinkFile {
		return ""
	}
	var why string
	switch reason {
	case audio.ReasonSSH:
		why = "This is an SSH session without audio forwarding (no PULSE_SERVER), so nothing is heard here."
	case audio.ReasonNoDevice:
		why = "No sound device could be opened on this machine, so nothing is heard."
	case audio.ReasonNoCgo:
		why = "This hark was built without cgo and cannot play sound, so nothing is heard."
	default:
		why = "Audio goes to WAV files (audio sink file), so nothing is heard."
	}
	why = st.Warn.Render(wrap(why))
	if savedTo == "" {
		return why + "\n" + wrap("The audio is being saved to a WAV file.")
	}
	return why + "\n" + "Saved to (y copies the path):" + "\n" + savedTo
}
