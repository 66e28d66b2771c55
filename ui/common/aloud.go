package common

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/audio"
	"hark/audio/prose"
	"hark/deck"
)

// Aloud reads a document in the reader aloud (R), sentence by sentence:
// batches of sentences stream over the TTS WebSocket into one continuous
// playback (audio.Sequence), played as their frames arrive, with the next
// batches fetched while one plays (aloud_batch.go); the sentence playing is highlighted
// in the rendered text, the view following it. Space pauses, ] and [ skip
// a sentence or go back one, esc stops; R again resumes where it stopped.
// Starting it stops any other playback (ClaimSound).
type Aloud struct {
	sentences []prose.Sentence
	lines     []int // each sentence's first rendered line (-1 unknown)
	at        int   // the sentence being read (or to resume from)
	doc       string
	active    bool
	paused    bool
	// The runs are calls (Calls) numbered by Common's count of readings,
	// one per pane's reader, so that every run in every pane has its own
	// number; messages of a replaced or stopped run are dropped.
	counter *int
	runs    map[int]context.CancelFunc
	run     int // the number of the last run started
	seq     *audio.Sequence
	err     error
	started time.Time // when R was pressed, for the first sound
	first   time.Duration
}

// AloudMsg reports a sentence starting to play (Index, with the run's
// sequence in Playing), or the run ending (Done, with Err when it failed,
// and SavedTo when the reading went to a file instead of a sound device).
// Gen is the run's number.
type AloudMsg struct {
	Gen     int
	Index   int
	Playing *audio.Sequence
	Done    bool
	Err     error
	SavedTo string
	// Off: the audio output is off (the null sink): nothing was read.
	Off bool
}

// aloudAhead is how many batches are fetched beyond the one playing;
// aloudTick how often the sentence playing within a batch is looked up.
const (
	aloudAhead = 2
	aloudTick  = 20 * time.Millisecond
)

// Active reports that reading is under way (playing or paused).
func (a *Aloud) Active() bool { return a.active }

// Start reads doc (markdown) aloud from the first sentence at or below
// the scroll's top line, or resumes where the last reading of the same
// document stopped.
func (a *Aloud) Start(c *Common, doc string, s *Scroll) tea.Cmd {
	if doc != a.doc || len(a.sentences) == 0 {
		a.doc, a.sentences, a.at = doc, prose.Sentences(doc), -1
	}
	if len(a.sentences) == 0 {
		return func() tea.Msg { return ErrorMsg{Err: errors.New("read aloud: there is nothing to read")} }
	}
	a.locate(s)
	if a.at < 0 || a.at >= len(a.sentences) {
		a.at = 0
		for i, l := range a.lines {
			if l >= s.offset {
				a.at = i
				break
			}
		}
	}
	a.started, a.first = time.Now(), 0
	return a.play(c, s)
}

// calls are the reader's runs, one at a time.
func (a *Aloud) calls() Calls {
	if a.runs == nil {
		a.runs = map[int]context.CancelFunc{}
	}
	return NewCalls(a.counter, a.runs, nil).Shared()
}

// locate finds each sentence's first line in the rendered text.
func (a *Aloud) locate(s *Scroll) {
	texts := make([]string, len(a.sentences))
	for i, sn := range a.sentences {
		texts[i] = sn.Text
	}
	a.lines = sentenceLines(texts, s.lines)
}

// play plays from a.at to the end in a command, one message per
// sentence, stopping the run under way.
func (a *Aloud) play(c *Common, s *Scroll) tea.Cmd {
	a.counter = &c.readings
	gen, ctx, cancel := a.calls().Begin()
	c.ClaimSound(cancel)
	a.run, a.active, a.paused, a.err, a.seq = gen, true, false, nil, nil
	a.mark(s)
	from, sentences := a.at, a.sentences
	client, send, open, provider, voice := c.Client, c.Send, c.Audio, c.Provider, c.Voice
	log := c.Logf
	return func() tea.Msg {
		defer cancel()
		if client == nil {
			return AloudMsg{Gen: gen, Done: true, Err: ErrNotConnected}
		}
		if open == nil {
			return AloudMsg{Gen: gen, Done: true, Err: errors.New("read aloud: this hark has no sound output")}
		}
		out, err := open()
		if err != nil {
			return AloudMsg{Gen: gen, Done: true, Err: fmt.Errorf("read aloud: %w", err)}
		}
		if out.Kind() == audio.SinkNull {
			// Nothing would be heard: no calls, and the place is kept.
			return AloudMsg{Gen: gen, Index: -1, Done: true, Off: true}
		}
		if voice == "" {
			vs, err := client.Voices(ctx, provider)
			if err != nil {
				return AloudMsg{Gen: gen, Done: true, Err: fmt.Errorf("read aloud: %w", err)}
			}
			voice = api.DefaultVoice(vs, api.Locale()).Value
		}
		// One playback for the whole reading: no gap between sentences,
		// and with no sound device one file, not one per sentence.
		q := out.Sequence(0)
		rest := sentences[from:]
		err = ReadSentences(ctx, q, rest, func(text string) api.TTSRequest {
			prov, code := provider, voice
			if p, v, err := deck.ParseVoiceRef(voice); err == nil && p != "" {
				prov, code = p, v // another provider's voice (openai_speech/af_bella)
			}
			return api.TTSRequest{Provider: prov, Text: text, VoiceCode: code, Format: api.FormatWAV}
		}, client, func(i int) {
			if send != nil {
				send(AloudMsg{Gen: gen, Index: from + i, Playing: q})
			}
		})
		done := AloudMsg{Gen: gen, Index: from + len(rest), Done: true}
		if ctx.Err() != nil {
			done.Index = -1 // stopped: the reader keeps its place
			if f := q.SavedTo(); out.Kind() == audio.SinkFile && f != "" && send != nil {
				// Nothing was heard, and the file holds what was read
				// ahead (minutes of it): never a file written unsaid. The
				// stopped run's own messages are dropped, so this is sent.
				log("read aloud: stopped; saved to %s", f)
				send(NoticeMsg{Text: "reading stopped; saved so far to " + HomeShort(f)})
			}
			return done
		}
		if out.Kind() == audio.SinkFile {
			log("read aloud: saved to %s", q.SavedTo())
			done.SavedTo = HomeShort(q.SavedTo())
		}
		var pe *audio.PartError
		if errors.As(err, &pe) {
			done.Index = from + pe.Part
			done.Err = fmt.Errorf("read aloud: sentence %d: %w", done.Index+1, pe.Err)
		} else if err != nil {
			done.Err = fmt.Errorf("read aloud: playback: %w", err)
		}
		return done
	}
}

// StreamTTS writes req's audio to w as its frames arrive, and returns the
// time from the call to the first of them.
func StreamTTS(ctx context.Context, cl *api.Client, req api.TTSRequest, w io.Writer) (first time.Duration, err error) {
	t, err := StreamTake(ctx, cl, req, w)
	return t.First, err
}

// Take is what a stream's audio took: the time to its first frame, to
// its end, and the credits it cost (its final frame's).
type Take struct {
	First, Elapsed time.Duration
	Credits        int64
}

// StreamTake is StreamTTS with the whole take's figures.
func StreamTake(ctx context.Context, cl *api.Client, req api.TTSRequest, w io.Writer) (t Take, err error) {
	start := time.Now()
	s, err := cl.TTSStream(ctx, req)
	if err != nil {
		return t, err
	}
	defer s.Close()
	for {
		chunk, err := s.Next()
		if errors.Is(err, io.EOF) {
			if t.First == 0 {
				return t, errors.New("the stream brought no audio")
			}
			t.Elapsed, t.Credits = time.Since(start), s.Credits()
			return t, nil
		}
		if err != nil {
			return t, err
		}
		if len(chunk) == 0 {
			continue
		}
		if t.First == 0 {
			t.First = time.Since(start)
		}
		if _, err := w.Write(chunk); err != nil {
			return t, err
		}
	}
}

// Update takes the run's messages: the highlight moves to the sentence
// playing, and the view follows it.
func (a *Aloud) Update(msg AloudMsg, s *Scroll) tea.Cmd {
	if msg.Done && !a.calls().Done(msg.Gen) || !msg.Done && !a.calls().Current(msg.Gen) {
		return nil
	}
	if msg.Done {
		a.active, a.paused, a.seq = false, false, nil
		switch {
		case msg.Index >= len(a.sentences):
			a.at = -1 // read to the end: R starts again from the view
		case msg.Index >= 0:
			a.at = msg.Index
		}
		s.spot = nil
		if msg.Off {
			return func() tea.Msg {
				return NoticeMsg{Text: "read aloud: " + audio.ErrOff.Error(), Warn: true}
			}
		}
		if msg.Err != nil {
			a.err = msg.Err
			err := msg.Err
			return func() tea.Msg { return ErrorMsg{Err: err} }
		}
		if msg.SavedTo != "" {
			// Nothing was heard: say where the reading went.
			text := "reading saved to " + msg.SavedTo // whole at 80 columns for the usual ~/.local/share path
			return func() tea.Msg { return NoticeMsg{Text: text} }
		}
		return nil
	}
	if a.first == 0 {
		a.first = time.Since(a.started)
	}
	a.at, a.seq = msg.Index, msg.Playing
	a.mark(s)
	if l := a.lines[a.at]; l >= 0 && (l < s.offset || l >= s.offset+s.height) {
		s.offset = max(0, l-s.height/3)
		s.clamp()
	}
	return nil
}

// mark highlights the current sentence's lines.
func (a *Aloud) mark(s *Scroll) {
	if a.at < 0 || a.at >= len(a.lines) || a.lines[a.at] < 0 {
		s.spot = nil
		return
	}
	from := a.lines[a.at]
	to := from + 1
	if a.at+1 < len(a.lines) && a.lines[a.at+1] > from {
		to = min(a.lines[a.at+1], from+4)
	}
	s.spot = &[2]int{from, to}
}

// Key handles space, ] and [ and esc while reading; ok is false for
// other keys.
func (a *Aloud) Key(msg tea.KeyPressMsg, c *Common, s *Scroll) (tea.Cmd, bool) {
	if !a.active {
		return nil, false
	}
	switch msg.String() {
	case "space", " ":
		if a.seq != nil {
			a.paused = !a.paused
			if a.paused {
				a.seq.Pause()
			} else {
				a.seq.Resume()
			}
		}
		return nil, true
	case "]":
		if a.at+1 < len(a.sentences) {
			a.at++
			return a.play(c, s), true
		}
		return nil, true
	case "[":
		a.at = max(0, a.at-1)
		return a.play(c, s), true
	case "esc", "R":
		a.Stop(s)
		return nil, true
	}
	return nil, false
}

// Stop ends the reading; R resumes from the sentence it stopped at.
func (a *Aloud) Stop(s *Scroll) {
	a.calls().Cancel()
	if a.seq != nil {
		a.seq.Stop()
	}
	a.calls().Drop() // what the stopped run still sends is dropped
	a.active, a.paused, a.seq = false, false, nil
	s.spot = nil
}

// Status is the reading's state for a footer ("" when not reading).
func (a *Aloud) Status() string {
	if !a.active {
		return ""
	}
	return a.Progress() + " · space pause · ] next · [ back · esc stop"
}

// Progress is the reading's state without its keys ("reading aloud
// 3/24", "paused 3/24"), for a header over a keys line that names them;
// "" when nothing is read.
func (a *Aloud) Progress() string {
	if !a.active {
		return ""
	}
	state := "reading aloud"
	if a.paused {
		state = "paused"
	}
	return fmt.Sprintf("%s %d/%d", state, a.at+1, len(a.sentences))
}

// FirstSound is how long the current reading took from R to its first
// sentence playing (0 before it played).
func (a *Aloud) FirstSound() time.Duration { return a.first }
