package common

import "charm.land/bubbles/v2/key"

// KeyMaps holds every pane's bindings as values, like the styles: the
// panes match keys and draw their help from the same bindings, and no
// package keeps them in a variable.
type KeyMaps struct {
	Root     RootKeys
	Search   SearchKeys
	Pages    PagesKeys
	Tools    ToolsKeys
	Library  LibraryKeys
	Form     FormKeys
	Voices   VoicesKeys
	Research ResearchKeys
}

// DefaultKeyMaps returns hark's bindings.
func DefaultKeyMaps() KeyMaps {
	return KeyMaps{
		Root:     defaultRootKeys(),
		Search:   defaultSearchKeys(),
		Pages:    defaultPagesKeys(),
		Tools:    defaultToolsKeys(),
		Library:  defaultLibraryKeys(),
		Form:     DefaultFormKeys(),
		Voices:   defaultVoicesKeys(),
		Research: defaultResearchKeys(),
	}
}

// Keys returns the bindings held in c, the defaults unless SetKeys gave
// others. Called in Update and View only.
func (c *Common) Keys() *KeyMaps {
	if c.keys == nil {
		k := DefaultKeyMaps()
		c.keys = &k
	}
	return c.keys
}

// SetKeys replaces the bindings.
func (c *Common) SetKeys(k KeyMaps) { c.keys = &k }

// RootKeys are the root's bindings. They apply only when no text input of the
// active pane has focus (ctrl+c always quits).
type RootKeys struct {
	Next, Prev, Pane, Help, Palette, Quit, ForceQuit key.Binding
}

func defaultRootKeys() RootKeys {
	return RootKeys{
		Next:      key.NewBinding(key.WithKeys("tab", "L"), key.WithHelp("tab", "next pane")),
		Prev:      key.NewBinding(key.WithKeys("shift+tab", "H"), key.WithHelp("shift+tab", "previous pane")),
		Pane:      key.NewBinding(key.WithKeys("1", "2", "3", "4", "5", "6", "7", "8", "9"), key.WithHelp("1-9", "go to pane")),
		Help:      key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Palette:   key.NewBinding(key.WithKeys(":", "ctrl+k"), key.WithHelp(": ctrl+k", "run a tool")),
		Quit:      key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "quit (the Pages reader: close)")),
		ForceQuit: key.NewBinding(key.WithKeys("ctrl+c"), key.WithHelp("ctrl+c", "quit")),
	}
}

func (k RootKeys) ShortHelp() []key.Binding { return []key.Binding{k.Next, k.Palette, k.Help, k.Quit} }

func (k RootKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Next, k.Prev, k.Pane}, {k.Palette, k.Help, k.Quit, k.ForceQuit}}
}

// SearchKeys are the Search pane's bindings.
type SearchKeys struct {
	Query, Run, Blur, Up, Down, Open, Copy, Preview,
	Depth, Topic, TimeRange, More, Fewer, Answer, Domains, Form, Cancel, Dictate key.Binding
}

func defaultSearchKeys() SearchKeys {
	return SearchKeys{
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
}

func (k SearchKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Query, k.Open, k.Copy, k.Depth, k.Answer, k.Form}
}

func (k SearchKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Query, k.Run, k.Blur, k.Cancel, k.Dictate},
		{k.Up, k.Down, k.Open, k.Copy, k.Preview},
		{k.Depth, k.Topic, k.TimeRange, k.More, k.Answer, k.Domains, k.Form},
	}
}

// PagesKeys are the Pages pane's bindings, the reader's included.
type PagesKeys struct {
	Up, Down, Open, Back, Close, Mark, MarkAll, Extract, Crawl, Map, Filter,
	Export, Copy, OpenURL, Raw, Cancel, Form, PageUp, PageDown, Preview, Links key.Binding
	// The reader's own.
	Find, NextMatch, TOC, Browse, Edit, Aloud, Highlight, Changes, Whole key.Binding
}

func defaultPagesKeys() PagesKeys {
	return PagesKeys{
		Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:     key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", "page down")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "read page / fold")),
		Back:     key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back (to the page a link left, else the list)")),
		Close:    key.NewBinding(key.WithKeys("q"), key.WithHelp("q", "close the reader")),
		Mark:     key.NewBinding(key.WithKeys("m", "v"), key.WithHelp("m", "select")),
		MarkAll:  key.NewBinding(key.WithKeys("A"), key.WithHelp("A", "select all shown")),
		Extract:  key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "extract selected")),
		Crawl:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "crawl from here")),
		Map:      key.NewBinding(key.WithKeys("M"), key.WithHelp("M", "map from here")),
		Form:     key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "crawl with options")),
		Filter:   key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "filter")),
		Export:   key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "export selected (or all) as markdown")),
		Copy:     key.NewBinding(key.WithKeys("y"), key.WithHelp("y", "copy URL")),
		OpenURL:  key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "extract a URL")),
		Raw:      key.NewBinding(key.WithKeys("t"), key.WithHelp("t", "plain text/rendered (reader)")),
		Preview:  key.NewBinding(key.WithKeys("p"), key.WithHelp("p", "preview below (narrow)")),
		Cancel:   key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel")),
		Links:    key.NewBinding(key.WithKeys("l"), key.WithHelp("l", "links: follow one (reader)")),

		Find:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "find (reader)")),
		NextMatch: key.NewBinding(key.WithKeys("n", "N"), key.WithHelp("n/N", "next/previous match")),
		TOC:       key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "contents (reader)")),
		Aloud:     key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "read aloud (reader)")),
		Browse:    key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "open in $BROWSER (reader)")),
		Edit:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "open in $EDITOR/$PAGER (reader)")),
		Highlight: key.NewBinding(key.WithKeys("v", "H"), key.WithHelp("v/H", "select a passage to highlight (reader)")),
		Changes:   key.NewBinding(key.WithKeys("D"), key.WithHelp("D", "a watched page's last change, as a word diff (reader)")),
		Whole:     key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "read the page again whole: tables, images (reader; advanced extraction)")),
	}
}

func (k PagesKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Open, k.Mark, k.Extract, k.Crawl, k.Filter, k.Export}
}

func (k PagesKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.Down, k.Open, k.Back, k.Close, k.PageUp, k.PageDown},
		{k.Mark, k.MarkAll, k.Filter, k.Copy, k.Raw, k.Preview, k.Links},
		{k.Find, k.NextMatch, k.TOC, k.Browse, k.Edit, k.Aloud, k.Highlight, k.Changes, k.Whole},
		{k.OpenURL, k.Extract, k.Crawl, k.Map, k.Form, k.Export, k.Cancel},
	}
}

// ToolsKeys are the Tools pane's bindings, the result tree's (Tree)
// included.
type ToolsKeys struct {
	Up, Down, Open, Back, Cancel key.Binding
	Tree                         TreeKeys
}

func defaultToolsKeys() ToolsKeys {
	return ToolsKeys{
		Tree:   DefaultTreeKeys(),
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open form")),
		Back:   key.NewBinding(key.WithKeys("esc", "backspace"), key.WithHelp("esc", "back")),
		Cancel: key.NewBinding(key.WithKeys("x"), key.WithHelp("x", "cancel")),
	}
}

func (k ToolsKeys) ShortHelp() []key.Binding { return []key.Binding{k.Open, k.Back, k.Cancel} }

func (k ToolsKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Up, k.Down, k.Open, k.Back, k.Cancel}, k.Tree.All()}
}

// LibraryKeys are the Library pane's bindings.
type LibraryKeys struct {
	Search, Kind, Up, Down, Open, Rerun, Delete, Export key.Binding
	// The highlights' list (Notes toggles it) and its exports.
	Notes, Zotero, Obsidian key.Binding
	// Watch watches the item (a page, a report's sources); Watches lists
	// the watched pages; Check reads one again now.
	Watch, Watches, Check key.Binding
}

func defaultLibraryKeys() LibraryKeys {
	return LibraryKeys{
		Search: key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "search the library")),
		Kind:   key.NewBinding(key.WithKeys("f"), key.WithHelp("f", "filter by kind")),
		Up:     key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:   key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Open:   key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		Rerun:  key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "run again")),
		Delete: key.NewBinding(key.WithKeys("d"), key.WithHelp("d d", "delete")),
		// A control key, as saving in Research: no run of typed words (a
		// search typed before / was pressed) may end in a written file.
		Export:   key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "export (.md, .bib, .json)")),
		Notes:    key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "highlights and notes / what is kept")),
		Zotero:   key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "highlights to Zotero")),
		Obsidian: key.NewBinding(key.WithKeys("O"), key.WithHelp("O", "highlights to an Obsidian folder")),
		Watch:    key.NewBinding(key.WithKeys("w"), key.WithHelp("w", "watch the page (a report: its sources)")),
		Watches:  key.NewBinding(key.WithKeys("W"), key.WithHelp("W", "watched pages and their changes")),
		Check:    key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "check the watched page now")),
	}
}

func (k LibraryKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Search, k.Kind, k.Open, k.Rerun, k.Delete, k.Export, k.Notes}
}

func (k LibraryKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Search, k.Kind, k.Up, k.Down}, {k.Open, k.Rerun, k.Delete, k.Export}, {k.Notes, k.Zotero, k.Obsidian}, {k.Watch, k.Watches, k.Check}}
}

// FormKeys are a tool form's bindings.
type FormKeys struct {
	Next, Prev, Left, Right, Toggle, Submit, Cancel key.Binding
}

func DefaultFormKeys() FormKeys {
	return FormKeys{
		Next:   key.NewBinding(key.WithKeys("tab", "down"), key.WithHelp("tab/↓", "next field")),
		Prev:   key.NewBinding(key.WithKeys("shift+tab", "up"), key.WithHelp("shift+tab/↑", "previous field")),
		Left:   key.NewBinding(key.WithKeys("left"), key.WithHelp("←", "previous choice")),
		Right:  key.NewBinding(key.WithKeys("right"), key.WithHelp("→", "next choice")),
		Toggle: key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "toggle")),
		Submit: key.NewBinding(key.WithKeys("enter", "ctrl+s"), key.WithHelp("enter", "run")),
		Cancel: key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "close form")),
	}
}

// ShortHelp and FullHelp make KeyMap a help.KeyMap.
func (k FormKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Left, k.Toggle, k.Submit, k.Cancel}
}

func (k FormKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Next, k.Prev}, {k.Left, k.Right, k.Toggle}, {k.Submit, k.Cancel}}
}

// TreeKeys are the JSON result tree's bindings.
type TreeKeys struct {
	Up, Down, Toggle, Collapse, Expand, PageUp, PageDown, ExpandAll, CollapseAll key.Binding
}

func DefaultTreeKeys() TreeKeys {
	return TreeKeys{
		Up:          key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "up")),
		Down:        key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "down")),
		Toggle:      key.NewBinding(key.WithKeys("enter", "space"), key.WithHelp("enter", "fold/unfold")),
		Collapse:    key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/h", "fold or go to parent")),
		Expand:      key.NewBinding(key.WithKeys("right", "l"), key.WithHelp("→/l", "unfold")),
		PageUp:      key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:    key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		ExpandAll:   key.NewBinding(key.WithKeys("E"), key.WithHelp("E", "unfold all")),
		CollapseAll: key.NewBinding(key.WithKeys("C"), key.WithHelp("C", "fold all")),
	}
}

// All lists the bindings for help.
func (k TreeKeys) All() []key.Binding {
	return []key.Binding{k.Up, k.Down, k.Toggle, k.Collapse, k.Expand, k.ExpandAll, k.CollapseAll}
}

// VoicesKeys is every binding of the voice studio; the help shows those of the
// current section.
type VoicesKeys struct {
	PrevSection, NextSection key.Binding

	// Voices
	Up, Down, Home, End, PageUp, PageDown key.Binding
	Filter, ClearFilter, Order            key.Binding
	Preview, UseVoice, Reload             key.Binding
	Mark, Audition, Replay, AB, Star      key.Binding
	SaveSet, PickText, Blind              key.Binding
	// Demo: D plays a deck (from the voice list); o chooses one, enter
	// plays the last again (in the Demo section).
	Demo, OpenDeck, PlayDeck key.Binding

	// Speak
	Edit, Done, Speak, SpeakNow key.Binding
	PrevControl, NextControl    key.Binding
	Less, More, Reset           key.Binding
	Transport, Pause            key.Binding

	// Listen and round trip
	OpenFile, Microphone, Recognise, Copy, Run key.Binding
	CopyPath                                   key.Binding

	Stop, Save key.Binding
}

// defaultVoicesKeys avoids the keys the TUI shell keeps for itself (tab,
// shift+tab, q, ?, ctrl+c, the digits) so the pane never shadows them.
func defaultVoicesKeys() VoicesKeys {
	b := func(keys []string, k, help string) key.Binding {
		return key.NewBinding(key.WithKeys(keys...), key.WithHelp(k, help))
	}
	return VoicesKeys{
		PrevSection: b([]string{"["}, "[", "prev section"),
		NextSection: b([]string{"]"}, "]", "next section"),

		Up:          b([]string{"up", "k"}, "↑/k", "up"),
		Down:        b([]string{"down", "j"}, "↓/j", "down"),
		Home:        b([]string{"home", "g"}, "g", "first"),
		End:         b([]string{"end", "G"}, "G", "last"),
		PageUp:      b([]string{"pgup"}, "pgup", "page up"),
		PageDown:    b([]string{"pgdown"}, "pgdn", "page down"),
		Filter:      b([]string{"/"}, "/", "filter"),
		ClearFilter: b([]string{"esc"}, "esc", "clear filter"),
		Order:       b([]string{"s"}, "s", "group/sort"),
		Preview:     b([]string{"p"}, "p", "preview"),
		Mark:        b([]string{"space"}, "space", "mark for audition"),
		Audition:    b([]string{"a"}, "a", "audition the marked"),
		Replay:      b([]string{"r"}, "r", "replay take"),
		AB:          b([]string{"b"}, "b", "A/B: b on two takes"),
		Star:        b([]string{"*"}, "*", "star take"),
		SaveSet:     b([]string{"W"}, "W", "save the set"),
		Blind:       b([]string{"B"}, "B", "blind A/B of the marked"),
		PickText:    b([]string{"t"}, "t", "audition text: a ready sentence"),
		Demo:        b([]string{"D"}, "D", "play a demo deck (.toml)"),
		OpenDeck:    b([]string{"o"}, "o", "choose a demo deck"),
		PlayDeck:    b([]string{"enter"}, "enter", "play the deck again"),
		UseVoice:    b([]string{"enter"}, "enter", "speak with voice"),
		Reload:      b([]string{"ctrl+r"}, "ctrl+r", "reload"),

		Edit:        b([]string{"e", "i"}, "e", "edit text"),
		Done:        b([]string{"esc"}, "esc", "done editing"),
		Speak:       b([]string{"enter"}, "enter", "speak"),
		SpeakNow:    b([]string{"ctrl+s", "alt+enter"}, "ctrl+s", "speak"),
		PrevControl: b([]string{"up", "k"}, "↑/k", "control"),
		NextControl: b([]string{"down", "j"}, "↓/j", "control"),
		Less:        b([]string{"left", "h", "-"}, "←/-", "less"),
		More:        b([]string{"right", "l", "+", "="}, "→/+", "more"),
		Reset:       b([]string{"0"}, "0", "reset control"),
		Transport:   b([]string{"t"}, "t", "stream/REST"),
		Pause:       b([]string{"space"}, "space", "pause"),

		OpenFile:   b([]string{"o"}, "o", "open file"),
		Microphone: b([]string{"m"}, "m", "record/stop mic"),
		Recognise:  b([]string{"enter"}, "enter", "recognise again"),
		Copy:       b([]string{"c"}, "c", "copy text"),
		CopyPath:   b([]string{"y"}, "y", "copy the saved audio file's path"),
		Run:        b([]string{"enter"}, "enter", "run round trip"),

		Stop: b([]string{"x"}, "x", "stop"),
		Save: b([]string{"w"}, "w", "save audio"),
	}
}

// ResearchKeys are the Research pane's bindings.
type ResearchKeys struct {
	Ask, Run, Leave, Model, Cancel, Up, Down, PageUp, PageDown, Top, Bottom,
	Sources, OpenSource, History, Save key.Binding
	// Citations lists the quotes; Verify reads their sources again.
	Citations, Verify key.Binding
	// The reader's own.
	Find, NextMatch, TOC, Edit key.Binding
	Dictate, Aloud             key.Binding
	// Highlight selects a passage to keep with a note (v is verify).
	Highlight key.Binding
}

func defaultResearchKeys() ResearchKeys {
	return ResearchKeys{
		Ask:        key.NewBinding(key.WithKeys("i", "/", "n"), key.WithHelp("i", "new question")),
		Run:        key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "research")),
		Leave:      key.NewBinding(key.WithKeys("esc", "tab"), key.WithHelp("esc", "leave question")),
		Model:      key.NewBinding(key.WithKeys("M", "ctrl+o"), key.WithHelp("M/ctrl+o", "model")),
		Cancel:     key.NewBinding(key.WithKeys("x", "ctrl+x"), key.WithHelp("x/ctrl+x", "cancel")),
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup", "b"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", "page down")),
		Top:        key.NewBinding(key.WithKeys("g", "home"), key.WithHelp("g", "top")),
		Bottom:     key.NewBinding(key.WithKeys("G", "end"), key.WithHelp("G", "bottom")),
		Sources:    key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "sources")),
		OpenSource: key.NewBinding(key.WithKeys("o"), key.WithHelp("o", "source in $BROWSER")),
		History:    key.NewBinding(key.WithKeys("h"), key.WithHelp("h", "history")),
		Citations:  key.NewBinding(key.WithKeys("c"), key.WithHelp("c", "citations")),
		Verify:     key.NewBinding(key.WithKeys("v"), key.WithHelp("v", "verify quotes")),
		// Saving is a control key: questions start with w, h and s, and
		// no run of typed words may end in a written file.
		Save:      key.NewBinding(key.WithKeys("ctrl+s"), key.WithHelp("ctrl+s", "save as markdown")),
		Find:      key.NewBinding(key.WithKeys("/"), key.WithHelp("/", "find in the report")),
		Dictate:   key.NewBinding(key.WithKeys("ctrl+r"), key.WithHelp("ctrl+r", "speak the question")),
		Aloud:     key.NewBinding(key.WithKeys("R"), key.WithHelp("R", "read aloud")),
		NextMatch: key.NewBinding(key.WithKeys("n", "N"), key.WithHelp("n/N", "next/previous match")),
		TOC:       key.NewBinding(key.WithKeys("T"), key.WithHelp("T", "contents")),
		Edit:      key.NewBinding(key.WithKeys("e"), key.WithHelp("e", "open in $EDITOR/$PAGER")),
		Highlight: key.NewBinding(key.WithKeys("H"), key.WithHelp("H", "select a passage to highlight")),
	}
}

func (k ResearchKeys) ShortHelp() []key.Binding {
	return []key.Binding{k.Ask, k.Model, k.Cancel, k.Sources, k.History, k.Save}
}

func (k ResearchKeys) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Ask, k.Run, k.Leave, k.Model, k.Cancel, k.Dictate},
		{k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom},
		{k.Sources, k.OpenSource, k.Citations, k.Verify, k.History, k.Save},
		{k.Find, k.NextMatch, k.TOC, k.Edit, k.Aloud, k.Highlight},
	}
}
