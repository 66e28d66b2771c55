package voices

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/ui/common"
)

// Layout: one line of section tabs, the section, one status line.
func (p *Pane) contentHeight() int { return max(0, p.height-2) }

func (p *Pane) listWidth() int { return min(max(p.width*2/5, 18), 40) }

func (p *Pane) listHeight() int { return max(0, p.contentHeight()-2) }

func (p *Pane) textHeight() int { return min(max(p.contentHeight()/4, 2), 8) }

func (p *Pane) layout() {
	p.filter.SetWidth(max(1, p.listWidth()-2))
	p.text.SetWidth(max(4, p.width-2))
	p.text.SetHeight(p.textHeight())
	p.rtInput.SetWidth(max(4, p.width-8))
	p.picker.SetHeight(max(1, p.contentHeight()-7)) // under the Listen header, title and directory
	p.deckPicker.SetHeight(max(1, p.contentHeight()-5))
	p.stage.SetSize(p.width, p.contentHeight())
}

func (p *Pane) styles() *common.Styles {
	if p.c.Styles == nil {
		p.c.Styles = common.NewStyles(true, true)
	}
	return p.c.Styles
}

// View renders the pane into exactly width x height cells.
func (p *Pane) View() string {
	if p.width <= 0 || p.height <= 0 {
		return ""
	}
	var body string
	ch := p.contentHeight()
	switch p.section {
	case SectionVoices:
		body = p.viewVoices(p.width, ch)
	case SectionSpeak:
		body = p.viewSpeak(p.width, ch)
	case SectionListen:
		body = p.viewListen(p.width, ch)
	case SectionDemo:
		body = p.viewDemo(p.width, ch)
	default:
		body = p.viewRoundTrip(p.width, ch)
	}
	return fit(p.viewTabs()+"\n"+fit(body, p.width, ch)+"\n"+p.viewStatus(), p.width, p.height)
}

func (p *Pane) viewTabs() string {
	st := p.styles()
	parts := make([]string, 0, numSections)
	for s := range numSections {
		if s == p.section {
			parts = append(parts, st.TabActive.Render(s.String()))
		} else {
			parts = append(parts, st.TabIdle.Render(s.String()))
		}
	}
	left := strings.Join(parts, " ")
	right := st.Dim.Render("[ ] sections")
	gap := p.width - ansi.StringWidth(left) - ansi.StringWidth(right)
	if gap < 1 {
		return left
	}
	return left + strings.Repeat(" ", gap) + right
}

func (p *Pane) viewStatus() string {
	st := p.styles()
	var parts []string
	if len(p.others) > 0 {
		parts = append(parts, p.provider+" + "+strings.Join(p.others, ", "))
	} else {
		parts = append(parts, p.provider)
	}
	if len(p.missing) > 0 {
		parts = append(parts, "not listed: "+strings.Join(p.missing, ", "))
	}
	switch {
	case p.loading:
		parts = append(parts, "loading voices…")
	case p.voicesErr == nil:
		parts = append(parts, plural(p.list.Total(), "voice"))
	}
	if p.voice.Value != "" {
		parts = append(parts, "voice "+p.voice.Value)
	}
	if ps := p.play; ps != nil && ps.outDesc != "" {
		parts = append(parts, "output "+ps.outDesc)
	}
	return st.StatusBar.Render(ansi.Truncate(strings.Join(parts, " · "), p.width, "…"))
}

// --- Voices ---

func (p *Pane) viewVoices(w, h int) string {
	// With no sound device, where the audio went is said under both
	// columns, across the whole width: the path is never cut.
	if n := p.outNotice(p.voicesOut(), w); n != "" {
		if lines := strings.Count(n, "\n") + 1; h-lines-1 >= 6 {
			return p.voiceColumns(w, h-lines-1) + "\n\n" + n
		}
	}
	return p.voiceColumns(w, h)
}

// voiceColumns is the voice list and the selected voice's details.
func (p *Pane) voiceColumns(w, h int) string {
	st := p.styles()
	lw := p.listWidth()
	var head string
	switch {
	case p.filtering:
		head = p.filter.View()
	case p.list.Filter() != "":
		head = st.Label.Render("filter ") + p.list.Filter() + st.Dim.Render(fmt.Sprintf("  %d/%d", p.list.Len(), p.list.Total()))
	default:
		head = st.Dim.Render("/ filter · " + p.list.Order().String())
	}
	var left string
	switch {
	case p.loading && p.list.Total() == 0:
		left = st.Dim.Render("Loading the voices of " + p.provider + "…")
	case p.voicesErr != nil:
		left = st.Err.Render(wrap("Could not list voices: "+p.voicesErr.Error(), lw)) + "\n" + st.Dim.Render("ctrl+r to retry")
	default:
		left = p.list.Render(st, lw, max(0, h-2), !p.filtering)
	}
	leftCol := fit(head+"\n\n"+left, lw, h)
	rw := max(0, w-lw-3)
	sep := strings.TrimSuffix(strings.Repeat(st.Dim.Render("│")+"\n", h), "\n")
	return lipgloss.JoinHorizontal(lipgloss.Top, leftCol, " ", sep, " ", fit(p.viewDetails(rw, h), rw, h))
}

// viewDetails is the selected voice's details, its preview and the
// audition panel, in h lines: when they do not all fit, the sample
// sentence goes first, then the hint, so the audition's takes stay.
func (p *Pane) viewDetails(w, h int) string {
	st := p.styles()
	v, ok := p.list.Selected()
	if !ok {
		return st.Dim.Render("No voice selected.")
	}
	var head strings.Builder
	head.WriteString(st.Title.Render(ansi.Truncate(orDash(v.Name), w, "…")) + "\n\n")
	field := func(label, value string) {
		head.WriteString(st.Label.Render(fmt.Sprintf("%-9s", label)) + " " + ansi.Truncate(orDash(value), max(0, w-10), "…") + "\n")
	}
	field("code", v.Value)
	field("language", v.Language)
	field("scene", v.Scene)
	if about := voiceAbout(v); about != "" {
		field("voice", about)
	}
	sample := "\n" + st.Label.Render("sample") + "\n" + wrap(quote(sampleSentence(v.Language)), w) + "\n"
	hintText := "p preview · enter speak with this voice · space mark for an audition"
	if _, ok := p.samples[v.Value]; ok {
		hintText = "p preview (cached) · enter speak with this voice · space mark for an audition"
	}
	hint := "\n" + st.Dim.Render(wrap(hintText, w)) + "\n"
	var tail strings.Builder
	if ps := p.play; ps != nil && ps.preview && ps.voice == v.Value {
		tail.WriteString("\n" + wrap(p.playLine(ps), w) + "\n")
	}
	if a := p.auditionView(w); a != "" {
		tail.WriteString("\n" + a + "\n")
	}
	lines := func(parts ...string) int { return strings.Count(strings.Join(parts, ""), "\n") }
	switch {
	case lines(head.String(), sample, hint, tail.String()) <= h:
		return head.String() + sample + hint + tail.String()
	case lines(head.String(), hint, tail.String()) <= h:
		return head.String() + hint + tail.String()
	}
	return head.String() + tail.String()
}

// voiceAbout is what the list says of a voice beyond the spec's fields:
// "female · 32000 Hz", or "" when it says nothing.
func voiceAbout(v api.Voice) string {
	var parts []string
	if v.Gender != "" {
		parts = append(parts, v.Gender)
	}
	if v.SampleRate > 0 {
		parts = append(parts, fmt.Sprintf("%d Hz", v.SampleRate))
	}
	return strings.Join(parts, " · ")
}

// --- Speak ---

func (p *Pane) viewSpeak(w, h int) string {
	st := p.styles()
	// The meter, the file notice and the save line come first: the text
	// shows only the lines left over, so at 80x24 nothing of what just
	// happened is cut off.
	var bottom strings.Builder
	if ps := p.play; ps != nil && !ps.preview {
		bottom.WriteString(p.viewMeter(ps, w))
	} else {
		bottom.WriteString(st.Dim.Render("Nothing played yet."))
	}
	bottom.WriteString(p.saveLine(w))
	bottomLines := strings.Count(bottom.String(), "\n") + 1

	var controls strings.Builder
	for c := range numControls {
		label := fmt.Sprintf("  %-12s", c.label())
		ls := st.Label
		if c == p.control && !p.editing {
			label = fmt.Sprintf("> %-12s", c.label())
			ls = st.FocusLabel
		}
		controls.WriteString(ls.Render(label) + p.settings.value(c, p.ranges) + "\n")
	}
	if p.controlNote != "" {
		controls.WriteString(st.Warn.Render(wrap(p.controlNote, w)) + "\n")
	}
	controlLines := strings.Count(controls.String(), "\n")

	// voice line, hint line, controls, bottom; then blank lines and text
	// lines as room allows.
	spare := h - 2 - controlLines - bottomLines
	textLines := min(p.textHeight(), max(1, spare-2))
	spare -= textLines

	var b strings.Builder
	voice := st.Dim.Render("none: choose one in Voices")
	if p.voice.Value != "" {
		voice = orDash(p.voice.Name)
		if p.voice.Value != p.voice.Name {
			voice += st.Dim.Render(" (" + p.voice.Value + ")")
		}
	}
	b.WriteString(st.Label.Render("voice ") + voice + "\n")
	if p.editing {
		b.WriteString(p.text.View() + "\n")
	} else {
		lines := strings.Split(wrap(p.text.Value(), max(1, w-2)), "\n")
		if len(lines) > textLines {
			lines = lines[:textLines]
			lines[len(lines)-1] = ansi.Truncate(lines[len(lines)-1], max(1, w-3), "") + "…"
		}
		for _, line := range lines {
			b.WriteString(st.Dim.Render("│ ") + line + "\n")
		}
		spare += textLines - len(lines)
	}
	b.WriteString(st.Dim.Render("e edit · enter speak · x stop · space pause · w save") + "\n")
	if spare >= 2 && h >= 22 {
		b.WriteString("\n")
		spare--
	}
	b.WriteString(controls.String())
	if spare >= 1 {
		b.WriteString("\n")
	}
	b.WriteString(bottom.String())
	return b.String()
}

// playLine is the one-line state of a playback.
func (p *Pane) playLine(ps *playState) string {
	st := p.styles()
	what := "speech"
	if ps.preview {
		what = "preview"
	}
	how := "REST"
	if ps.stream {
		how = "stream"
	}
	if ps.cached {
		how = "cached"
	}
	played, playing := "played", "playing"
	if ps.outKind == "file" {
		// Nothing is heard: say what really happened.
		played, playing = "saved to a file", "being saved to a file"
	}
	switch {
	case ps.err != nil:
		return st.Err.Render("✗ " + what + " failed: " + ps.err.Error())
	case ps.done && ps.stopped:
		return st.Warn.Render("■ " + what + " stopped")
	case ps.done:
		line := "✓ " + what + " " + played + " (" + how + ")"
		if ps.first > 0 {
			line += " · first audio " + dur(ps.first)
		}
		return st.OK.Render(line)
	case ps.paused:
		return st.Warn.Render("‖ " + what + " paused")
	case ps.received == 0:
		return st.Dim.Render("… " + what + ": waiting for the first audio (" + how + ")")
	}
	return st.Selected.Render("▶ " + what + " " + playing + " (" + how + ")")
}

func (p *Pane) viewMeter(ps *playState, w int) string {
	st := p.styles()
	var b strings.Builder
	b.WriteString(wrap(p.playLine(ps), w) + "\n")
	bw := max(4, min(w-28, 48))
	b.WriteString(st.Label.Render("level    ") + waveform(ps.levels, ps.level, bw) + "\n")

	sink, playedLabel := "device", "played   "
	if ps.outKind == "file" {
		sink, playedLabel = "file", "written  "
	}
	first := "–"
	if ps.first > 0 {
		first = dur(ps.first)
		if ps.stats.FirstChunkToDevice > 0 {
			first += st.Dim.Render("  (to " + sink + " " + dur(ps.stats.FirstChunkToDevice) + ")")
		}
	}
	b.WriteString(st.Label.Render("first audio ") + first + "\n")

	recvBytes := max(ps.stats.BytesReceived, ps.received)
	total := ps.stats.Received
	if total <= 0 {
		total = ps.stats.Played
	}
	b.WriteString(st.Label.Render("received ") + bar(1, 1, bw, recvBytes > 0) + " " + bytesText(recvBytes) + "  " + secs(ps.stats.Received) + "\n")
	b.WriteString(st.Label.Render(playedLabel) + bar(float64(ps.stats.Played), float64(total), bw, true) + " " + bytesText(ps.stats.BytesPlayed) + "  " + secs(ps.stats.Played) + "\n")
	under := fmt.Sprintf("%d", ps.stats.Underruns)
	if ps.stats.Underruns > 0 {
		under = st.Warn.Render(under + " (" + dur(ps.stats.UnderrunTime) + " of silence)")
	}
	b.WriteString(st.Label.Render("underruns ") + under)
	if n := p.fileNotice(ps, w); n != "" {
		b.WriteString("\n" + n)
	}
	return b.String()
}

// fileNotice says why nothing is heard (the file sink was chosen, this is
// an SSH session without audio forwarding, or no device could be opened)
// and where the audio went: the path on a line of its own, never wrapped,
// so that it can be read and copied whole (y copies it).
func (p *Pane) fileNotice(ps *playState, w int) string {
	if ps.err != nil {
		return ""
	}
	return p.outNotice(fileOut{kind: ps.outKind, reason: ps.outReason, savedTo: ps.savedTo}, w)
}

func (p *Pane) outNotice(o fileOut, w int) string {
	if w <= 0 {
		return ""
	}
	return common.SoundNotice(p.styles(), o.kind, o.reason, o.savedTo, w)
}

// voicesOut is where the Voices section's last playback (a preview or an
// audition) went, when no sound device played it.
func (p *Pane) voicesOut() fileOut {
	if p.aud.out.kind != "" && p.aud.id > p.play.idOrZero() {
		return p.aud.out
	}
	if ps := p.play; ps != nil && ps.preview && ps.done && ps.err == nil {
		return fileOut{kind: ps.outKind, reason: ps.outReason, savedTo: ps.savedTo}
	}
	return fileOut{}
}

func (ps *playState) idOrZero() int {
	if ps == nil {
		return 0
	}
	return ps.id
}

// savedPath is the saved audio file y copies in the current section.
func (p *Pane) savedPath() string {
	switch p.section {
	case SectionVoices:
		return p.voicesOut().savedTo
	case SectionListen:
		return ""
	}
	if p.play != nil {
		return p.play.savedTo
	}
	return ""
}

// saveLine is the save-as prompt while it is open, else what the last
// save did, on lines of their own after a newline; "" when none.
func (p *Pane) saveLine(w int) string {
	st := p.styles()
	switch {
	case p.saveAs.Active():
		return "\n" + p.saveAs.View(st, w)
	case p.saveErr != nil:
		return "\n" + st.Err.Render(wrap(p.saveErr.Error(), w))
	case p.savedTo != "":
		// Never wrapped mid-path: on a line of its own when it does not
		// fit beside the words, so it can be copied.
		if lipgloss.Width("saved to "+p.savedTo) <= w {
			return "\n" + st.OK.Render("saved to ") + p.savedTo
		}
		return "\n" + st.OK.Render("saved to") + "\n" + p.savedTo
	}
	return ""
}

// --- Listen ---

func (p *Pane) viewListen(w, h int) string {
	st := p.styles()
	var b strings.Builder
	ls := p.listen
	mode := func(stream bool) string {
		if stream {
			return "stream (partial results live)"
		}
		return "REST"
	}
	transport := mode(p.listenMode)
	if ls.running && ls.stream != p.listenMode {
		// t was pressed during a run: say which one runs now.
		transport = mode(ls.stream) + st.Dim.Render("  · the next run: "+mode(p.listenMode))
	}
	b.WriteString(st.Label.Render("transport ") + transport + "\n")
	src := st.Dim.Render("none yet: o open a file · m record from the microphone")
	switch {
	case ls.id == 0 && !ls.done:
	case ls.path == "":
		src = "microphone"
	default:
		src = filepath.Base(ls.path) + st.Dim.Render("  "+filepath.Dir(ls.path))
	}
	b.WriteString(st.Label.Render("audio     ") + src + "\n")
	lang := languageCode(p.voice.Language)
	b.WriteString(st.Label.Render("language  ") + orDash(lang) + st.Dim.Render("  (of the selected voice)") + "\n\n")

	if p.picking {
		b.WriteString(st.Title.Render("Choose an audio file") + st.Dim.Render("  (wav, mp3, pcm 16 kHz, opus · h up · esc cancel)") + "\n")
		b.WriteString(st.Dim.Render(ansi.TruncateLeft(p.picker.CurrentDirectory, max(0, ansi.StringWidth(p.picker.CurrentDirectory)-w+1), "…")) + "\n")
		b.WriteString(p.picker.View())
		return b.String()
	}
	room := h - 4 // under the three lines above and their blank line
	switch {
	case ls.recording:
		b.WriteString(st.Err.Render("● recording") + fmt.Sprintf(" %.1f s", ls.seconds) + st.Dim.Render("  m stop and recognise · x cancel") + "\n")
	case ls.running && !ls.stream:
		b.WriteString(st.Dim.Render("… recognising by REST · x cancel") + "\n")
	case ls.running:
		progress := fmt.Sprintf("… recognising by stream: %s so far", plural(ls.frames, "result"))
		if ls.total > 0 {
			progress += fmt.Sprintf(", %.1f of %.1f s of audio sent", ls.seconds, ls.total)
		}
		b.WriteString(st.Dim.Render(progress+" · x cancel") + "\n")
	case ls.err != nil:
		// What to do comes first in hark's errors; the tail of a long one
		// (ALSA's and PulseAudio's own words) is cut at four lines.
		lines := strings.Split(wrap("✗ "+ls.err.Error(), w), "\n")
		if len(lines) > 4 {
			lines = append(lines[:3], ansi.Truncate(lines[3], max(1, w-1), "")+"…")
		}
		b.WriteString(st.Err.Render(strings.Join(lines, "\n")) + "\n")
	case ls.done:
		b.WriteString(st.OK.Render("✓ recognised") + "\n")
	}
	room--
	if ls.running {
		// The newest words matter most while they arrive: show the tail.
		var lines []string
		if text := strings.Join(ls.finals, " "); text != "" {
			lines = strings.Split(wrap(text, w), "\n")
		}
		if ls.partial != "" {
			for _, l := range strings.Split(wrap(ls.partial+" …", w), "\n") {
				lines = append(lines, st.Dim.Render(l))
			}
		}
		if room > 0 && len(lines) > room {
			lines = append([]string{st.Dim.Render("…")}, lines[len(lines)-room+1:]...)
		}
		if len(lines) > 0 {
			b.WriteString(strings.Join(lines, "\n") + "\n")
		}
	}
	if ls.done {
		b.WriteString("\n" + st.Title.Render("Text") + "\n")
		room -= 3 // the blank line, the title and the facts below
		if ls.text == "" {
			b.WriteString(st.Dim.Render("(nothing recognised)") + "\n")
		} else {
			lines := strings.Split(wrap(ls.text, w), "\n")
			if room > 0 && len(lines) > room {
				more := len(lines) - room + 1
				lines = append(lines[:room-1], st.Dim.Render(fmt.Sprintf("… %s more (c copies the whole text)", plural(more, "line"))))
			}
			b.WriteString(strings.Join(lines, "\n") + "\n")
		}
		var facts []string
		if ls.confidence > 0 {
			facts = append(facts, "confidence "+confidence(ls.confidence))
		}
		if ls.durationMs > 0 {
			facts = append(facts, "audio "+secs(time.Duration(ls.durationMs)*time.Millisecond))
		}
		if ls.copied {
			facts = append(facts, "copied to the clipboard (OSC 52)")
		} else if ls.text != "" {
			facts = append(facts, "c copy")
		}
		if ls.path != "" {
			facts = append(facts, "enter again")
		}
		b.WriteString(st.Dim.Render(strings.Join(facts, " · ")))
	}
	return b.String()
}

// --- Round trip ---

func (p *Pane) viewRoundTrip(w, h int) string {
	st := p.styles()
	var b strings.Builder
	b.WriteString(st.Label.Render("voice ") + orDash(p.voice.Value) + st.Dim.Render("  speak it, then recognise that audio") + "\n")
	if p.rtEditing {
		b.WriteString(st.FocusLabel.Render("text  ") + p.rtInput.View() + "\n")
	} else {
		b.WriteString(st.Label.Render("text  ") + ansi.Truncate(p.rtInput.Value(), max(0, w-6), "…") + "\n")
	}
	b.WriteString(st.Dim.Render("e edit · enter run · c copy · w save audio") + "\n\n")

	rt := p.rt
	colW := max(4, (w-3)/2)
	spoken, heard := rt.spoken, rt.heard
	switch {
	case rt.running:
		heard = st.Dim.Render("… speaking and listening")
	case rt.err != nil:
		heard = st.Err.Render(rt.err.Error())
	case rt.done && heard == "":
		heard = st.Dim.Render("(nothing recognised)")
	}
	// The columns are as tall as the longer text (within the room left
	// under them for the facts and the save line), so the facts sit right
	// under the texts.
	wrapped := func(text string) int { return strings.Count(wrap(text, colW), "\n") + 2 }
	boxH := min(max(3, wrapped(spoken), wrapped(heard)), max(3, h-7))
	col := func(title, text string) string {
		return fit(st.Title.Render(title)+"\n"+wrap(text, colW), colW, boxH)
	}
	sep := strings.TrimSuffix(strings.Repeat(st.Dim.Render("│")+"\n", boxH), "\n")
	b.WriteString(lipgloss.JoinHorizontal(lipgloss.Top, col("Spoken", spoken), " ", sep, " ", col("Heard", heard)) + "\n")
	if rt.done && rt.err == nil {
		facts := []string{fmt.Sprintf("words matched %.0f%%", 100*wordMatch(rt.spoken, rt.heard))}
		if rt.confidence > 0 {
			facts = append(facts, "confidence "+confidence(rt.confidence))
		}
		facts = append(facts, "speak "+dur(rt.ttsTime), "listen "+dur(rt.sttTime))
		b.WriteString(st.OK.Render(strings.Join(facts, " · ")))
	}
	b.WriteString(p.saveLine(w))
	return b.String()
}
