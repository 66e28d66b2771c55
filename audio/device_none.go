//go:build !(cgo && linux)

package audio

// Without cgo (or off Linux) hark has no ALSA; "auto" falls back to the file sink.
func openDevice(Options) (*Output, error) {
	return nil, errNoCgo
}
