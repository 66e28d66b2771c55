// Package voices is hark's voice studio pane: choose a voice, hear it
// stream, adjust it, recognise speech from a file or the microphone, and
// run a speak-then-listen round trip. Update does no I/O: the gateway,
// the sound output and files are reached from tea.Cmds whose progress
// comes back as typed messages.
package voices

import (
	"cmp"
	"context"
	"os"
	"slices"
	"strings"

	"charm.land/bubbles/v2/filepicker"
	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textarea"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
	"hark/ui/demo"
)

// Section is one part of the voice studio.
type Section int

const (
	SectionVoices Section = iota
	SectionSpeak
	SectionListen
	SectionRoundTrip
	SectionDemo
	numSections
)

func (s Section) String() string {
	return [...]string{"Voices", "Speak", "Listen", "Round trip", "Demo"}[s]
}

const (
	defaultSpeakText = "Hark! Streaming speech starts playing as soon as the first audio arrives."
	defaultRoundTrip = "The quick brown fox jumps over the lazy dog."
)

// Pane is the voice studio. It implements common.Pane.
type Pane struct {
	c      *common.Common
	ranges Ranges

	width, height int
	section       Section
	// nextID numbers the pane's calls, of every kind, so that which came
	// last is known across them (voicesOut); each kind runs one at a time.
	nextID int
	runs   struct{ play, listen, rt, aud map[int]context.CancelFunc }

	// Voices
	provider string
	// others are the other enabled providers whose voices the list
	// holds too; missing those that could not be listed.
	others, missing []string
	list            VoiceList
	filter          textinput.Model
	filtering       bool
	loading         bool
	voicesErr       error
	voice           api.Voice // the voice Speak and Round trip use
	samples         map[string]*clip

	// Speak
	text     textarea.Model
	editing  bool
	settings TTSSettings
	control  control
	// controlNote says why the last change of a control did nothing
	// (the end of its range); any other key clears it.
	controlNote string
	play        *playState
	last        *clip
	savedTo     string
	saveErr     error
	saveAs      common.SaveAs

	// Listen
	picker     filepicker.Model
	picking    bool
	listen     listenState
	listenMode bool // true: stream (default)

	// Round trip
	rtInput   textinput.Model
	rtEditing bool
	rt        roundTripState

	// Audition (Voices section): marked voices played in turn; audPick
	// is the ready sentence they say (0: the Speak text).
	aud     audition
	audPick int
	// tally is the blind A/B picks of this session, by voice.
	tally map[string]*blindTally

	// Demo: a deck played on the stage; deckPicker chooses its file.
	stage       *demo.Model
	deckPicker  filepicker.Model
	pickingDeck bool
	lastDeck    string
}

var _ common.Pane = (*Pane)(nil)

// New builds the voice studio over c. It lists the voices of c.Provider
// (api.DefaultProvider when empty) and preselects c.Voice.
func New(c *common.Common) *Pane {
	p := &Pane{
		c:          c,
		ranges:     unknownRanges(),
		provider:   cmp.Or(c.Provider, api.DefaultProvider),
		samples:    map[string]*clip{},
		settings:   TTSSettings{Stream: true},
		listenMode: true,
		loading:    true,
	}
	p.voice = api.Voice{Value: c.Voice, Name: c.Voice}
	p.runs.play, p.runs.listen = map[int]context.CancelFunc{}, map[int]context.CancelFunc{}
	p.runs.rt, p.runs.aud = map[int]context.CancelFunc{}, map[int]context.CancelFunc{}

	p.filter = textinput.New()
	p.filter.Prompt = "/"
	p.filter.Placeholder = "name, language or scene"

	p.text = textarea.New()
	p.text.ShowLineNumbers = false
	p.text.Placeholder = "Text to speak"
	p.text.SetValue(defaultSpeakText)
	p.text.CharLimit = 5000
	dark := c.Styles == nil || c.Styles.Dark
	p.text.SetStyles(textarea.DefaultStyles(dark))

	p.rtInput = textinput.New()
	p.rtInput.Prompt = ""
	p.rtInput.CharLimit = 500
	p.rtInput.SetValue(defaultRoundTrip)

	p.picker = newPicker(audioFileTypes)
	p.deckPicker = newPicker([]string{".toml"})
	p.stage = demo.New(c)
	return p
}

// newPicker is a file picker of the given types, opening in the
// directory hark was started in.
func newPicker(types []string) filepicker.Model {
	fp := filepicker.New()
	fp.AllowedTypes = types
	fp.ShowPermissions = false
	fp.KeyMap.Back = key.NewBinding(key.WithKeys("h", "backspace", "left"), key.WithHelp("h", "back"))
	if wd, err := os.Getwd(); err == nil {
		fp.CurrentDirectory = wd
	}
	return fp
}

// Title is the tab label.
func (p *Pane) Title() string { return "Voices" }

// Init loads the voice list and the bounds of the Speak controls.
func (p *Pane) Init() tea.Cmd {
	p.loading = true
	return tea.Batch(loadVoicesCmd(p.c, p.provider), loadTTSInputsCmd(p.c, p.provider))
}

// Capturing reports that a text field or the file picker has the keys.
func (p *Pane) Capturing() bool {
	return p.filtering || p.editing || p.rtEditing || p.picking || p.saveAs.Active() || p.pickingDeck || p.onStage()
}

// onStage reports that a deck is on the Demo section's stage: it takes
// every key (q stops the show, not hark).
func (p *Pane) onStage() bool { return p.section == SectionDemo && p.stage.Active() }

// OwnsKeys reports that the Speak text area is being edited, or a path
// typed into the save-as prompt: it takes every key, ctrl+k included (see
// common.TextAreaPane).
func (p *Pane) OwnsKeys() bool { return p.editing || p.saveAs.Active() }

// KeyMap gives the bindings of the current section.
func (p *Pane) KeyMap() help.KeyMap {
	if p.onStage() {
		return p.stage.KeyMap()
	}
	return sectionKeys(p.c.Keys().Voices, p.section, p.Capturing())
}

// Section is the section shown.
func (p *Pane) Section() Section { return p.section }

// SetSection shows section s.
func (p *Pane) SetSection(s Section) {
	p.blurAll()
	p.section = (s + numSections) % numSections
}

func (p *Pane) blurAll() {
	p.filtering, p.editing, p.rtEditing, p.picking, p.pickingDeck = false, false, false, false, false
	p.filter.Blur()
	p.text.Blur()
	p.rtInput.Blur()
}

// SetSize is given the pane's whole area.
func (p *Pane) SetSize(width, height int) {
	p.width, p.height = max(0, width), max(0, height)
	p.layout()
}

// calls are the calls of one kind (runs: p.runs.play, …), numbered among
// all the pane's calls.
func (p *Pane) calls(runs map[int]context.CancelFunc) common.Calls {
	return common.NewCalls(&p.nextID, runs, nil).Shared()
}

// newJob begins a call of one kind, replacing the one of that kind under
// way; its messages come through the job's stream.
func (p *Pane) newJob(runs map[int]context.CancelFunc) (job, context.Context) {
	seq, ctx, s := p.calls(runs).Stream(p.c.Send)
	return job{id: seq, r: s}, ctx
}

// Update handles keys and the messages of the pane's jobs.
func (p *Pane) Update(msg tea.Msg) (common.Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.KeyPressMsg:
		return p, p.handleKey(msg)
	case tea.MouseWheelMsg:
		if p.section == SectionVoices && !p.picking {
			switch msg.Button {
			case tea.MouseWheelUp:
				p.list.Move(-1)
			case tea.MouseWheelDown:
				p.list.Move(1)
			}
		}
		return p, nil
	case voicesMsg:
		return p, p.onVoices(msg)
	case ttsInputsMsg:
		// A gateway that serves no TTS inputs leaves the controls
		// unbounded: its refusal of a value names the range.
		if prov, _ := voiceTarget(p.provider, p.voice.Value); msg.provider == prov && msg.err == nil {
			p.ranges = RangesFrom(msg.inputs)
		}
		return p, nil
	case ttsOpenedMsg, ttsChunkMsg, ttsDoneMsg, meterMsg:
		return p, p.onPlayback(msg.(jobMsg))
	case savedMsg:
		p.savedTo, p.saveErr = msg.path, msg.err
		return p, nil
	case sttFrameMsg, sttRecordingMsg, sttDoneMsg:
		return p, p.onListen(msg.(jobMsg))
	case roundTripMsg:
		return p, p.onRoundTrip(msg)
	case auditionMsg:
		return p, p.onAudition(msg)
	case takeHeardMsg:
		p.onTakeHeard(msg)
		return p, nil
	case demo.ClosedMsg:
		return p, nil
	}
	// Anything else (cursor blinks, directory listings) goes to whichever
	// component is live.
	var cmds []tea.Cmd
	var cmd tea.Cmd
	if p.filtering {
		p.filter, cmd = p.filter.Update(msg)
		cmds = append(cmds, cmd)
	}
	if p.editing {
		p.text, cmd = p.text.Update(msg)
		cmds = append(cmds, cmd)
	}
	if p.rtEditing {
		p.rtInput, cmd = p.rtInput.Update(msg)
		cmds = append(cmds, cmd)
	}
	cmds = append(cmds, p.saveAs.Update(msg))
	p.picker, cmd = p.picker.Update(msg)
	cmds = append(cmds, cmd)
	p.deckPicker, cmd = p.deckPicker.Update(msg)
	cmds = append(cmds, cmd, p.stage.Update(msg))
	return p, tea.Batch(cmds...)
}

func (p *Pane) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys().Voices
	switch {
	case p.saveAs.Active():
		path, cmd := p.saveAs.Key(msg)
		if path != "" {
			return saveCmd(p.last, path, p.c.Now())
		}
		return cmd
	case p.filtering:
		switch msg.String() {
		case "enter", "tab":
			p.filtering = false
			p.filter.Blur()
			return nil
		case "esc":
			p.filtering = false
			p.filter.Blur()
			p.filter.SetValue("")
			p.list.SetFilter("")
			return nil
		case "up", "down":
			p.list.Move(map[string]int{"up": -1, "down": 1}[msg.String()])
			return nil
		}
		var cmd tea.Cmd
		p.filter, cmd = p.filter.Update(msg)
		p.list.SetFilter(p.filter.Value())
		return cmd
	case p.editing:
		if msg.String() == "esc" || msg.String() == "tab" {
			p.editing = false
			p.text.Blur()
			return nil
		}
		if key.Matches(msg, k.SpeakNow) {
			p.editing = false
			p.text.Blur()
			return p.speak()
		}
		var cmd tea.Cmd
		p.text, cmd = p.text.Update(msg)
		return cmd
	case p.rtEditing:
		switch msg.String() {
		case "esc", "tab":
			p.rtEditing = false
			p.rtInput.Blur()
			return nil
		case "enter":
			p.rtEditing = false
			p.rtInput.Blur()
			return p.roundTrip()
		}
		var cmd tea.Cmd
		p.rtInput, cmd = p.rtInput.Update(msg)
		return cmd
	case p.onStage():
		return p.stage.Update(msg)
	case p.pickingDeck:
		return p.pickDeckKey(msg)
	case p.picking:
		if msg.String() == "esc" {
			p.picking = false
			return nil
		}
		var cmd tea.Cmd
		p.picker, cmd = p.picker.Update(msg)
		if ok, path := p.picker.DidSelectFile(msg); ok {
			p.picking = false
			return tea.Batch(cmd, p.recognise(path))
		}
		return cmd
	}

	switch {
	case key.Matches(msg, k.PrevSection):
		p.SetSection(p.section - 1)
		return nil
	case key.Matches(msg, k.NextSection):
		p.SetSection(p.section + 1)
		return nil
	case key.Matches(msg, k.Stop):
		return p.stopAll()
	case key.Matches(msg, k.CopyPath) && p.savedPath() != "":
		return common.CopyURL(p.savedPath())
	}

	switch p.section {
	case SectionVoices:
		return p.voicesKey(msg)
	case SectionSpeak:
		return p.speakKey(msg)
	case SectionListen:
		return p.listenKey(msg)
	case SectionDemo:
		return p.demoKey(msg)
	default:
		return p.roundTripKey(msg)
	}
}

func (p *Pane) voicesKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys().Voices
	if p.awaitingPick() {
		// A blind round waits for its pick: its letters and = are
		// the answer, before any other binding.
		if p.blindPick(msg.String()) {
			return nil
		}
	}
	page := max(1, p.listHeight()-1)
	switch {
	case key.Matches(msg, k.Up):
		p.list.Move(-1)
	case key.Matches(msg, k.Down):
		p.list.Move(1)
	case key.Matches(msg, k.Home):
		p.list.Home()
	case key.Matches(msg, k.End):
		p.list.End()
	case key.Matches(msg, k.PageUp):
		p.list.Move(-page)
	case key.Matches(msg, k.PageDown):
		p.list.Move(page)
	case key.Matches(msg, k.Filter):
		p.filtering = true
		return p.filter.Focus()
	case key.Matches(msg, k.ClearFilter):
		p.filter.SetValue("")
		p.list.SetFilter("")
	case key.Matches(msg, k.Order):
		p.list.ToggleOrder()
	case key.Matches(msg, k.Reload):
		return p.Init()
	case key.Matches(msg, k.Preview):
		return p.preview()
	case key.Matches(msg, k.Mark):
		p.aud.note = ""
		p.toggleMark()
	case key.Matches(msg, k.Audition):
		return p.startAudition()
	case key.Matches(msg, k.Blind):
		return p.startBlind()
	case key.Matches(msg, k.Replay):
		return p.replay()
	case key.Matches(msg, k.AB):
		return p.pickAB()
	case key.Matches(msg, k.PickText):
		p.audPick = (p.audPick + 1) % len(readySentences)
	case key.Matches(msg, k.Star):
		p.star()
	case key.Matches(msg, k.SaveSet):
		return p.saveSet()
	case key.Matches(msg, k.Demo):
		return p.openDeckPicker()
	case key.Matches(msg, k.UseVoice):
		if v, ok := p.list.Selected(); ok {
			was, _ := voiceTarget(p.provider, p.voice.Value)
			p.voice = v
			// Read aloud in Pages and Research speaks with it too.
			p.c.Voice = v.Value
			p.SetSection(SectionSpeak)
			// The Speak controls take the bounds of the voice's provider.
			if now, _ := voiceTarget(p.provider, v.Value); now != was {
				p.ranges = unknownRanges()
				return loadTTSInputsCmd(p.c, now)
			}
		}
	}
	return nil
}

func (p *Pane) speakKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys().Voices
	p.controlNote = ""
	switch {
	case key.Matches(msg, k.Edit):
		p.editing = true
		return p.text.Focus()
	case key.Matches(msg, k.Speak), key.Matches(msg, k.SpeakNow):
		return p.speak()
	case key.Matches(msg, k.PrevControl):
		p.control = (p.control - 1 + numControls) % numControls
	case key.Matches(msg, k.NextControl):
		p.control = (p.control + 1) % numControls
	case key.Matches(msg, k.Less):
		p.controlNote = p.settings.adjust(p.control, -1, p.ranges)
	case key.Matches(msg, k.More):
		p.controlNote = p.settings.adjust(p.control, 1, p.ranges)
	case key.Matches(msg, k.Reset):
		p.settings.reset(p.control)
	case key.Matches(msg, k.Transport):
		p.settings.Stream = !p.settings.Stream
	case key.Matches(msg, k.Pause):
		return p.togglePause()
	case key.Matches(msg, k.Save):
		return p.save()
	}
	return nil
}

func (p *Pane) listenKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys().Voices
	switch {
	case key.Matches(msg, k.OpenFile):
		p.picking = true
		return p.picker.Init()
	case key.Matches(msg, k.Microphone):
		if p.listen.recording && p.listen.stopRec != nil {
			p.listen.stopRec()
			p.listen.recording = false
			return nil
		}
		return p.recognise("")
	case key.Matches(msg, k.Recognise):
		if p.listen.path != "" && !p.listen.running {
			return p.recognise(p.listen.path)
		}
	case key.Matches(msg, k.Transport):
		p.listenMode = !p.listenMode
	case key.Matches(msg, k.Copy):
		if t := p.listenText(); t != "" {
			p.listen.copied = true
			return tea.SetClipboard(t)
		}
	}
	return nil
}

func (p *Pane) roundTripKey(msg tea.KeyPressMsg) tea.Cmd {
	k := p.c.Keys().Voices
	switch {
	case key.Matches(msg, k.Edit):
		p.rtEditing = true
		return p.rtInput.Focus()
	case key.Matches(msg, k.Run):
		return p.roundTrip()
	case key.Matches(msg, k.Copy):
		if p.rt.done {
			return tea.SetClipboard("spoken: " + p.rt.spoken + "\nheard: " + p.rt.heard)
		}
	case key.Matches(msg, k.Save):
		return p.save()
	}
	return nil
}

// --- voices ---

func (p *Pane) onVoices(msg voicesMsg) tea.Cmd {
	if msg.provider != p.provider {
		return nil
	}
	p.loading = false
	p.voicesErr = msg.err
	if msg.err != nil {
		return nil
	}
	p.list.SetItems(msg.voices)
	p.missing = msg.missing
	p.others = p.others[:0]
	for _, v := range msg.voices {
		if prov, _, ok := strings.Cut(v.Value, "/"); ok && !slices.Contains(p.others, prov) {
			p.others = append(p.others, prov)
		}
	}
	// Preselect the configured voice, and fill in its details.
	want := p.voice.Value
	if want == "" {
		want = api.DefaultVoice(msg.voices, api.Locale()).Value
	}
	if want != "" && p.list.Select(want) {
		p.voice, _ = p.list.Selected()
	} else if v, ok := p.list.Selected(); ok && p.voice.Value == "" {
		p.voice = v
	}
	return nil
}

// stopAll stops whatever runs in the current section; in Voices and
// Speak, that is whatever plays (a preview, speech or an audition).
func (p *Pane) stopAll() tea.Cmd {
	switch p.section {
	case SectionListen:
		if p.listen.running && p.listen.cancel != nil {
			p.listen.cancel()
		}
		return nil
	case SectionRoundTrip:
		if p.rt.running && p.rt.cancel != nil {
			p.rt.cancel()
		}
		return nil
	}
	p.stopAudition()
	return p.stopPlayback()
}
