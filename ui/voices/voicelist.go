package voices

import (
	"cmp"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"hark/api"
	"hark/ui/common"
)

// VoiceOrder is how the voice list is arranged.
type VoiceOrder int

const (
	// ByLanguage groups voices under a heading per language.
	ByLanguage VoiceOrder = iota
	// ByName sorts all voices by name, with the language beside each.
	ByName
)

func (o VoiceOrder) String() string {
	if o == ByName {
		return "by name"
	}
	return "by language"
}

// VoiceList is the filterable list of a provider's voices. It keeps the
// selection on the same voice while the filter or the order changes.
type VoiceList struct {
	all     []api.Voice
	hay     []string    // per voice of all: what the filter searches, lowercased
	shown   []api.Voice // filtered and ordered
	filter  string
	order   VoiceOrder
	cursor  int      // index into shown
	offset  int      // first row of the rendered window
	lastRow int      // rows rendered last time, to keep the cursor visible
	marked  []string // voice codes marked for an audition, in marking order
}

// ToggleMark marks a voice for an audition, or unmarks it.
func (l *VoiceList) ToggleMark(code string) {
	for i, m := range l.marked {
		if m == code {
			l.marked = append(l.marked[:i], l.marked[i+1:]...)
			return
		}
	}
	l.marked = append(l.marked, code)
}

// Marked is the marked voices, in the order they were marked.
func (l *VoiceList) Marked() []api.Voice {
	var out []api.Voice
	for _, m := range l.marked {
		for _, v := range l.all {
			if v.Value == m {
				out = append(out, v)
				break
			}
		}
	}
	return out
}

func (l *VoiceList) isMarked(code string) bool {
	for _, m := range l.marked {
		if m == code {
			return true
		}
	}
	return false
}

// SetItems replaces the voices, keeping the selection when it still exists.
func (l *VoiceList) SetItems(vs []api.Voice) {
	sel, ok := l.Selected()
	l.all = slices.Clone(vs)
	l.hay = make([]string, len(vs))
	for i, v := range vs {
		l.hay[i] = strings.ToLower(v.Name + "\x00" + v.Value + "\x00" + v.Language + "\x00" + v.Scene)
	}
	l.refresh(sel.Value, ok)
}

// Len is the number of voices matching the filter.
func (l *VoiceList) Len() int { return len(l.shown) }

// Total is the number of voices before filtering.
func (l *VoiceList) Total() int { return len(l.all) }

// Filter is the current filter text.
func (l *VoiceList) Filter() string { return l.filter }

// Order is the current arrangement.
func (l *VoiceList) Order() VoiceOrder { return l.order }

// SetFilter keeps only voices whose name, code, language or scene contain
// every word of f, case-insensitively.
func (l *VoiceList) SetFilter(f string) {
	sel, ok := l.Selected()
	l.filter = f
	l.refresh(sel.Value, ok)
}

// ToggleOrder switches between grouping by language and sorting by name.
func (l *VoiceList) ToggleOrder() {
	sel, ok := l.Selected()
	l.order = 1 - l.order
	l.refresh(sel.Value, ok)
}

// Selected is the voice under the cursor.
func (l *VoiceList) Selected() (api.Voice, bool) {
	if l.cursor < 0 || l.cursor >= len(l.shown) {
		return api.Voice{}, false
	}
	return l.shown[l.cursor], true
}

// Select moves the cursor to the voice with code value, if shown.
func (l *VoiceList) Select(value string) bool {
	for i, v := range l.shown {
		if v.Value == value {
			l.cursor = i
			return true
		}
	}
	return false
}

// Move moves the cursor by delta voices, clamped to the list.
func (l *VoiceList) Move(delta int) { l.list().Move(delta) }

// list is the cursor over the voices shown. The window is counted in
// rows, headings included, and stays the VoiceList's own.
func (l *VoiceList) list() common.List { return common.NewList(&l.cursor, nil, len(l.shown)) }

// Home and End jump to the first and last voice.
func (l *VoiceList) Home() { l.list().Home() }
func (l *VoiceList) End()  { l.list().End() }

func (l *VoiceList) refresh(keep string, had bool) {
	words := strings.Fields(strings.ToLower(l.filter))
	l.shown = l.shown[:0]
	for i, v := range l.all {
		if matches(l.hay[i], words) {
			l.shown = append(l.shown, v)
		}
	}
	slices.SortStableFunc(l.shown, func(a, b api.Voice) int {
		if l.order == ByLanguage {
			if c := compareFold(a.Language, b.Language); c != 0 {
				return c
			}
		}
		if c := compareFold(a.Name, b.Name); c != 0 {
			return c
		}
		return cmp.Compare(a.Value, b.Value)
	})
	l.cursor = 0
	if had {
		l.Select(keep)
	}
}

func matches(hay string, words []string) bool {
	for _, w := range words {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

// row is one rendered line of the list: a language heading or a voice.
type row struct {
	heading string
	voice   int // index into shown; -1 for a heading
}

func (l *VoiceList) rows() []row {
	var rs []row
	lang := "\x00"
	head := -1
	n := 0
	for i, v := range l.shown {
		if l.order == ByLanguage && v.Language != lang {
			if n > 1 {
				rs[head].heading += " (" + strconv.Itoa(n) + ")"
			}
			lang, n = v.Language, 0
			head = len(rs)
			rs = append(rs, row{heading: cmp.Or(lang, "(no language)"), voice: -1})
		}
		n++
		rs = append(rs, row{voice: i})
	}
	if head >= 0 && n > 1 {
		rs[head].heading += " (" + strconv.Itoa(n) + ")"
	}
	return rs
}

// Render draws the list into width x height cells.
func (l *VoiceList) Render(st *common.Styles, width, height int, focused bool) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	rs := l.rows()
	cur := 0
	for i, r := range rs {
		if r.voice == l.cursor {
			cur = i
			break
		}
	}
	// Keep the cursor in view, and its heading too when there is room.
	if cur < l.offset {
		l.offset = cur
		if cur > 0 && rs[cur-1].voice < 0 {
			l.offset = cur - 1
		}
	}
	if cur >= l.offset+height {
		l.offset = cur - height + 1
	}
	l.offset = max(0, min(l.offset, len(rs)-height))
	l.lastRow = height

	lines := make([]string, 0, height)
	for i := l.offset; i < len(rs) && len(lines) < height; i++ {
		r := rs[i]
		if r.voice < 0 {
			lines = append(lines, st.Label.Render(ansi.Truncate(r.heading, width, "…")))
			continue
		}
		v := l.shown[r.voice]
		text := v.Name
		if text == "" {
			text = v.Value
		}
		if l.order == ByName && v.Language != "" {
			text += "  " + v.Language
		}
		if prov, _, ok := strings.Cut(v.Value, "/"); ok {
			text += "  · " + prov // another provider's voice
		}
		if l.isMarked(v.Value) {
			text = "✓ " + text
		}
		marker := "  "
		style := st.Text
		if r.voice == l.cursor {
			marker = "> "
			if focused {
				style = st.Selected
			}
		}
		lines = append(lines, style.Render(ansi.Truncate(marker+text, width, "…")))
	}
	if len(rs) == 0 {
		msg := "no voices"
		if l.filter != "" {
			msg = "no voice matches " + quote(l.filter)
		}
		lines = append(lines, st.Dim.Render(ansi.Truncate(msg, width, "…")))
	}
	return lipgloss.JoinVertical(lipgloss.Left, lines...)
}

// compareFold orders strings ignoring ASCII case, without allocating.
func compareFold(a, b string) int {
	for i := 0; i < len(a) && i < len(b); i++ {
		x, y := a[i], b[i]
		if 'A' <= x && x <= 'Z' {
			x += 'a' - 'A'
		}
		if 'A' <= y && y <= 'Z' {
			y += 'a' - 'A'
		}
		if x != y {
			return cmp.Compare(x, y)
		}
	}
	return cmp.Compare(len(a), len(b))
}

func quote(s string) string { return "\u201c" + s + "\u201d" }
