// Package research is the Research pane: a question and a model, the call
// running in the background with its elapsed time, retries and a way to
// cancel, the report rendered with glamour in a scrollable view, its
// sources (each openable in Pages), saving as markdown, and the history of
// this session's research.
package research

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
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
	Running  bool
	SavedTo  string
	// Kept is the session's library item ID when it was reopened from the
	// library (0 for research run in this session).
	Kept int64
	// loading says the kept report is being read from the library: the
	// history lists kept reports by their titles and reads one when it
	// is opened.
	loading bool
	// states are the quotes' states after v (verify), by passage.
	states    []string
	verifying bool

	cancel        context.CancelFunc
	rendered      string
	renderedWidth int
	renderedStyle string
}

type doneMsg struct {
	id  int
	out *api.ResearchOutput
	err error
}

// RetryMsg reports a retry of a running research call.
type RetryMsg struct {
	ID    int
	Event api.RetryEvent
}

type renderedMsg struct {
	id          int
	width       int
	style, text string
}

type savedMsg struct {
	id   int
	path string
	err  error
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
	srcCursor int
	histCur   int
	md        *markdown.Renderer
	progress  common.Progress
	nextID    int
	width     int
	height    int
	saveAs    common.SaveAs
	saveFail  bool          // the last save failed: w offers its path again
	rd        common.Reader // find and contents in the report
	// The citation shown in its source (citations.go).
	citeCursor int
	srcScroll  common.Scroll
	srcRd      common.Reader
	srcPassage int
	srcState   string
	dict       common.Dictator // ctrl+r: speak the question
	aloud      common.Aloud    // R: read the report aloud
}

// New returns the Research pane.
func New(c *common.Common) *Pane {
	q := common.NewInput(c.Styles)
	q.Prompt = "? "
	q.Placeholder = "what do you want researched?"
	// An empty pane has nothing to do but ask: the question has the cursor,
	// so what the user types on arriving is the question, not commands.
	q.Focus()
	p := &Pane{c: c, question: q, md: markdown.NewRenderer(), progress: common.NewProgress()}
	return p
}

func (p *Pane) Title() string { return "Research" }

// Init lists earlier research from the library, so history (h)
// survives restarts. Only what the history shows is read (question and
// time); a report is read when it is opened (see load), so that a long
// history costs the start nothing.
func (p *Pane) Init() tea.Cmd {
	open := p.c.Library
	if open == nil {
		return nil
	}
	return func() tea.Msg {
		s, err := open()
		if err != nil {
			return keptMsg{err: err}
		}
		items, err := s.List(context.Background(), library.KindResearch, historyKept)
		return keptMsg{items: items, err: err}
	}
}

// historyKept is how many earlier reports history loads from the library.
const historyKept = 50

// keptMsg carries earlier research from the library, newest first, as
// listed (without reports).
type keptMsg struct {
	items []library.Item
	err   error
}

// loadedMsg is a kept report read from the library and decoded.
type loadedMsg struct {
	id    int
	out   *api.ResearchOutput
	model string
	err   error
}

// keptSession is the session of a kept report: the one history already
// has, or a new one whose report is read when it is opened.
func (p *Pane) keptSession(it library.Item) *Session {
	for _, s := range p.sessions {
		if s.Kept == it.ID {
			return s
		}
	}
	p.nextID++
	return &Session{ID: p.nextID, Question: it.Query, Started: it.Created, Finished: it.Created, Kept: it.ID}
}

// load reads a kept session's report in a command: from item when it
// holds the output (the Library view read it whole), else from the
// library.
func (p *Pane) load(s *Session, item *library.Item) tea.Cmd {
	if s.Kept == 0 || s.Out != nil || s.loading {
		return nil
	}
	s.loading, s.Err = true, nil
	id, kept, open := s.ID, s.Kept, p.c.Library
	return func() tea.Msg {
		var it library.Item
		switch {
		case item != nil && item.Output != "":
			it = *item
		case open == nil:
			return loadedMsg{id: id, err: fmt.Errorf("library item %d: no library", kept)}
		default:
			st, err := open()
			if err == nil {
				it, err = st.Get(context.Background(), kept)
			}
			if err != nil {
				return loadedMsg{id: id, err: fmt.Errorf("library item %d: %w", kept, err)}
			}
		}
		out, err := api.DecodeResearch(json.RawMessage(it.Output))
		if err != nil {
			return loadedMsg{id: id, err: fmt.Errorf("library item %d: the kept report cannot be read: %w", kept, err)}
		}
		var in struct{ Model string }
		json.Unmarshal([]byte(it.Inputs), &in)
		return loadedMsg{id: id, out: out, model: in.Model}
	}
}
func (p *Pane) KeyMap() help.KeyMap { return p.c.Keys().Research }

// keys are the pane's bindings, held in Common with every pane's.
func (p *Pane) keys() *common.ResearchKeys { return &p.c.Keys().Research }
func (p *Pane) Handles(slug string) bool   { return slug == Slug }
func (p *Pane) Capturing() bool {
	return p.question.Focused() || p.saveAs.Active() || p.rd.Finding()
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

// Background reports running research for the status bar.
func (p *Pane) Background() string {
	n, oldest := 0, time.Time{}
	for _, s := range p.sessions {
		if s.Running {
			n++
			if oldest.IsZero() || s.Started.Before(oldest) {
				oldest = s.Started
			}
		}
	}
	switch n {
	case 0:
		return ""
	case 1:
		return "research " + common.Elapsed(p.c.Now().Sub(oldest))
	}
	return fmt.Sprintf("%d researches, %s", n, common.Elapsed(p.c.Now().Sub(oldest)))
}

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

// models are the model choices from the runtime tool list.
func (p *Pane) models() []string { return p.c.Enum(Slug, "model") }

func (p *Pane) modelValue() string {
	if p.model != "" {
		return p.model
	}
	if t := p.c.Tool(Slug); t != nil {
		if f := t.Input("model"); f != nil {
			if d, ok := f.Default.(string); ok {
				return d
			}
		}
	}
	return ""
}

func (p *Pane) Update(msg tea.Msg) (common.Pane, tea.Cmd) {
	switch msg := msg.(type) {
	case doneMsg:
		s := p.byID(msg.id)
		if s == nil {
			return p, nil
		}
		s.Running, s.Finished, s.cancel = false, p.c.Now(), nil
		p.syncProgress()
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
	case sourceTextMsg:
		return p, p.showPassage(msg)
	case verifiedMsg:
		if s := p.byID(msg.id); s != nil {
			s.states, s.verifying = msg.states, false
			n := map[string]int{}
			for _, st := range msg.states {
				n[st]++
			}
			text := fmt.Sprintf("verified: %d stand, %d moved, %d gone", n[api.PassageStands], n[api.PassageMoved], n[api.PassageGone])
			return p, func() tea.Msg { return common.NoticeMsg{Text: text} }
		}
		return p, nil
	case renderedMsg:
		if s := p.byID(msg.id); s != nil {
			s.rendered, s.renderedWidth, s.renderedStyle = msg.text, msg.width, msg.style
			if s == p.current {
				p.setReport(s)
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
		return p, func() tea.Msg { return common.NoticeMsg{Text: "saved " + path} }
	case common.AloudMsg:
		return p, p.aloud.Update(msg, &p.scroll)
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
		// Earlier reports go before this session's, oldest first.
		var earlier []*Session
		for i := len(msg.items) - 1; i >= 0; i-- {
			if s := p.keptSession(msg.items[i]); !slices.Contains(p.sessions, s) {
				earlier = append(earlier, s)
			}
		}
		p.sessions = append(earlier, p.sessions...)
		return p, nil
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
		return p, tea.Batch(p.load(s, &msg.Item), p.render(s))
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

func (p *Pane) byID(id int) *Session {
	for _, s := range p.sessions {
		if s.ID == id {
			return s
		}
	}
	return nil
}

func (p *Pane) syncProgress() {
	for _, s := range p.sessions {
		if s.Running {
			return
		}
	}
	p.progress.Stop()
}

func (p *Pane) key(msg tea.KeyPressMsg) tea.Cmd {
	if msg.String() == "ctrl+r" && !p.saveAs.Active() && !p.rd.Finding() {
		// Dictation: the words heard fill the question line, live.
		p.focus = focusQuestion
		cmd := p.dict.Toggle(p.c, p.question.Value())
		return tea.Batch(cmd, p.question.Focus())
	}
	if p.saveAs.Active() {
		path, cmd := p.saveAs.Key(msg)
		if path != "" {
			return p.save(p.current, path)
		}
		return cmd
	}
	if p.question.Focused() {
		switch {
		case key.Matches(msg, p.keys().Run):
			q := strings.TrimSpace(p.question.Value())
			if q == "" {
				return nil
			}
			p.question.Blur()
			return p.start(q, p.modelValue(), nil)
		case key.Matches(msg, p.keys().Leave):
			p.question.Blur()
			p.focus = focusReport
			return nil
		case msg.String() == "ctrl+o":
			p.cycleModel()
			return nil
		case msg.String() == "ctrl+x":
			p.cancelCurrent()
			return nil
		case key.Matches(msg, p.keys().Save):
			return p.offerSave()
		}
		var cmd tea.Cmd
		p.question, cmd = p.question.Update(msg)
		return cmd
	}
	if p.rd.Finding() {
		return p.rd.FindKey(msg, &p.scroll)
	}
	if p.rd.TOCOpen() {
		p.rd.TOCKey(msg, &p.scroll)
		return nil
	}
	if msg.String() == "q" && p.ShowingDocument() {
		p.close()
		return nil
	}
	if p.focus == focusSource {
		// The source's text has the keys: scrolling, n/N, esc back.
		if msg.String() == "esc" || key.Matches(msg, p.keys().Citations) {
			p.focus = focusCitations
		} else {
			p.sourceTextKey(msg)
		}
		return nil
	}
	reading := p.focus == focusReport && p.current != nil && p.current.Out != nil
	if cmd, ok := p.aloud.Key(msg, p.c, &p.scroll); ok {
		return cmd
	}
	switch {
	case reading && key.Matches(msg, p.keys().Aloud):
		return p.aloud.Start(p.c, p.current.Out.Content, &p.scroll)
	case reading && key.Matches(msg, p.keys().Find):
		return p.rd.StartFind(p.c.Styles)
	case reading && key.Matches(msg, p.keys().NextMatch) && p.rd.Status() != "":
		p.rd.Next(&p.scroll, msg.String() == "N")
	case reading && key.Matches(msg, p.keys().TOC):
		if !p.rd.OpenTOC(p.current.Out.Content, &p.scroll) {
			return func() tea.Msg { return common.NoticeMsg{Text: "this report has no headings"} }
		}
	case reading && key.Matches(msg, p.keys().Edit):
		return common.Edit(Markdown(p.current), reportName(p.current))
	case key.Matches(msg, p.keys().Ask):
		return p.Focus()
	case key.Matches(msg, p.keys().Model):
		p.cycleModel()
	case key.Matches(msg, p.keys().Cancel):
		p.cancelCurrent()
	case key.Matches(msg, p.keys().Sources):
		if p.focus == focusSources {
			p.focus = focusReport
		} else if p.current != nil && p.current.Out != nil && len(p.current.Out.Sources) > 0 {
			p.focus = focusSources
		}
	case key.Matches(msg, p.keys().Citations):
		if p.focus == focusCitations {
			p.focus = focusReport
		} else if p.current != nil && p.current.Out != nil && len(p.current.Out.Passages) > 0 {
			p.focus, p.citeCursor = focusCitations, min(p.citeCursor, len(p.current.Out.Passages)-1)
		} else {
			return func() tea.Msg { return common.NoticeMsg{Text: "this report records no citations"} }
		}
	case key.Matches(msg, p.keys().Verify) && p.current != nil && !p.current.verifying:
		return p.verify(p.current)
	case key.Matches(msg, p.keys().History):
		if p.focus == focusHistory {
			p.focus = focusReport
		} else if len(p.sessions) > 0 {
			p.focus = focusHistory
		}
	case key.Matches(msg, p.keys().Save):
		return p.offerSave()
	case msg.String() == "esc":
		p.focus = focusReport
	default:
		switch p.focus {
		case focusCitations:
			return p.citationsKey(msg)
		case focusSources:
			return p.sourceKey(msg)
		case focusHistory:
			return p.historyKey(msg)
		}
		p.scrollKey(msg)
	}
	return nil
}

func (p *Pane) cancelCurrent() {
	if s := p.current; s != nil && s.Running && s.cancel != nil {
		s.cancel()
	}
}

// offerSave opens the save-as line for the report shown.
func (p *Pane) offerSave() tea.Cmd {
	s := p.current
	if s == nil || s.Out == nil {
		return nil
	}
	dir := p.c.OutputDir
	if dir == "" {
		dir = "."
	}
	return p.saveAs.Open(filepath.Join(dir, reportName(s)), p.saveFail, p.c.Styles)
}

func (p *Pane) scrollKey(msg tea.KeyPressMsg) {
	switch {
	case key.Matches(msg, p.keys().Up):
		p.scroll.ScrollBy(-1)
	case key.Matches(msg, p.keys().Down):
		p.scroll.ScrollBy(1)
	case key.Matches(msg, p.keys().PageUp):
		p.scroll.ScrollBy(-p.scroll.Page())
	case key.Matches(msg, p.keys().PageDown):
		p.scroll.ScrollBy(p.scroll.Page())
	case key.Matches(msg, p.keys().Top):
		p.scroll.Top()
	case key.Matches(msg, p.keys().Bottom):
		p.scroll.Bottom()
	}
}

func (p *Pane) sourceKey(msg tea.KeyPressMsg) tea.Cmd {
	src := p.current.Out.Sources
	switch {
	case key.Matches(msg, p.keys().Up):
		p.srcCursor = max(0, p.srcCursor-1)
	case key.Matches(msg, p.keys().Down):
		p.srcCursor = min(len(src)-1, p.srcCursor+1)
	case key.Matches(msg, p.keys().Run):
		if p.srcCursor < len(src) {
			// A web page is extracted; a file:// page of an indexed
			// folder shows the text the index holds.
			sc, q := src[p.srcCursor], p.current.Question
			find := sc.Title
			if find == "" {
				find = q
			}
			return common.OpenResult(p.c, sc.URL, sc.Title, map[string]any{"query": find}, q)
		}
	case key.Matches(msg, p.keys().OpenSource):
		if p.srcCursor < len(src) {
			return common.Browse(src[p.srcCursor].URL)
		}
	case msg.String() == "y":
		if p.srcCursor < len(src) {
			return common.CopyURL(src[p.srcCursor].URL)
		}
	}
	return nil
}

func (p *Pane) historyKey(msg tea.KeyPressMsg) tea.Cmd {
	switch {
	case key.Matches(msg, p.keys().Up):
		p.histCur = max(0, p.histCur-1)
	case key.Matches(msg, p.keys().Down):
		p.histCur = min(len(p.sessions)-1, p.histCur+1)
	case key.Matches(msg, p.keys().Run):
		// History lists newest first.
		s := p.sessions[len(p.sessions)-1-p.histCur]
		p.show(s)
		p.focus = focusReport
		return tea.Batch(p.load(s, nil), p.render(s))
	}
	return nil
}

func (p *Pane) cycleModel() {
	ms := p.models()
	if len(ms) == 0 {
		return
	}
	cur := p.modelValue()
	next := ms[0]
	for i, m := range ms {
		if m == cur {
			next = ms[(i+1)%len(ms)]
		}
	}
	p.model = next
}

// show puts a session's report in the pane; the report, not the
// question line, then takes the keys.
// setReport shows s's report, finding the last find again in it.
func (p *Pane) setReport(s *Session) {
	p.scroll.SetContent(p.reportText(s))
	p.rd.Refresh(&p.scroll)
}

func (p *Pane) show(s *Session) {
	p.rd.Reset()
	if p.current != s {
		p.aloud.Stop(&p.scroll)
	}
	p.current = s
	p.question.Blur()
	p.srcCursor = 0
	p.setReport(s)
	p.scroll.Top()
}

// start runs a research call in the background; the other panes stay
// usable, and each retry is reported through Common.Send.
func (p *Pane) start(q, model string, inputs map[string]any) tea.Cmd {
	if q == "" && inputs == nil {
		return nil
	}
	p.nextID++
	s := &Session{ID: p.nextID, Question: q, Model: model, Started: p.c.Now(), Running: true}
	p.sessions = append(p.sessions, s)
	p.show(s)
	p.focus = focusReport
	if inputs == nil {
		inputs = map[string]any{"input": q}
		if model != "" {
			inputs["model"] = model
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	s.cancel = cancel
	id, client, send := s.ID, p.c.Client, p.c.Send
	if send != nil {
		ctx = api.WithRetryObserver(ctx, func(ev api.RetryEvent) { send(RetryMsg{ID: id, Event: ev}) })
	}
	var cmds []tea.Cmd
	if !p.progress.Active {
		cmds = append(cmds, p.progress.Start("researching", s.Started))
	}
	cmds = append(cmds, func() tea.Msg {
		defer cancel()
		res, err := common.Invoke(ctx, client, Slug, inputs)
		if err != nil {
			return doneMsg{id: id, err: fmt.Errorf("research: %w", err)}
		}
		out, err := api.DecodeResearch(res.Output)
		return doneMsg{id: id, out: out, err: err}
	})
	return tea.Batch(cmds...)
}

// reportText is the report as shown now. Until the first rendering
// arrives (it is made in a command) a placeholder stands in: wrapping a
// long report here would be expensive work in Update.
func (p *Pane) reportText(s *Session) string {
	if s == nil || s.Out == nil {
		return ""
	}
	if s.rendered != "" {
		return s.rendered
	}
	if s.Out.Content == "" {
		return p.c.Styles.Dim.Render("The report is empty.")
	}
	return p.c.Styles.Dim.Render("rendering the report…")
}

// render renders the report in a command; the renderer is cached by width
// and a finished rendering is kept per session, width and style.
func (p *Pane) render(s *Session) tea.Cmd {
	if s == nil || s.Out == nil || s.Out.Content == "" {
		return nil
	}
	style, w := markdown.Style(p.c.Styles), markdown.WrapWidth(p.width)
	if s.renderedWidth == w && s.renderedStyle == style {
		return nil
	}
	md, content, id := p.md, s.Out.Content, s.ID
	return func() tea.Msg {
		out, err := md.Render(content, style, w)
		if err != nil {
			out = common.Wrap(content, w)
		}
		return renderedMsg{id: id, width: w, style: style, text: out}
	}
}

// reportName is the file name offered for a session's report.
func reportName(s *Session) string { return "research-" + s.Started.Format("20060102-150405") + ".md" }

// save writes the report with its question and sources as markdown to
// path, a new file (a folder gets the offered name inside it).
func (p *Pane) save(s *Session, path string) tea.Cmd {
	if s == nil || s.Out == nil {
		return nil
	}
	body, name, id := Markdown(s), reportName(s), s.ID
	write := common.WriteNew
	if p.saveAs.Unedited() {
		write = common.WriteFresh // the offered name: numbered past a file that exists
	}
	return func() tea.Msg {
		path, err := write(path, name, []byte(body))
		if err != nil {
			return savedMsg{id: id, err: fmt.Errorf("save report: %w", err)}
		}
		return savedMsg{id: id, path: path}
	}
}

// Markdown is a session's report as a markdown document.
func Markdown(s *Session) string {
	if s.Out == nil {
		return ""
	}
	meta := []string{}
	if s.Model != "" {
		meta = append(meta, "model "+s.Model)
	}
	if s.Out.RequestID != "" {
		meta = append(meta, "request "+s.Out.RequestID)
	}
	return s.Out.Document(s.Question, strings.Join(meta, " · "))
}

// View draws the question line, the status of the current research, then
// the report, the sources or the history.
func (p *Pane) View() string {
	st := p.c.Styles
	var top []string
	top = append(top, p.question.View())
	if p.dict.Active() {
		top = append(top, st.Warn.Render("● listening")+st.Dim.Render(" · speak the question · ctrl+r stops · enter researches"))
	}
	// The keys named are the ones that work now: while the question has
	// the cursor, letters type.
	typing := p.question.Focused()
	mk, hk := "M", "h"
	if typing {
		mk, hk = "ctrl+o", "esc, then h"
	}
	ml := st.Key.Render(mk) + " " + st.Label.Render("model") + " "
	if ms := p.models(); len(ms) > 0 {
		m := p.modelValue()
		if m == "" {
			m = "default"
		}
		ml += st.Text.Render(m) + st.Dim.Render(" ("+strings.Join(ms, "/")+")")
	} else {
		ml += st.Dim.Render("gateway default")
	}
	if n := len(p.sessions); n > 0 {
		ml += st.Dim.Render(" · ") + st.Key.Render(hk) + st.Label.Render(fmt.Sprintf(" history (%d)", n))
	}
	top = append(top, common.Truncate(ml, p.width))
	s := p.current
	if s != nil {
		top = append(top, p.statusLine(s))
		if s.Err != nil {
			top = append(top, common.ErrorView(st, s.Err, p.width))
		}
	}
	if p.saveAs.Active() {
		top = append(top, p.saveAs.View(st, p.width))
	}
	header := strings.Join(top, "\n")
	hh := len(strings.Split(header, "\n"))
	bodyH := max(0, p.height-hh)
	var body string
	switch {
	case p.focus == focusHistory:
		body = p.historyView(bodyH)
	case s == nil:
		hint := "i (or /) puts the cursor in the question. Research runs in the background; switch panes meanwhile. M changes the model."
		if typing {
			hint = "Type a question and press enter; on the empty line the digits go to a pane. Research runs in the background; switch panes meanwhile. ctrl+o changes the model; esc leaves the line, then h shows the history."
		}
		body = st.Dim.Render(common.Wrap(hint, p.width))
	case s.loading:
		body = st.Dim.Render("reading the report from the library…")
	case p.focus == focusSources:
		body = p.sourcesView(bodyH)
	case p.focus == focusCitations && s.Out != nil:
		body = p.citationsView(bodyH)
	case p.focus == focusSource && s.Out != nil:
		body = p.sourceView(bodyH)
	case s.Out != nil && p.rd.TOCOpen():
		body = p.rd.TOCView(st, p.width, bodyH)
	case s.Out != nil:
		p.scroll.SetHeight(max(0, bodyH-1))
		cites := ""
		if len(s.Out.Passages) > 0 {
			cites = " · c citations · v verify"
		}
		foot := st.Dim.Render(fmt.Sprintf("%d%% · j/k scroll · / find · T contents · s sources (%d)%s · ctrl+s save", p.scroll.Percent(), len(s.Out.Sources), cites))
		if typing {
			foot = st.Dim.Render(fmt.Sprintf("%d%% · ctrl+s save · esc leaves the question: then j/k scroll · / find · s sources (%d)", p.scroll.Percent(), len(s.Out.Sources)))
		}
		if f := p.aloud.Status(); f != "" {
			foot = st.Warn.Render("▶ ") + st.Dim.Render(f)
		} else if f := p.rd.Status(); f != "" {
			foot = st.Dim.Render(fmt.Sprintf("%d%% · ", p.scroll.Percent()) + f + " · s sources · ctrl+s save")
		}
		if p.rd.Finding() {
			foot = p.rd.FindView()
		}
		body = common.Fit(p.scroll.View(), p.width, max(0, bodyH-1)) + "\n" + common.Truncate(foot, p.width)
	}
	return common.Fit(header+"\n"+body, p.width, p.height)
}

func (p *Pane) statusLine(s *Session) string {
	st := p.c.Styles
	cancelKey := "x"
	if p.question.Focused() {
		cancelKey = "ctrl+x"
	}
	q := common.Truncate(common.OneLine(s.Question), max(10, p.width/2))
	var line string
	switch {
	case s.Running:
		// One spinner serves every running research; the time is this one's.
		line = p.progress.Spinner(st) + " researching “" + q + "”… " + st.Dim.Render(common.Elapsed(p.c.Now().Sub(s.Started))) + st.Dim.Render("  "+cancelKey+" cancels")
	case s.Err != nil:
		line = st.Err.Render("✗ ") + q
	default:
		line = st.OK.Render("✓ ") + q + st.Dim.Render(" · "+common.Elapsed(s.Finished.Sub(s.Started)))
		if s.Kept != 0 {
			line = st.OK.Render("✓ ") + q + st.Dim.Render(" · from the library, kept "+s.Started.Local().Format("Jan 02 15:04"))
		}
		if s.SavedTo != "" {
			line += st.Dim.Render(" · saved " + s.SavedTo)
		}
	}
	if n := len(s.Retries); n > 0 {
		last := s.Retries[n-1]
		line += st.Warn.Render(fmt.Sprintf(" · retry %d (waited %s: %s)", n, last.Wait.Round(time.Millisecond), common.Explain(last.Err).Message))
	}
	return common.Truncate(line, p.width)
}

func (p *Pane) sourcesView(h int) string {
	st := p.c.Styles
	src := p.current.Out.Sources
	lines := []string{st.Title.Render(fmt.Sprintf("Sources (%d)", len(src))) + st.Dim.Render("  enter opens in Pages · o in $BROWSER · y copies · s back")}
	off := max(0, p.srcCursor-(h-2))
	for i := off; i < len(src) && len(lines) < h; i++ {
		t := src[i].Title
		if t == "" {
			t = src[i].URL
		}
		cur, ts := "  ", st.Text
		if i == p.srcCursor {
			cur, ts = st.Key.Render("▌ "), st.Selected
		}
		lines = append(lines, common.Truncate(cur+fmt.Sprintf("%d. ", i+1)+common.Link(ts.Render(common.OneLine(t)), src[i].URL)+st.Dim.Render("  "+src[i].URL), p.width))
	}
	return strings.Join(lines, "\n")
}

func (p *Pane) historyView(h int) string {
	st := p.c.Styles
	lines := []string{st.Title.Render("History") + st.Dim.Render("  enter shows · h back")}
	for i := 0; i < len(p.sessions) && len(lines) < h; i++ {
		s := p.sessions[len(p.sessions)-1-i]
		state := st.OK.Render("✓")
		switch {
		case s.Running:
			state = st.Warn.Render("…")
		case s.Err != nil:
			state = st.Err.Render("✗")
		}
		cur, ts := "  ", st.Text
		if i == p.histCur {
			cur, ts = st.Key.Render("▌ "), st.Selected
		}
		when := s.Started.Format("15:04")
		if y, m, d := s.Started.Date(); y != p.c.Now().Year() || m != p.c.Now().Month() || d != p.c.Now().Day() {
			when = s.Started.Format("Jan 02")
		}
		lines = append(lines, common.Truncate(cur+state+" "+st.Dim.Render(when+" ")+ts.Render(common.OneLine(s.Question)), p.width))
	}
	return strings.Join(lines, "\n")
}

// ReadingAloud reports that the report is being read aloud.
func (p *Pane) ReadingAloud() bool { return p.aloud.Active() }

// ReadingSpot is the first line highlighted for the sentence read aloud
// (-1 when none).
func (p *Pane) ReadingSpot() int { return p.scroll.Spot() }
