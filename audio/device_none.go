//go:build !(cgo && linux)

package audio

import "errors"

// Without cgo (or off Linux) hark has no ALSA; "auto" falls back to the file sink.
func openDevice(Options) (*Output, error) {
	return nil, errors.New("audio: this hark was built without cgo, so it cannot play on a sound device")
}
