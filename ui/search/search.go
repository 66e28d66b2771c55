// Package search is the Search pane: a query line with the most-used
// options one key away, the results with a preview, the answer on top and
// the images. It runs vendor_search (or whatever the runtime list says its
// inputs are) in a command and never blocks Update.
package search

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/ui/common"
	"hark/ui/form"
)

// Slug is the tool this pane shows richly.
const Slug = api.ToolSearch

// KeyMap holds the pane's bindings.
type KeyMap struct {
	Query, Run, Blur, Up, Down, Open, Copy, Preview,
	Depth, Topic, TimeRange, More, Fewer, Answer, Domains, Form, Cancel, Dictate key.Binding
}

// Keys are the pane's bindings.
var Keys = KeyMap{
	Query:     key.NewBinding(key.WithKeys("/", "i"), key.WithHelp("/", "edit query")),
	Dictate:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "dictate the query (say it aloud)")),
	Run:       key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "search")),
	Blur:      key.NewBinding(key.WithKeys("esc", "tab"), key.WithHelp("esc", "leave query")),
	Up:        key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "previous")),
	Down:      key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "next")),
	Open:      key.NewBinding(key.WithKeys("enter", "o"), key.WithHelp("enter/o", "open in Pages")),
	Copy:      key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL (OSC 52)")),
	Preview:   key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "preview")),
	Depth:     key.NewBinding(key.WithKeys("d"), key.WithHelp("d", "depth")),
	Topic:     key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "topic")),
	TimeRange: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "time range")),
	More:      key.NewBinding(key.WithKeys("+", "="), key.WithHelp("+/-", "max results")),
	Fewer:     key.NewBinding(key.WithKeys("-"), key.WithHelp("-", "fewer results")),
	Answer:    key.NewBinding(key.WithKeys("a"), key.WithHelp("a", "answer on/off")),
	Domains:   key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "domains")),
	Form:      key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "all options")),
	Cancel:    key.NewBinding(key.WithKeys("x", "ctrl+x"), key.WithHelp("x/ctrl+x", "cancel")),
}

func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Query, k.Open, k.Copy, k.Depth, k.Answer, k.Form}
}
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Query, k.Run, k.Blur, k.Cancel, k.Dictate},
		{k.Up, k.Down, k.Open, k.Copy, k.Preview},
		{k.Depth, k.Topic, k.TimeRange, k.More, k.Answer, k.Domains, k.Form},
	}
}

// Options are the quick options of the query line, by input field name.
// Each is shown only when the runtime tool has that field.
var quick = []string{"search_depth", "topic", "time_range", "max_results", "include_answer", "include_domains"}

type doneMsg struct {
	seq int
	out *api.SearchOutput
	err error
}

// rerunMsg runs the search again after the options changed, unless they
// changed again since (gen is then stale): pressing + three times makes
// one call, not three.
type rerunMsg struct{ gen int }

// rerunDelay is how long option keys must rest before the search re-runs.
const rerunDelay = 400 * time.Millisecond

// Pane is the Search pane.
type Pane struct {
	c        *common.Common
	query    textinput.Model
	domains  textinput.Model
	editDom  bool
	opts     map[string]any // quick option values set by the user
	inputs   map[string]any // the inputs of the results shown
	form     *form.Form
	out      *api.SearchOutput
	err      error
	cursor   int
	offset   int
	preview  bool
	progress common.Progress
	cancel   context.CancelFunc
	seq      int
	optGen   int // bumped on each option change, for rerunMsg
	// paletteRun is the run a palette form sent: its refusal goes back
	// to that form (see common.ToolFailedMsg), not to this pane's.
	paletteRun int
	width      int
	height     int
	listTop    int   // first screen row of the results, for clicks
	rowOf      []int // result index per list line, -1 for none
	ix         indexer
	dict       common.Dictator // ctrl+r: dictate the query
}

// New returns the Search pane with the query line focused.
func New(c *common.Common) *Pane {
	q := common.NewInput(c.Styles)
	q.Prompt = "› "
	q.Placeholder = "search the web…"
	if strings.HasPrefix(c.Gateway, "embedded") {
		// The embedded gateway searches its own index, not the web.
		q.Placeholder = "search the pages hark has read…"
	}
	d := common.NewInput(c.Styles)
	d.Prompt = "domains: "
	d.Placeholder = "example.com, docs.example.org"
	p := &Pane{c: c, query: q, domains: d, opts: map[string]any{}, progress: common.NewProgress(), ix: newIndexer(c)}
	p.query.Focus()
	return p
}

func (p *Pane) Title() string            { return "Search" }
func (p *Pane) Init() tea.Cmd            { return tea.Batch(textinput.Blink, p.ix.countCmd()) }
func (p *Pane) KeyMap() help.KeyMap      { return Keys }
func (p *Pane) Handles(slug string) bool { return slug == Slug }

// Capturing is true while the query, the domains or the form has focus.
func (p *Pane) Capturing() bool {
	return p.query.Focused() || p.editDom || p.form != nil || p.ix.typing()
}

// typing reports that a line of the pane has the cursor: the query, the
// domains or the index line.
func (p *Pane) typing() bool { return p.query.Focused() || p.editDom || p.ix.typing() }

// Query is what the query line holds.
func (p *Pane) Query() string { return p.query.Value() }

// LineEmpty reports that the query line has focus and nothing typed.
func (p *Pane) LineEmpty() bool {
	return p.query.Focused() && !p.editDom && p.form == nil && p.query.Value() == ""
}

// Result returns the search output shown, or nil.
func (p *Pane) Result() *api.SearchOutput { return p.out }

// Selected returns the index of the selected result.
func (p *Pane) Selected() int { return p.cursor }

func (p *Pane) SetSize(w, h int) {
	p.width, p.height = max(0, w), max(0, h)
	p.query.SetWidth(max(10, w-4))
	p.domains.SetWidth(max(10, w-12))
	// A line with no width shows only its placeholder's first letter
	// ("index: a"): every line is sized.
	p.ix.input.SetWidth(max(10, w-10))
	if p.form != nil {
		p.form.SetSize(w, h-2)
	}
}

func (p *Pane) tool() api.Tool {
	if t := p.c.Tool(Slug); t != nil {
		return *t
	}
	// Without a tool list, still offer the query itself.
	return api.Tool{Slug: Slug, Name: Slug, Inputs: []api.Field{{Name: "query", Type: "string", Required: true}}}
}

func (p *Pane) field(name string) *api.Field {
	t := p.c.Tool(Slug)
	if t == nil {
		return nil
	}
	return t.Input(name)
}

// value is a quick option's value: the user's choice or the default.
func (p *Pane) value(name string) any {
	if v, ok := p.opts[name]; ok {
		return v
	}
	if f := p.field(name); f != nil {
		return f.Default
	}
	return nil
}

func (p *Pane) Update(msg tea.Msg) (common.Pane, tea.Cmd) {
	if cmd, ok := p.ix.update(msg); ok {
		return p, cmd
	}
	switch msg := msg.(type) {
	case common.DictationMsg:
		text, ok, err := p.dict.Update(msg)
		if !ok {
			return p, nil
		}
		p.query.SetValue(text)
		p.query.CursorEnd()
		if err != nil {
			return p, func() tea.Msg { return common.ErrorMsg{Err: err} }
		}
		return p, nil
	case common.IndexMsg:
		p.query.Blur()
		return p, p.ix.open(msg.Sources)
	case doneMsg:
		if msg.seq != p.seq {
			return p, nil
		}
		p.progress.Stop()
		p.cancel = nil
		if msg.err != nil {
			// The old results belong to another query: clear them, so
			// the error is not read as this query's answer.
			p.err, p.out, p.cursor, p.offset = msg.err, nil, 0, 0
			report := func() tea.Msg { return common.ErrorMsg{Err: msg.err} }
			if form.Refused(msg.err) && msg.seq != p.paletteRun {
				// Reopen the form with what was sent, at the field
				// the gateway named. (A palette form's refusal goes
				// back to that form, in Tools.)
				f := p.newForm(true)
				if named, cmd := f.FailOn(msg.err); named {
					p.form = f
					f.SetSize(p.width, p.height-2)
					return p, tea.Batch(cmd, report)
				}
			}
			return p, report
		}
		p.err, p.out, p.cursor, p.offset = nil, msg.out, 0, 0
		// The index may have grown meanwhile (hark index in a shell).
		return p, p.ix.countCmd()
	case common.ShowKeptMsg:
		// A search reopened from the library: its results as they were.
		out, err := api.DecodeSearch(json.RawMessage(msg.Item.Output))
		if err != nil {
			return p, func() tea.Msg { return common.ErrorMsg{Err: fmt.Errorf("library item %d: %w", msg.Item.ID, err)} }
		}
		var inputs map[string]any
		json.Unmarshal([]byte(msg.Item.Inputs), &inputs)
		p.seq++ // a search still running must not replace these
		p.query.SetValue(msg.Item.Query)
		p.query.Blur()
		p.err, p.out, p.inputs, p.cursor, p.offset = nil, out, inputs, 0, 0
		p.useSent(inputs)
		return p, nil
	case rerunMsg:
		if msg.gen != p.optGen || p.form != nil || strings.TrimSpace(p.query.Value()) == "" {
			return p, nil
		}
		return p, p.search()
	case common.ToolsMsg:
		if msg.Err != nil {
			p.err = common.ToolListError(msg.Err)
		} else if p.err != nil && strings.HasPrefix(p.err.Error(), "tool list: ") {
			p.err = nil
		}
	case common.StylesChangedMsg:
		p.query.SetStyles(p.c.Styles.InputStyles())
		p.domains.SetStyles(p.c.Styles.InputStyles())
	case common.RunToolMsg:
		if q, ok := msg.Inputs["query"].(string); ok {
			p.query.SetValue(q)
		}
		p.query.Blur()
		cmd := p.run(msg.Tool.Slug, msg.Inputs)
		p.paletteRun = p.seq
		return p, cmd
	case tea.KeyPressMsg:
		return p, p.key(msg)
	case tea.PasteMsg:
		if p.form != nil {
			_, cmd := p.form.Update(msg)
			return p, cmd
		}
		var cmd tea.Cmd
		if p.editDom {
			p.domains, cmd = p.domains.Update(msg)
		} else if p.query.Focused() {
			p.query, cmd = p.query.Update(msg)
		}
		return p, cmd
	case tea.MouseClickMsg:
		if p.form == nil && msg.Y >= p.listTop && msg.Y-p.listTop < len(p.rowOf) {
			if i := p.rowOf[msg.Y-p.listTop]; i >= 0 {
				p.query.Blur()
				if i == p.cursor && msg.Button == tea.MouseLeft {
					return p, p.open()
				}
				p.cursor = i
			}
		}
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			p.move(-1)
		} else if msg.Button == tea.MouseWheelDown {
			p.move(1)
		}
	}
	var cmds []tea.Cmd
	cmds = append(cmds, p.progress.Update(msg))
	var cmd tea.Cmd
	p.query, cmd = p.query.Update(msg)
	cmds = append(cmds, cmd)
	return p, tea.Batch(cmds...)
}

func (p *Pane) key(msg tea.KeyPressMsg) tea.Cmd {
	if p.ix.active() {
		cmd := p.ix.key(msg)
		if !p.ix.active() {
			// Back from the index line or list: the query line has the
			// keys again, so what is typed next is a query, not options.
			return tea.Batch(cmd, p.query.Focus())
		}
		return cmd
	}
	if msg.String() == "ctrl+r" && p.form == nil && !p.editDom {
		// Dictation: the words heard fill the query line, live.
		cmd := p.dict.Toggle(p.c, p.query.Value())
		return tea.Batch(cmd, p.query.Focus())
	}
	if p.form != nil {
		act, cmd := p.form.Update(msg)
		switch act {
		case form.Cancel:
			p.form = nil
		case form.Submit:
			in := p.form.Inputs()
			p.form = nil
			if q, ok := in["query"].(string); ok {
				p.query.SetValue(q)
			}
			return p.run(Slug, in)
		}
		return cmd
	}
	if p.editDom {
		switch msg.String() {
		case "enter", "esc", "tab":
			p.editDom = false
			p.domains.Blur()
			before := fmt.Sprint(p.value("include_domains"))
			p.opts["include_domains"] = strings.Join(api.SplitList(p.domains.Value()), ",")
			return p.changed(fmt.Sprint(p.value("include_domains")) != before)
		}
		var cmd tea.Cmd
		p.domains, cmd = p.domains.Update(msg)
		return cmd
	}
	if p.query.Focused() {
		switch {
		case key.Matches(msg, Keys.Run):
			if strings.TrimSpace(p.query.Value()) == "" {
				return nil
			}
			p.query.Blur()
			return p.search()
		case key.Matches(msg, Keys.Blur):
			p.query.Blur()
			return nil
		case msg.String() == "ctrl+x":
			p.cancelRun()
			return nil
		}
		var cmd tea.Cmd
		p.query, cmd = p.query.Update(msg)
		return cmd
	}
	switch {
	case key.Matches(msg, Keys.Query):
		return p.query.Focus()
	case key.Matches(msg, Keys.Cancel):
		p.cancelRun()
	case key.Matches(msg, Keys.Up):
		p.move(-1)
	case key.Matches(msg, Keys.Down):
		p.move(1)
	case msg.String() == "pgdown":
		p.move(5)
	case msg.String() == "pgup":
		p.move(-5)
	case key.Matches(msg, Keys.Open):
		return p.open()
	case key.Matches(msg, Keys.Copy):
		if r := p.current(); r != nil {
			return common.CopyURL(r.URL)
		}
	case key.Matches(msg, Keys.Preview):
		p.preview = !p.preview
	case key.Matches(msg, Keys.Depth):
		return p.changed(p.cycle("search_depth"))
	case key.Matches(msg, Keys.Topic):
		return p.changed(p.cycle("topic"))
	case key.Matches(msg, Keys.TimeRange):
		return p.changed(p.cycle("time_range"))
	case key.Matches(msg, Keys.More):
		return p.changed(p.step("max_results", 1))
	case key.Matches(msg, Keys.Fewer):
		return p.changed(p.step("max_results", -1))
	case key.Matches(msg, Keys.Answer):
		if p.field("include_answer") != nil {
			on, _ := p.value("include_answer").(bool)
			p.opts["include_answer"] = !on
			return p.changed(true)
		}
	case key.Matches(msg, Keys.Domains):
		if p.field("include_domains") != nil {
			p.editDom = true
			if v, ok := p.value("include_domains").(string); ok {
				p.domains.SetValue(v)
			}
			return p.domains.Focus()
		}
	case key.Matches(msg, Keys.Form):
		p.form = p.newForm(true)
		p.form.SetSize(p.width, p.height-2)
	}
	return nil
}

// cancelKey is the key that cancels now: x, or ctrl+x while the query
// line has the cursor (x types there).
func (p *Pane) cancelKey() string {
	if p.query.Focused() {
		return "ctrl+x"
	}
	return "x"
}

// cancelRun stops the search under way, else the indexing.
func (p *Pane) cancelRun() {
	switch {
	case p.cancel != nil:
		p.cancel()
	case p.ix.running:
		p.ix.cancel()
	}
}

// changed re-runs the last search shortly after a quick option changed,
// so the results always match the options line.
func (p *Pane) changed(did bool) tea.Cmd {
	if !did || (p.out == nil && p.err == nil) {
		return nil
	}
	p.optGen++
	gen := p.optGen
	return tea.Tick(rerunDelay, func(time.Time) tea.Msg { return rerunMsg{gen: gen} })
}

// cycle moves an enum option to its next allowed value (from the runtime
// list), passing through "unset" when the field has no default.
// It reports whether the value changed.
func (p *Pane) cycle(name string) bool {
	f := p.field(name)
	if f == nil || len(f.Enum) == 0 {
		return false
	}
	vals := f.Enum
	if f.Default == nil && !f.Required {
		vals = append([]string{""}, vals...)
	}
	cur, _ := p.value(name).(string)
	next := vals[0]
	for i, v := range vals {
		if v == cur {
			next = vals[(i+1)%len(vals)]
		}
	}
	p.opts[name] = next
	return next != cur
}

// step moves a number option by d within its minimum and maximum; it
// reports whether the value changed.
func (p *Pane) step(name string, d float64) bool {
	f := p.field(name)
	if f == nil {
		return false
	}
	before := fmt.Sprint(p.value(name))
	cur, ok := toFloat(p.value(name))
	if !ok {
		cur = 5
		if f.Min != nil {
			cur = *f.Min
		}
	}
	cur += d
	if f.Min != nil {
		cur = max(cur, *f.Min)
	}
	if f.Max != nil {
		cur = min(cur, *f.Max)
	}
	p.opts[name] = cur
	return fmt.Sprint(cur) != before
}

func toFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case string:
		f, err := strconv.ParseFloat(v, 64)
		return f, err == nil
	}
	return 0, false
}

// newForm builds the full form of the tool, pre-filled with the query
// line and the quick options; withLast fills first what was last sent, so
// that reopening the form (f, or after a refusal) shows what the user
// typed there.
func (p *Pane) newForm(withLast bool) *form.Form {
	f := form.New(p.tool(), p.c.Styles)
	if withLast {
		f.SetInputs(p.inputs)
	}
	f.Set("query", p.query.Value())
	for k, v := range p.opts {
		f.Set(k, v)
	}
	return f
}

// search runs the query line through the generated form, so defaults and
// rules come from the runtime tool list.
func (p *Pane) search() tea.Cmd {
	f := p.newForm(false)
	if !f.Validate() {
		// A quick option cannot be invalid, but a field the gateway added
		// could be required: show the form with its inline errors.
		p.form = f
		f.SetSize(p.width, p.height-2)
		return nil
	}
	return p.run(Slug, f.Inputs())
}

func (p *Pane) run(slug string, inputs map[string]any) tea.Cmd {
	if p.cancel != nil {
		p.cancel()
	}
	ctx, cancel := context.WithCancel(context.Background())
	p.cancel = cancel
	p.seq++
	seq, client := p.seq, p.c.Client
	p.err = nil
	inputs = p.withoutDefaults(inputs)
	p.inputs = inputs
	p.useSent(inputs)
	return tea.Batch(p.progress.Start("searching", p.c.Now()), func() tea.Msg {
		defer cancel()
		res, err := common.Invoke(ctx, client, slug, inputs)
		if err != nil {
			return doneMsg{seq: seq, err: fmt.Errorf("search: %w", err)}
		}
		out, err := api.DecodeSearch(res.Output)
		return doneMsg{seq: seq, out: out, err: err}
	})
}

func (p *Pane) current() *api.SearchResult {
	if p.out == nil || p.cursor < 0 || p.cursor >= len(p.out.Results) {
		return nil
	}
	return &p.out.Results[p.cursor]
}

// open shows the result in Pages: a web page extracted (markdown, links
// kept, even when the search returned its text), a page the gateway
// indexed but cannot fetch (file:// pages of `hark index DIR`) with the
// text the index holds (see common.OpenResult).
func (p *Pane) open() tea.Cmd {
	r := p.current()
	if r == nil {
		return nil
	}
	u, find := r.URL, p.lastQuery()
	web := strings.HasPrefix(u, "http://") || strings.HasPrefix(u, "https://")
	if !web && r.RawContent != "" {
		read := []api.PageContent{common.PageWithTitle(api.PageContent{URL: u, RawContent: r.RawContent}, r.Title)}
		return func() tea.Msg { return common.OpenPagesMsg{Read: read, Find: find} }
	}
	return common.OpenResult(p.c, u, r.Title, p.inputs, find)
}

func (p *Pane) move(d int) {
	if p.out == nil || len(p.out.Results) == 0 {
		return
	}
	p.cursor = max(0, min(len(p.out.Results)-1, p.cursor+d))
}

// View draws the query line, the options, then the answer, results and
// images, with the preview at the right on wide terminals.
func (p *Pane) View() string {
	s := p.c.Styles
	if p.form != nil {
		head := s.Title.Render("Search · all options") + s.Dim.Render("  enter runs · esc closes")
		return common.Fit(head+"\n\n"+p.form.View(), p.width, p.height)
	}
	var top []string
	top = append(top, p.query.View())
	if p.editDom {
		top = append(top, p.domains.View())
	} else {
		top = append(top, p.optionsLine())
	}
	if p.progress.Active {
		top = append(top, p.progress.View(s, p.c.Now())+s.Dim.Render("  "+p.cancelKey()+" cancels"))
	}
	top = append(top, p.ix.lines(s, p.c.Now(), p.width, p.cancelKey())...)
	if p.dict.Active() {
		top = append(top, s.Warn.Render("● listening")+s.Dim.Render(" · speak the query · ctrl+r stops · enter searches"))
	}
	if p.err != nil {
		top = append(top, common.ErrorView(s, p.err, p.width))
	}
	header := strings.Join(top, "\n")
	hh := strings.Count(header, "\n") + 1
	bodyH := max(0, p.height-hh)
	p.listTop = hh
	if p.ix.listing {
		p.rowOf = nil
		return common.Fit(header+"\n"+p.ix.listView(s, p.width, bodyH), p.width, p.height)
	}
	if p.out == nil {
		p.rowOf = nil
		// The keys named are the ones that work in the focus shown.
		text := "/ (or i) puts the cursor in the query line. d t r +/- a D set options, f shows all. : runs any tool, ? lists every key."
		switch {
		case p.query.Focused():
			text = "Type a query and press enter; on the empty line the digits go to a pane. esc leaves the line; then d t r +/- a D set options, f shows all. : runs any tool, ? lists every key."
		case p.typing():
			text = "esc leaves the line; then / (or i) puts the cursor in the query line, d t r +/- a D set options, f shows all."
		}
		hint := s.Dim.Render(common.Wrap(text, p.width))
		if empty := p.ix.emptyHint(); empty != "" {
			hint = s.Warn.Render(common.Wrap(empty, p.width)) + "\n\n" + hint
		}
		return common.Fit(header+"\n\n"+hint, p.width, p.height)
	}
	wide := p.width >= 110
	listW := p.width
	if wide {
		listW = p.width * 55 / 100
	}
	if p.preview && !wide {
		p.rowOf = nil
		return common.Fit(header+"\n"+p.previewView(p.width, bodyH), p.width, p.height)
	}
	var answer []string
	if p.out.Answer != "" {
		lines := strings.Split(common.Wrap(p.out.Answer, max(10, listW-2)), "\n")
		maxA := max(2, bodyH/3)
		if len(lines) > maxA {
			lines = append(lines[:maxA-1], lines[maxA-1]+" …(p previews)")
		}
		answer = append(answer, s.Title.Render("Answer"))
		for _, l := range lines {
			answer = append(answer, s.Text.Render(l))
		}
		answer = append(answer, "")
	}
	p.listTop = hh + len(answer)
	list := p.listView(listW, max(0, bodyH-len(answer)))
	body := strings.Join(append(answer, list), "\n")
	if wide {
		body = common.JoinColumns(common.PadRight(common.Fit(body, listW, bodyH), listW), s.Dim.Render(" │ "), p.previewView(p.width-listW-3, bodyH))
	}
	return common.Fit(header+"\n"+body, p.width, p.height)
}

func (p *Pane) optionsLine() string {
	s := p.c.Styles
	var parts []string
	for _, name := range quick {
		f := p.field(name)
		if f == nil {
			continue
		}
		k, label := "", name
		switch name {
		case "search_depth":
			k, label = "d", "depth"
		case "topic":
			k, label = "t", "topic"
		case "time_range":
			k, label = "r", "time"
		case "max_results":
			k, label = "+-", "max"
		case "include_answer":
			k, label = "a", "answer"
		case "include_domains":
			k, label = "D", "domains"
		}
		v := p.value(name)
		var vs string
		switch v := v.(type) {
		case nil:
			vs = "any"
		case bool:
			vs = map[bool]string{true: "on", false: "off"}[v]
		case float64:
			vs = strconv.FormatFloat(v, 'f', -1, 64)
		case string:
			vs = v
			if v == "" {
				vs = "any"
			}
		default:
			vs = fmt.Sprint(v)
		}
		if d := p.sentDates(); name == "time_range" && d != "" && (v == nil || v == "") {
			vs = d // the dates the last search sent, not "any"
		}
		parts = append(parts, s.Key.Render(k)+" "+s.Label.Render(label)+" "+s.Text.Render(vs))
	}
	if len(parts) == 0 {
		if p.c.Tools == nil && p.err != nil {
			return s.Dim.Render("no tool list, so only the query is sent")
		}
		return s.Dim.Render("options appear once the tool list is loaded")
	}
	parts = append(parts, s.Key.Render("f")+s.Label.Render(" more"))
	if p.typing() {
		// While a line has the cursor these letters type: say how to
		// reach them.
		parts[0] = s.Dim.Render("esc, then ") + parts[0]
	}
	// Greedy wrap on option boundaries, so 80 columns show them all.
	sep := s.Dim.Render(" · ")
	var lines []string
	cur := ""
	for _, part := range parts {
		switch {
		case cur == "":
			cur = part
		case p.width > 0 && lipgloss.Width(cur)+3+lipgloss.Width(part) > p.width:
			lines = append(lines, cur)
			cur = part
		default:
			cur += sep + part
		}
	}
	return strings.Join(append(lines, cur), "\n")
}

// snippetLines is a result's snippet wrapped to width on at most rows
// lines, the last cut with "…" when there is more.
func snippetLines(content string, width, rows int) []string {
	text := common.OneLine(content)
	if rows <= 1 {
		return []string{common.Truncate(text, width)}
	}
	lines := strings.Split(common.Wrap(text, width), "\n")
	if len(lines) > rows {
		rest := strings.Join(lines[rows-1:], " ")
		lines = append(lines[:rows-1], common.Truncate(rest, width))
	}
	return lines
}

// listView draws the results, three or four lines each (two for the
// snippet where the pane has room for all of them), then the images.
func (p *Pane) listView(w, h int) string {
	s := p.c.Styles
	res := p.out.Results
	var lines []string
	var rowOf []int
	selStart, selEnd := 0, 0
	head := common.Count(len(res), "result")
	if p.out.ResponseTime > 0 {
		head += fmt.Sprintf(" in %.2fs", p.out.ResponseTime)
	}
	lines, rowOf = append(lines, s.Dim.Render(head)), append(rowOf, -1)
	// Snippets get two lines when every result still fits with them, as
	// a search engine's page shows them; one when the pane is short.
	snippetRows := 1
	if h >= 1+len(res)*4 {
		snippetRows = 2
	}
	lo, hi := scoreRange(res)
	for i, r := range res {
		if i == p.cursor {
			selStart = len(lines)
		}
		bar := "  "
		ts := s.Text.Bold(true)
		if i == p.cursor {
			bar, ts = s.Key.Render("▌ "), s.Selected
		}
		title := r.Title
		if title == "" {
			title = r.URL
		}
		lines = append(lines, bar+common.Link(ts.Render(common.Truncate(common.OneLine(title), w-2)), r.URL))
		date := ""
		if r.PublishedDate != "" {
			date = " · " + shortDate(r.PublishedDate)
		}
		// The score is never pushed off the row: the place gives way,
		// cut at its left so that a file's name stays.
		score := scoreBar(s, r.Score, lo, hi)
		room := max(4, w-2-ansi.StringWidth(date)-1-ansi.StringWidth(score))
		meta := s.Dim.Render(cutLeft(domain(r.URL), room)+date) + " " + score
		lines = append(lines, bar+meta)
		for _, l := range snippetLines(r.Content, w-2, snippetRows) {
			lines, rowOf = append(lines, bar+s.Text.Render(l)), append(rowOf, i)
		}
		rowOf = append(rowOf, i, i)
		if i == p.cursor {
			selEnd = len(lines)
		}
	}
	if len(res) == 0 {
		for _, l := range strings.Split(common.Wrap(p.noResults(), w), "\n") {
			lines, rowOf = append(lines, s.Dim.Render(l)), append(rowOf, -1)
		}
	}
	if n := len(p.out.Images); n > 0 {
		lines, rowOf = append(lines, "", s.Title.Render(fmt.Sprintf("Images (%d)", n))), append(rowOf, -1, -1)
		for _, im := range p.out.Images {
			d := im.Description
			if d == "" {
				d = path(im.URL)
			}
			lines = append(lines, "  "+common.Link(s.Text.Render(common.Truncate(common.OneLine(d), w-4)), im.URL))
			rowOf = append(rowOf, -1)
		}
	}
	if selEnd-p.offset > h {
		p.offset = selEnd - h
	}
	if selStart < p.offset {
		p.offset = max(0, selStart-1)
	}
	p.offset = max(0, min(p.offset, len(lines)-1))
	end := min(len(lines), p.offset+h)
	p.rowOf = rowOf[p.offset:end]
	return strings.Join(lines[p.offset:end], "\n")
}

func (p *Pane) previewView(w, h int) string {
	s := p.c.Styles
	r := p.current()
	if r == nil {
		return ""
	}
	var b []string
	b = append(b, s.Title.Render(common.Wrap(common.OneLine(r.Title), w)))
	b = append(b, common.Link(s.Dim.Render(common.Truncate(r.URL, w)), r.URL))
	meta := []string{fmt.Sprintf("score %.2f", r.Score)}
	if r.PublishedDate != "" {
		meta = append(meta, r.PublishedDate)
	}
	b = append(b, s.Dim.Render(strings.Join(meta, " · ")), "")
	if p.out.Answer != "" && !(p.width >= 110) {
		b = append(b, s.Title.Render("Answer"), common.Wrap(p.out.Answer, w), "")
	}
	b = append(b, common.Wrap(common.OneLine(r.Content), w))
	if r.RawContent != "" {
		// Only what fits is wrapped: a page body can be large, and View
		// runs on every frame.
		text := r.RawContent
		if limit := max(1, w*h); len(text) > limit {
			text = text[:limit]
		}
		b = append(b, "", s.Dim.Render("— page text (enter reads it all in Pages) —"), common.Wrap(text, w))
	}
	b = append(b, "", s.Dim.Render("enter opens in Pages · y copies the URL"))
	return common.Fit(strings.Join(b, "\n"), w, h)
}

// scoreBar draws a 0..1 relevance score as ten cells.
// scoreBar draws a result's score as a bar that compares it with the
// other results of the search (the best the longest, the lowest a fifth,
// in eighths of a cell: 1.00, 0.98, 0.97 and 0.95 differ), and the score
// itself beside it.
func scoreBar(s *common.Styles, score, lo, hi float64) string {
	const cells = 10
	frac := 1.0
	if hi-lo > 1e-9 {
		frac = 0.2 + 0.8*(max(lo, min(hi, score))-lo)/(hi-lo)
	}
	eighths := int(frac*cells*8 + 0.5)
	full, part := eighths/8, eighths%8
	bar := strings.Repeat("█", full)
	empty := cells - full
	if part > 0 {
		bar += string([]rune("▏▎▍▌▋▊▉")[part-1])
		empty--
	}
	return s.OK.Render(bar) + s.Dim.Render(strings.Repeat("·", empty)) + s.Dim.Render(fmt.Sprintf(" %.2f", score))
}

// scoreRange is the lowest and highest score of the results.
func scoreRange(res []api.SearchResult) (lo, hi float64) {
	for i, r := range res {
		if i == 0 || r.Score < lo {
			lo = r.Score
		}
		if i == 0 || r.Score > hi {
			hi = r.Score
		}
	}
	return lo, hi
}

// cutLeft shortens s to w cells from its left, "…" in front, so that the
// end (a file's name) stays.
func cutLeft(s string, w int) string {
	if ansi.StringWidth(s) <= w {
		return s
	}
	rs := []rune(s)
	for len(rs) > 0 && ansi.StringWidth(string(rs)) > w-1 {
		rs = rs[1:]
	}
	return "…" + string(rs)
}

func domain(u string) string {
	pu, err := url.Parse(u)
	if err == nil && pu.Scheme == "file" {
		return pu.Path // a page of `hark index DIR`: its path
	}
	if err != nil || pu.Host == "" {
		return u
	}
	return strings.TrimPrefix(pu.Host, "www.")
}

func path(u string) string {
	pu, err := url.Parse(u)
	if err != nil {
		return u
	}
	return pu.Host + pu.Path
}

// shortDate shows a date as YYYY-MM-DD when it parses, else as sent.
func shortDate(d string) string {
	for _, layout := range []string{time.RFC3339, time.RFC1123, time.RFC1123Z, "2006-01-02", "Mon, 2 Jan 2006 15:04:05 MST"} {
		if t, err := time.Parse(layout, d); err == nil {
			return t.Format("2006-01-02")
		}
	}
	return d
}

// lastQuery is the query the results on screen answer (the line may have
// been edited since).
func (p *Pane) lastQuery() string {
	if q, ok := p.inputs["query"].(string); ok {
		return q
	}
	if p.out != nil {
		return p.out.Query
	}
	return ""
}
