// Package search is the Search pane: a query line with the most-used
// options one key away, the results with a preview, the answer on top and
// the images. It runs vendor_search (or whatever the runtime list says its
// inputs are) in a command and never blocks Update.
package search

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/ui/common"
	"hark/ui/form"
)

// Slug is the tool this pane shows richly.
const Slug = api.ToolSearch

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
	runs     map[int]context.CancelFunc // the search under way (Calls)
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
	p := &Pane{c: c, query: q, domains: d, opts: map[string]any{}, progress: common.NewProgress(), runs: map[int]context.CancelFunc{}, ix: newIndexer(c)}
	p.query.Focus()
	return p
}

func (p *Pane) Title() string            { return "Search" }
func (p *Pane) Init() tea.Cmd            { return tea.Batch(textinput.Blink, p.ix.countCmd()) }
func (p *Pane) KeyMap() help.KeyMap      { return p.c.Keys().Search }
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
		if !p.calls().Done(msg.seq) {
			return p, nil
		}
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
		p.calls().Drop() // a search still running must not replace these
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
		case key.Matches(msg, p.c.Keys().Search.Run):
			if strings.TrimSpace(p.query.Value()) == "" {
				return nil
			}
			p.query.Blur()
			return p.search()
		case key.Matches(msg, p.c.Keys().Search.Blur):
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
	case key.Matches(msg, p.c.Keys().Search.Query):
		return p.query.Focus()
	case key.Matches(msg, p.c.Keys().Search.Cancel):
		p.cancelRun()
	case key.Matches(msg, p.c.Keys().Search.Up):
		p.move(-1)
	case key.Matches(msg, p.c.Keys().Search.Down):
		p.move(1)
	case msg.String() == "pgdown":
		p.move(5)
	case msg.String() == "pgup":
		p.move(-5)
	case key.Matches(msg, p.c.Keys().Search.Open):
		return p.open()
	case key.Matches(msg, p.c.Keys().Search.Copy):
		if r := p.current(); r != nil {
			return common.CopyURL(r.URL)
		}
	case key.Matches(msg, p.c.Keys().Search.Preview):
		p.preview = !p.preview
	case key.Matches(msg, p.c.Keys().Search.Depth):
		return p.changed(p.cycle("search_depth"))
	case key.Matches(msg, p.c.Keys().Search.Topic):
		return p.changed(p.cycle("topic"))
	case key.Matches(msg, p.c.Keys().Search.TimeRange):
		return p.changed(p.cycle("time_range"))
	case key.Matches(msg, p.c.Keys().Search.More):
		return p.changed(p.step("max_results", 1))
	case key.Matches(msg, p.c.Keys().Search.Fewer):
		return p.changed(p.step("max_results", -1))
	case key.Matches(msg, p.c.Keys().Search.Answer):
		if p.field("include_answer") != nil {
			on, _ := p.value("include_answer").(bool)
			p.opts["include_answer"] = !on
			return p.changed(true)
		}
	case key.Matches(msg, p.c.Keys().Search.Domains):
		if p.field("include_domains") != nil {
			p.editDom = true
			if v, ok := p.value("include_domains").(string); ok {
				p.domains.SetValue(v)
			}
			return p.domains.Focus()
		}
	case key.Matches(msg, p.c.Keys().Search.Form):
		p.form = p.newForm(true)
		p.form.SetSize(p.width, p.height-2)
	}
	return nil
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
	// The window is counted in lines (a result takes several): only the
	// cursor is List's.
	common.NewList(&p.cursor, nil, len(p.out.Results)).Move(d)
}
