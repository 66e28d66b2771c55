package voices

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// confidence prints a recognition confidence (0..1) with two decimals, or
// with two significant digits when it is that small, so that a low one
// does not read as zero.
func confidence(c float64) string {
	if c >= 0.01 {
		return fmt.Sprintf("%.2f", c)
	}
	return strconv.FormatFloat(c, 'g', 2, 64)
}

// fit pads or cuts s to exactly w x h cells.
func fit(s string, w, h int) string {
	if w <= 0 || h <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > h {
		lines = lines[:h]
	}
	for len(lines) < h {
		lines = append(lines, "")
	}
	for i, l := range lines {
		l = ansi.Truncate(l, w, "")
		if pad := w - ansi.StringWidth(l); pad > 0 {
			l += strings.Repeat(" ", pad)
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

func wrap(s string, w int) string {
	if w <= 0 {
		return ""
	}
	return ansi.Wrap(s, w, "")
}

var blocks = []rune(" ▁▂▃▄▅▆▇█")

// waveform draws recent levels (0..1) as bars, newest on the right.
func waveform(levels []float64, level float64, w int) string {
	if len(levels) == 0 {
		levels = []float64{level}
	}
	if len(levels) > w {
		levels = levels[len(levels)-w:]
	}
	var b strings.Builder
	for i := len(levels); i < w; i++ {
		b.WriteRune(' ')
	}
	for _, l := range levels {
		i := int(loudness(l)*float64(len(blocks)-1) + 0.5)
		b.WriteRune(blocks[i])
	}
	return b.String()
}

// loudness maps an RMS level (0..1 of full scale) to 0..1 on a decibel
// scale from -48 dB to 0 dB, as ears and level meters do: speech at -20 dB
// fills more than half a bar instead of a sliver.
func loudness(rms float64) float64 {
	if rms <= 0 {
		return 0
	}
	const floor = -48.0
	db := 20 * math.Log10(rms)
	return min(max((db-floor)/-floor, 0), 1)
}

// bar draws v/total as a bar of w cells.
func bar(v, total float64, w int, show bool) string {
	filled := 0
	if show && total > 0 {
		filled = int(min(max(v/total, 0), 1)*float64(w) + 0.5)
	}
	return strings.Repeat("█", filled) + strings.Repeat("░", w-filled)
}

func dur(d time.Duration) string {
	if d < time.Second {
		return fmt.Sprintf("%d ms", d.Milliseconds())
	}
	return fmt.Sprintf("%.2f s", d.Seconds())
}

func secs(d time.Duration) string { return fmt.Sprintf("%.2f s", d.Seconds()) }

func bytesText(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}

func orDash(s string) string {
	if s == "" {
		return "–"
	}
	return s
}
