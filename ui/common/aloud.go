package common

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/audio"
	"hark/audio/prose"
)

// Aloud reads a document in the reader aloud (R), sentence by sentence:
// each sentence is fetched over the TTS stream one ahead of the voice,
// played through the sound output, and highlighted in the rendered text
// while its audio plays, the view following it. Space pauses, ] and [
// skip a sentence or go back one, esc stops; R again resumes where it
// stopped.
type Aloud struct {
	sentences []prose.Sentence
	lines     []int // each sentence's first rendered line (-1 unknown)
	at        int   // the sentence being read (or to resume from)
	doc       string
	active    bool
	paused    bool
	gen       int // the run's number: messages of a stopped run are dropped
	cancel    context.CancelFunc
	pb        *audio.Playback
	err       error
	started   time.Time // when R was pressed, for the first sound
	first     time.Duration
}

// AloudMsg reports a sentence starting to play (Playing), or the run
// ending (Done, with Err when it failed).
type AloudMsg struct {
	Gen      int
	Index    int
	Playing  *audio.Playback
	Done     bool
	Err      error
	Duration time.Duration // the sentence's audio
}

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
	return a.run(c, s)
}

// locate finds each sentence's first line in the rendered text: its
// first words, searched forward from the sentence before.
func (a *Aloud) locate(s *Scroll) {
	a.lines = make([]int, len(a.sentences))
	plain := make([]string, len(s.lines))
	for i, l := range s.lines {
		plain[i] = strings.ToLower(strings.Join(strings.Fields(ansi.Strip(l)), " "))
	}
	from := 0
	for i, sn := range a.sentences {
		a.lines[i] = -1
		words := strings.Fields(strings.ToLower(sn.Text))
		key := strings.Trim(strings.Join(words[:min(2, len(words))], " "), ".,;:!?")
		if key == "" {
			continue
		}
		for j := from; j < len(plain); j++ {
			if strings.Contains(plain[j], key) {
				a.lines[i], from = j, j
				break
			}
		}
		if a.lines[i] < 0 && i > 0 {
			a.lines[i] = a.lines[i-1]
		}
	}
}

// run plays from a.at to the end in a command, one message per sentence.
func (a *Aloud) run(c *Common, s *Scroll) tea.Cmd {
	if a.cancel != nil {
		a.cancel()
	}
	if a.pb != nil {
		a.pb.Stop()
		a.pb = nil
	}
	c.readings++
	a.gen = c.readings
	ctx, cancel := context.WithCancel(context.Background())
	a.cancel, a.active, a.paused, a.err = cancel, true, false, nil
	a.mark(s)
	gen, from, sentences := a.gen, a.at, a.sentences
	client, send, open, provider, voice := c.Client, c.Send, c.Audio, c.Provider, c.Voice
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
		if voice == "" {
			vs, err := client.Voices(ctx, provider)
			if err != nil {
				return AloudMsg{Gen: gen, Done: true, Err: fmt.Errorf("read aloud: %w", err)}
			}
			voice = api.DefaultVoice(vs, api.Locale()).Value
		}
		// One sentence is fetched ahead of the one being spoken.
		type take struct {
			data []byte
			err  error
		}
		takes := make(chan take, 1)
		go func() {
			defer close(takes)
			for _, sn := range sentences[from:] {
				data, err := speak(ctx, client, api.TTSRequest{Provider: provider, Text: sn.Text, VoiceCode: voice, Format: api.FormatWAV})
				select {
				case takes <- take{data, err}:
				case <-ctx.Done():
					return
				}
				if err != nil {
					return
				}
			}
		}()
		i := from
		for t := range takes {
			if t.err != nil {
				return AloudMsg{Gen: gen, Done: true, Err: fmt.Errorf("read aloud: sentence %d: %w", i+1, t.err)}
			}
			pb, err := out.Play(api.FormatWAV, 0)
			if err != nil {
				return AloudMsg{Gen: gen, Done: true, Err: fmt.Errorf("read aloud: %w", err)}
			}
			pb.Write(t.data)
			pb.CloseWithError(nil)
			if send != nil {
				send(AloudMsg{Gen: gen, Index: i, Playing: pb, Duration: wavDuration(t.data)})
			}
			select {
			case <-pb.Done():
			case <-ctx.Done():
				pb.Stop()
				return AloudMsg{Gen: gen, Done: true}
			}
			if err := pb.Err(); err != nil {
				return AloudMsg{Gen: gen, Done: true, Err: fmt.Errorf("read aloud: playback: %w", err)}
			}
			i++
		}
		return AloudMsg{Gen: gen, Index: i, Done: true}
	}
}

// speak fetches one sentence's audio whole over the stream.
func speak(ctx context.Context, cl *api.Client, req api.TTSRequest) ([]byte, error) {
	s, err := cl.TTSStream(ctx, req)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	var buf bytes.Buffer
	if _, err := io.Copy(&buf, s); err != nil {
		return buf.Bytes(), err
	}
	return buf.Bytes(), nil
}

// wavDuration is how long a WAV plays (0 when unknown).
func wavDuration(b []byte) time.Duration {
	pcm, rate, err := audio.DecodeToPCM(api.FormatWAV, b, 0)
	if err != nil || rate == 0 {
		return 0
	}
	return time.Duration(float64(len(pcm)/2) / float64(rate) * float64(time.Second))
}

// Update takes the run's messages: the highlight moves to the sentence
// playing, and the view follows it.
func (a *Aloud) Update(msg AloudMsg, s *Scroll) tea.Cmd {
	if msg.Gen != a.gen {
		return nil
	}
	if msg.Done {
		a.active, a.paused, a.pb = false, false, nil
		if msg.Index >= len(a.sentences) {
			a.at = -1 // read to the end: R starts again from the view
		}
		s.spot = nil
		if msg.Err != nil {
			a.err = msg.Err
			err := msg.Err
			return func() tea.Msg { return ErrorMsg{Err: err} }
		}
		return nil
	}
	if a.first == 0 {
		a.first = time.Since(a.started)
	}
	a.at, a.pb = msg.Index, msg.Playing
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
		if a.pb != nil {
			a.paused = !a.paused
			if a.paused {
				a.pb.Pause()
			} else {
				a.pb.Resume()
			}
		}
		return nil, true
	case "]":
		if a.at+1 < len(a.sentences) {
			a.at++
			return a.run(c, s), true
		}
		return nil, true
	case "[":
		a.at = max(0, a.at-1)
		return a.run(c, s), true
	case "esc", "R":
		a.Stop(s)
		return nil, true
	}
	return nil, false
}

// Stop ends the reading; R resumes from the sentence it stopped at.
func (a *Aloud) Stop(s *Scroll) {
	if a.cancel != nil {
		a.cancel()
	}
	if a.pb != nil {
		a.pb.Stop()
	}
	a.gen = 0 // no run has number 0: what the stopped run still sends is dropped
	a.active, a.paused, a.pb = false, false, nil
	s.spot = nil
}

// Status is the reading's state for a footer ("" when not reading).
func (a *Aloud) Status() string {
	if !a.active {
		return ""
	}
	state := "reading aloud"
	if a.paused {
		state = "paused"
	}
	return fmt.Sprintf("%s %d/%d · space pause · ] next · [ back · esc stop", state, a.at+1, len(a.sentences))
}

// FirstSound is how long the current reading took from R to its first
// sentence playing (0 before it played).
func (a *Aloud) FirstSound() time.Duration { return a.first }
