package deck

import (
	"context"
	"fmt"
	"io"
	"time"

	"hark/audio"
	"hark/audio/pcm"
)

// Render writes the whole performance as one WAV: every line in the
// deck's order, its pauses as silence, each line resampled to the highest
// rate among them, so that no voice loses its band. Lines not fetched yet
// are fetched; what was fetched for playing is used as it is. progress,
// when not nil, hears of each line once it is in.
func (s *Show) Render(ctx context.Context, w io.Writer, progress func(line int)) (time.Duration, error) {
	for i := range s.Deck.Lines {
		s.Fetch(i)
	}
	type part struct {
		samples []int16
		rate    int
		pause   time.Duration
	}
	parts := make([]part, len(s.Deck.Lines))
	rate := 0
	for i, l := range s.Deck.Lines {
		if l.IsPause() {
			parts[i].pause = l.Pause
			continue
		}
		data, err := s.Wait(ctx, i)
		if err != nil {
			return 0, fmt.Errorf("line %d (%s): %w", l.Number, l.VoiceRef(), err)
		}
		b, r, err := audio.DecodeToPCM("wav", data, 0)
		if err != nil {
			return 0, fmt.Errorf("line %d (%s): %w", l.Number, l.VoiceRef(), err)
		}
		parts[i] = part{samples: pcm.S16(b), rate: r}
		rate = max(rate, r)
		if progress != nil {
			progress(i)
		}
	}
	var out []int16
	for _, p := range parts {
		if p.pause > 0 {
			out = append(out, make([]int16, int(p.pause.Seconds()*float64(rate)))...)
			continue
		}
		rs := pcm.NewResampler(p.rate, rate)
		out = rs.Write(out, p.samples)
		out = rs.Flush(out)
	}
	if err := audio.WriteWAV(w, pcm.AppendS16(nil, out), rate); err != nil {
		return 0, err
	}
	return time.Duration(float64(len(out)) / float64(rate) * float64(time.Second)), nil
}
