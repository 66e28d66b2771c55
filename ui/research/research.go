// Package research is the Research pane: a question and a model, the call
// running in the background with its elapsed time, retries and a way to
// cancel, the report rendered with glamour in a scrollable view, its
// sources (each openable in Pages), saving as markdown, and the history of
// this session's research.
package research

import (
	"context"
	"fmt"
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
	"hark/ui/markdown"
)

// Slug is the tool this pane shows.
const Slug = api.ToolResearch

// Session is one research question of this session.
type Session struct {
	ID       int
	Question string
	Model    string
	Started  time.Time
	Finished time.Time
	Out      *api.ResearchOutput
	Err      error
	Retries  []api.RetryEvent
	// Progress are the steps the running research reported: with a
	// model, the written sentences with their checks, as they end.
	Progress []string
	Running  bool
	SavedTo  string
	// Kept is the session's library item ID when it was reopened from the
	// library (0 for research run in this session).
	Kept int64
	// keptAs is the library item this session's research was kept as,
	// found when the history read the library again.
	keptAs int64
	// loading says the kept report is being read from the library: the
	// history lists kept reports by their titles and reads one when it
	// is opened.
	loading bool
	// checks are the quotes as v (verify) found them, by passage, and
	// live the sources' texts it read.
	checks    []api.PassageCheck
	live      map[string]string
	verifying bool

	rendered      string
	renderedWidth int
	renderedStyle string
}

type focus int

const (
	focusQuestion focus = iota
	focusReport
	focusSources
	focusHistory
	focusCitations // the report's quotes
	focusSource    // a source's text at the quote chosen
)

// Pane is the Research pane.
type Pane struct {
	c         *common.Common
	question  textinput.Model
	model     string
	focus     focus
	sessions  []*Session
	current   *Session
	scroll    common.Scroll
	srcCursor int // the sources list (sourceList)
	srcOff    int
	histCur   int // the history's cursor (historyList)
	histOff   int // the first history row shown
	md        *markdown.Renderer
	progress  common.Progress
	nextID    int                        // the last session's ID, and the last call's number
	runs      map[int]context.CancelFunc // the calls under way (see calls)
	width     int
	height    int
	saveAs    common.SaveAs
	saveFail  bool          // the last save failed: w offers its path again
	rd        common.Reader // find and contents in the report
	// The citation shown in its source (citations.go).
	citeCursor int // the citations list (citeList)
	citeOff    int
	srcScroll  common.Scroll
	srcRd      common.Reader
	srcPassage int
	srcState   string
	srcFrom    string          // fromPage or fromKept
	dict       common.Dictator // ctrl+r: speak the question
	aloud      common.Aloud    // R: read the report aloud
	mark       common.Marker   // H: select a passage and highlight it
	openAt     string          // a highlight's quote to open the report at
}

// New returns the Research pane.
func New(c *common.Common) *Pane {
	q := common.NewInput(c.Styles)
	q.Prompt = "? "
	q.Placeholder = "what do you want researched?"
	// An empty pane has nothing to do but ask: the question has the cursor,
	// so what the user types on arriving is the question, not commands.
	q.Focus()
	p := &Pane{c: c, question: q, md: markdown.NewRenderer(), progress: common.NewProgress(), runs: map[int]context.CancelFunc{}}
	return p
}

func (p *Pane) Title() string { return "Research" }

func (p *Pane) KeyMap() help.KeyMap { return p.c.Keys().Research }

// keys are the pane's bindings, held in Common with every pane's.
func (p *Pane) keys() *common.ResearchKeys { return &p.c.Keys().Research }

func (p *Pane) Handles(slug string) bool { return slug == Slug }

func (p *Pane) Capturing() bool {
	return p.question.Focused() || p.saveAs.Active() || p.rd.Finding() || p.mark.Selecting()
}

// Claims takes H from the root (its "previous pane") while a report is
// read: H selects a passage to highlight there, as the key line says.
func (p *Pane) Claims(msg tea.KeyPressMsg) bool {
	if !key.Matches(msg, p.keys().Highlight) || p.current == nil || p.current.Out == nil {
		return false
	}
	return p.focus == focusReport || p.focus == focusSource
}

// OwnsKeys reports that a path is being typed into the save-as prompt:
// it takes every key (see common.TextAreaPane).
func (p *Pane) OwnsKeys() bool { return p.saveAs.Active() }

// LineEmpty reports that the question line has focus and nothing typed.
func (p *Pane) LineEmpty() bool { return p.question.Focused() && p.question.Value() == "" }

// Sessions returns this session's research, oldest first.
func (p *Pane) Sessions() []*Session { return p.sessions }

// Current returns the research shown, or nil.
func (p *Pane) Current() *Session { return p.current }

// ShowingDocument reports that a report, its sources or citations, or a
// citation's source text is shown: q closes it, a step at a time (see
// close), and quits only from the empty pane or the history list (see
// common.DocumentShower).
func (p *Pane) ShowingDocument() bool {
	if p.question.Focused() || p.current == nil || p.current.Out == nil {
		return false
	}
	switch p.focus {
	case focusReport, focusSources, focusCitations, focusSource:
		return true
	}
	return false
}

// close takes q: a citation's source back to the citations, the sources
// or citations back to the report, and the report off the pane (it stays
// in the history, h).
func (p *Pane) close() {
	switch p.focus {
	case focusSource:
		p.focus = focusCitations
	case focusSources, focusCitations:
		p.focus = focusReport
	default:
		p.aloud.Stop(&p.scroll)
		p.rd.Reset()
		p.current, p.focus = nil, focusReport
	}
}

// Focus puts the cursor in the question line.
func (p *Pane) Focus() tea.Cmd { p.focus = focusQuestion; return p.question.Focus() }

func (p *Pane) SetSize(w, h int) {
	p.width, p.height = max(0, w), max(0, h)
	p.question.SetWidth(max(10, w-4))
}

func (p *Pane) Update(msg tea.Msg) (common.Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case doneMsg:
		s := p.byID(msg.id)
		if s == nil {
			return p, nil
		}
		s.Running, s.Finished = false, p.c.Now()
		// Every session's result is taken (calls): Done ends the call and
		// stops the spinner after the last one.
		p.calls().Done(msg.id)
		if msg.err != nil {
			s.Err = msg.err
			return p, func() tea.Msg { return common.ErrorMsg{Err: msg.err} }
		}
		s.Out = msg.out
		if s.Out.Status != "" && s.Out.Status != api.ResearchCompleted {
			s.Err = fmt.Errorf("research %s: status %s", s.Out.RequestID, s.Out.Status)
		}
		if s == p.current {
			p.setReport(s)
			p.focus = focusReport
		}
		return p, p.render(s)
	case RetryMsg:
		if s := p.byID(msg.ID); s != nil {
			s.Retries = append(s.Retries, msg.Event)
		}
		return p, nil
	case ProgressMsg:
		if s := p.byID(msg.ID); s != nil && s.Running {
			s.Progress = append(s.Progress, msg.Msg)
		}
		return p, nil
	case sourceTextMsg:
		return p, p.showPassage(msg)
	case verifiedMsg:
		if s := p.byID(msg.id); s != nil {
			s.checks, s.live, s.verifying = msg.checks, msg.texts, false
			notice := verifiedNotice(msg.checks)
			return p, func() tea.Msg { return notice }
		}
		return p, nil
	case renderedMsg:
		if s := p.byID(msg.id); s != nil {
			s.rendered, s.renderedWidth, s.renderedStyle = msg.text, msg.width, msg.style
			if s == p.current {
				p.setReport(s)
				p.goToHighlight()
			}
		}
		return p, nil
	case savedMsg:
		p.saveFail = msg.err != nil
		if msg.err != nil {
			return p, func() tea.Msg { return common.ErrorMsg{Err: msg.err} }
		}
		if s := p.byID(msg.id); s != nil {
			s.SavedTo = msg.path
		}
		path := msg.path
		text := "saved " + common.HomeShort(path)
		return p, func() tea.Msg { return common.NoticeMsg{Text: text} }
	case common.AloudMsg:
		return p, p.aloud.Update(msg, &p.scroll)
	case common.HighlightsMsg:
		return p, p.highlights(msg)
	case common.DictationMsg:
		text, ok, err := p.dict.Update(msg)
		if !ok {
			return p, nil
		}
		p.question.SetValue(text)
		p.question.CursorEnd()
		if err != nil {
			return p, func() tea.Msg { return common.ErrorMsg{Err: err} }
		}
		return p, nil
	case keptMsg:
		if msg.err != nil {
			return p, func() tea.Msg { return common.ErrorMsg{Err: fmt.Errorf("research history: %w", msg.err)} }
		}
		p.mergeKept(msg.items)
		return p, nil
	case common.LibraryChangedMsg:
		// This process kept something; another one's keeps are read when
		// the pane is shown (Shown).
		return p, p.Init()
	case loadedMsg:
		s := p.byID(msg.id)
		if s == nil {
			return p, nil
		}
		s.loading = false
		if msg.err != nil {
			s.Err = msg.err
			return p, func() tea.Msg { return common.ErrorMsg{Err: msg.err} }
		}
		s.Out, s.Model = msg.out, msg.model
		if s == p.current {
			p.setReport(s)
		}
		return p, p.render(s)
	case common.ShowKeptMsg:
		s := p.keptSession(msg.Item)
		if !slices.Contains(p.sessions, s) {
			p.sessions = append(p.sessions, s)
		}
		p.question.SetValue(s.Question)
		p.show(s)
		p.focus = focusReport
		p.openAt = msg.At
		p.goToHighlight()
		return p, tea.Batch(p.load(s, &msg.Item), p.render(s), p.loadHighlights(s))
	case common.RunToolMsg:
		q, _ := msg.Inputs["input"].(string)
		m, _ := msg.Inputs["model"].(string)
		// The line shows the question being researched, not the last
		// one typed.
		p.question.SetValue(q)
		p.question.Blur()
		return p, p.start(q, m, msg.Inputs)
	case tea.WindowSizeMsg, common.StylesChangedMsg:
		p.question.SetStyles(p.c.Styles.InputStyles())
		return p, p.render(p.current)
	case tea.KeyPressMsg:
		return p, p.key(msg)
	case tea.PasteMsg:
		if p.saveAs.Active() {
			return p, p.saveAs.Update(msg)
		}
		if p.question.Focused() {
			var cmd tea.Cmd
			p.question, cmd = p.question.Update(msg)
			return p, cmd
		}
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			p.scroll.ScrollBy(-3)
		} else if msg.Button == tea.MouseWheelDown {
			p.scroll.ScrollBy(3)
		}
	case tea.MouseClickMsg:
		if msg.Y == 0 {
			p.focus = focusQuestion
			return p, p.question.Focus()
		}
	}
	return p, tea.Batch(p.progress.Update(msg), p.saveAs.Update(msg))
}

// ReadingAloud reports that the report is being read aloud.
func (p *Pane) ReadingAloud() bool { return p.aloud.Active() }

// ReadingSpot is the first line highlighted for the sentence read aloud
// (-1 when none).
func (p *Pane) ReadingSpot() int { return p.scroll.Spot() }
