package common

import (
	"os"
	"strings"
	"sync"
)

// sound is the one playback at a time that every pane shares: read aloud
// in Pages or Research, an audition, a preview, speech in Voices.
type sound struct {
	mu   sync.Mutex
	stop func()
}

// ClaimSound stops the playback that is playing, whichever pane started
// it, and makes stop the way to end the one starting now. stop must be
// quick and safe to call more than once (a context's cancel); the
// playback's own job then reports that it stopped.
func (c *Common) ClaimSound(stop func()) {
	c.sound.mu.Lock()
	prev := c.sound.stop
	c.sound.stop = stop
	c.sound.mu.Unlock()
	if prev != nil {
		prev()
	}
}

// HomeShort writes a path under the home directory with ~/, so that a
// saved file's path reads whole on a status line.
func HomeShort(path string) string {
	home, err := os.UserHomeDir()
	if err != nil || home == "" || home == "/" {
		return path
	}
	if rest, ok := strings.CutPrefix(path, strings.TrimSuffix(home, "/")+"/"); ok {
		return "~/" + rest
	}
	return path
}
