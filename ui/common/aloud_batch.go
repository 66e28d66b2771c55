package common

import (
	"bytes"
	"context"
	"errors"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"hark/api"
	"hark/audio"
	"hark/audio/prose"
)

// ReadSentences plays sentences in turn into q, one continuous playback,
// asking for them a batch per call (see batchSentences) with the next
// two batches fetched while one plays, and tells playing of each sentence
// as its voice begins, every one in order. It returns as q.Run does; a
// *audio.PartError's Part is the first sentence of the batch that
// failed. The TUI's R and hark read both read this way.
func ReadSentences(ctx context.Context, q *audio.Sequence, sentences []prose.Sentence, req func(text string) api.TTSRequest,
	client *api.Client, playing func(i int)) error {
	batches := batchSentences(sentences)
	clock := newBatchClock(batches)
	heard := make([]bytes.Buffer, len(batches))
	var showMu sync.Mutex // show runs from the ticker and from Run
	shown := -1
	show := func(i int) {
		// Every sentence in turn, none skipped: a file sink plays a
		// batch faster than the position is looked at.
		showMu.Lock()
		defer showMu.Unlock()
		for ; shown < i; shown++ {
			playing(shown + 1)
		}
	}
	follow, followed := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(followed)
		// Within a batch the sentence playing is read off the playback's
		// position.
		t := time.NewTicker(aloudTick)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-follow:
				return
			case <-t.C:
			}
			if pb := q.Playback(); pb != nil {
				if i := clock.sentence(pb.Stats().Played); i >= 0 {
					show(i)
				}
			}
		}
	}()
	err := q.Run(ctx, audio.Turns{
		Count: len(batches), Format: api.FormatWAV, Ahead: aloudAhead,
		Fetch: func(ctx context.Context, i int, w io.Writer) error {
			_, err := StreamTTS(ctx, client, req(batchText(sentences, batches[i])), io.MultiWriter(w, &heard[i]))
			return err
		},
		Arrived: func(i int, length time.Duration, err error) {
			if err == nil {
				var texts []string
				for _, sn := range sentences[batches[i].from:batches[i].to] {
					texts = append(texts, sn.Text)
				}
				clock.arrived(i, heard[i].Bytes(), texts, length)
			}
			heard[i] = bytes.Buffer{}
		},
		Playing: func(i int) {
			clock.play(i)
			show(batches[i].from)
		},
	})
	close(follow)
	<-followed // nothing is told of a sentence after the run ends
	var pe *audio.PartError
	switch {
	case errors.As(err, &pe):
		return &audio.PartError{Part: batches[pe.Part].from, Err: pe.Err}
	case err == nil && ctx.Err() == nil:
		show(len(sentences) - 1)
	}
	return err
}

// SpeakBatches fetches sentences a batch per call, in order, for a
// reading written whole (hark read -o): each batch's audio (wav) and its
// sentences are given to got.
func SpeakBatches(ctx context.Context, sentences []prose.Sentence, req func(text string) api.TTSRequest, client *api.Client,
	got func(first, end int, wav []byte) error) error {
	for _, b := range batchSentences(sentences) {
		var buf bytes.Buffer
		if _, err := StreamTTS(ctx, client, req(batchText(sentences, b)), &buf); err != nil {
			return &audio.PartError{Part: b.from, Err: err}
		}
		if err := got(b.from, b.to, buf.Bytes()); err != nil {
			return err
		}
	}
	return nil
}

// Reading aloud asks for speech a batch of sentences at a time, not one
// call per sentence: a TTS call costs at least a credit, so a page read a
// sentence at a time cost fifty credits in ten seconds where a batch of
// up to batchRunes characters costs one. The first batch is the first
// sentence alone, so that the first sound comes as soon as before. Within
// a batch the highlight moves to each sentence as its voice begins: where
// the batch's audio pauses nearest the point its characters place the
// sentence.

// batchRunes is the most text in one call: the gateway bills TTS by the
// started thousand characters.
const batchRunes = 1000

// batch is sentences [from, to) of a reading, spoken by one call.
type batch struct{ from, to int }

// batchSentences groups sentences into batches: the first alone, then as
// many as fit in batchRunes characters (a longer sentence alone).
func batchSentences(ss []prose.Sentence) []batch {
	var out []batch
	for i := 0; i < len(ss); {
		b := batch{from: i, to: i + 1}
		n := utf8.RuneCountInString(ss[i].Text)
		for i > 0 && b.to < len(ss) && n+1+utf8.RuneCountInString(ss[b.to].Text) <= batchRunes {
			n += 1 + utf8.RuneCountInString(ss[b.to].Text)
			b.to++
		}
		out = append(out, b)
		i = b.to
	}
	return out
}

// batchText is what a batch's call says.
func batchText(ss []prose.Sentence, b batch) string {
	var buf bytes.Buffer
	for i := b.from; i < b.to; i++ {
		if i > b.from {
			buf.WriteByte(' ')
		}
		buf.WriteString(ss[i].Text)
	}
	return buf.String()
}

// Pauses: a run of quiet samples at least minPause long separates two
// sentences; quiet is at most 1/256 of full scale.
const (
	minPause  = 80 * time.Millisecond
	quietPeak = 128
)

// sentenceStarts places each sentence of a batch in the batch's audio
// (wav): when its voice begins, from the batch's start. The first begins
// at 0. Sentence j's start is estimated from the characters before it
// (each sentence weighing its length and a pause), then moved to the end
// of the pause nearest the estimate, within half a sentence of it.
func sentenceStarts(wav []byte, texts []string) (starts []time.Duration, length time.Duration) {
	pcm, rate, err := audio.DecodeToPCM(api.FormatWAV, wav, 0)
	if err != nil || rate == 0 || len(pcm) < 2 {
		return nil, 0
	}
	n := len(pcm) / 2
	at := func(i int) time.Duration { return time.Duration(int64(i) * int64(time.Second) / int64(rate)) }
	length = at(n)
	// The pauses, as [start, end) sample ranges.
	var pauses [][2]int
	minRun := int(int64(minPause) * int64(rate) / int64(time.Second))
	run := 0
	for i := 0; i <= n; i++ {
		quiet := false
		if i < n {
			v := int16(uint16(pcm[2*i]) | uint16(pcm[2*i+1])<<8)
			quiet = v <= quietPeak && v >= -quietPeak
		}
		if quiet {
			run++
			continue
		}
		if run >= minRun {
			pauses = append(pauses, [2]int{i - run, i})
		}
		run = 0
	}
	weight := make([]float64, len(texts)+1)
	for j, t := range texts {
		weight[j+1] = weight[j] + float64(utf8.RuneCountInString(t)+12)
	}
	starts = make([]time.Duration, len(texts))
	last := 0
	for j := 1; j < len(texts); j++ {
		est := int(float64(n) * weight[j] / weight[len(texts)])
		window := int(float64(n) * (weight[j+1] - weight[j-1]) / weight[len(texts)] / 4)
		best, bestD := -1, window+1
		for _, p := range pauses {
			d := min(abs(p[0]-est), abs(p[1]-est))
			if p[0] <= est && est < p[1] {
				d = 0
			}
			if p[1] > last && d < bestD {
				best, bestD = p[1], d
			}
		}
		if best < 0 {
			best = max(est, last)
		}
		starts[j], last = at(best), best
	}
	return starts, length
}

func abs(x int) int { return max(x, -x) }

// batchClock follows a reading's playback and says which sentence plays:
// batch i's start is the sum of the batches before it (they play back to
// back in one sequence), and its sentences' starts are known once it has
// arrived whole.
type batchClock struct {
	mu      sync.Mutex
	batches []batch
	length  []time.Duration   // each arrived batch's length
	starts  [][]time.Duration // each arrived batch's sentences' starts
	playing int               // the batch playing, -1 before the first
}

func newBatchClock(bs []batch) *batchClock {
	return &batchClock{batches: bs, length: make([]time.Duration, len(bs)), starts: make([][]time.Duration, len(bs)), playing: -1}
}

// arrived records batch i's audio.
func (c *batchClock) arrived(i int, wav []byte, texts []string, length time.Duration) {
	starts, n := sentenceStarts(wav, texts)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.length[i], c.starts[i] = length, starts
	if c.length[i] == 0 {
		c.length[i] = n
	}
}

// play marks batch i as begun.
func (c *batchClock) play(i int) {
	c.mu.Lock()
	c.playing = max(c.playing, i)
	c.mu.Unlock()
}

// sentence is the sentence (index into the reading) playing at played,
// -1 before the first batch plays.
func (c *batchClock) sentence(played time.Duration) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	b := c.playing
	if b < 0 {
		return -1
	}
	var start time.Duration
	for i := 0; i < b; i++ {
		start += c.length[i]
	}
	at := c.batches[b].from
	for j, s := range c.starts[b] {
		if played-start >= s {
			at = c.batches[b].from + j
		}
	}
	return at
}
