// Package jsontree shows any JSON value as a tree that can be navigated
// and collapsed: the view for outputs of tools hark has no rich view for.
// Keys keep the order the gateway sent them in.
package jsontree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
)

// Node is one value of the document.
type Node struct {
	Key       string // object key or "[i]"; "" for the root
	Kind      byte   // '{', '[', 's', 'n', 'b', '0' (null)
	Value     string // scalar as JSON text
	Children  []*Node
	Collapsed bool
	depth     int
}

// Parse reads a JSON document keeping the order of object keys.
func Parse(raw []byte) (*Node, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	n, err := parseValue(dec, "", 0)
	if err != nil {
		return nil, fmt.Errorf("output is not JSON: %w", err)
	}
	return n, nil
}

func parseValue(dec *json.Decoder, k string, depth int) (*Node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	n := &Node{Key: k, depth: depth}
	switch t := tok.(type) {
	case json.Delim:
		n.Kind = byte(t)
		i := 0
		for dec.More() {
			ck := "[" + strconv.Itoa(i) + "]"
			if t == '{' {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				ck, _ = kt.(string)
			}
			c, err := parseValue(dec, ck, depth+1)
			if err != nil {
				return nil, err
			}
			n.Children = append(n.Children, c)
			i++
		}
		if _, err := dec.Token(); err != nil {
			return nil, err
		}
		// Start with the top two levels open and long lists closed.
		n.Collapsed = depth >= 2 || len(n.Children) > 50
	case string:
		n.Kind = 's'
		b, _ := json.Marshal(t)
		n.Value = string(b)
	case json.Number:
		n.Kind, n.Value = 'n', t.String()
	case bool:
		n.Kind, n.Value = 'b', strconv.FormatBool(t)
	case nil:
		n.Kind, n.Value = '0', "null"
	}
	return n, nil
}

// Tree is the navigable view of a Node.
type Tree struct {
	Root   *Node
	rows   []row
	cursor int
	offset int
	width  int
	height int
	styles *common.Styles
	// Keys are the tree's bindings; the pane showing the tree gives
	// those held in Common.
	Keys common.TreeKeys
}

type row struct {
	node   *Node
	parent int // row index of the parent, -1 for the root
}

// New returns a tree view of root.
func New(root *Node, s *common.Styles) *Tree {
	t := &Tree{Root: root, styles: s, Keys: common.DefaultTreeKeys()}
	t.flatten()
	return t
}

func (t *Tree) flatten() {
	t.rows = t.rows[:0]
	var walk func(n *Node, parent int)
	walk = func(n *Node, parent int) {
		t.rows = append(t.rows, row{n, parent})
		me := len(t.rows) - 1
		if !n.Collapsed {
			for _, c := range n.Children {
				walk(c, me)
			}
		}
	}
	if t.Root != nil {
		walk(t.Root, -1)
	}
	t.list().Clamp()
}

// Rows is the number of visible rows.
func (t *Tree) Rows() int { return len(t.rows) }

// Cursor is the selected row.
func (t *Tree) Cursor() int { return t.cursor }

// SetSize sets the drawing area.
func (t *Tree) SetSize(w, h int) { t.width, t.height = max(0, w), max(0, h) }

// Update handles navigation keys and the mouse wheel.
func (t *Tree) Update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.MouseWheelMsg:
		if msg.Button == tea.MouseWheelUp {
			t.move(-3)
		} else if msg.Button == tea.MouseWheelDown {
			t.move(3)
		}
	case tea.KeyPressMsg:
		if len(t.rows) == 0 {
			return nil
		}
		n := t.rows[t.cursor].node
		switch {
		case key.Matches(msg, t.Keys.Up):
			t.move(-1)
		case key.Matches(msg, t.Keys.Down):
			t.move(1)
		case key.Matches(msg, t.Keys.PageUp):
			t.move(-max(1, t.height-1))
		case key.Matches(msg, t.Keys.PageDown):
			t.move(max(1, t.height-1))
		case key.Matches(msg, t.Keys.Toggle):
			if len(n.Children) > 0 {
				n.Collapsed = !n.Collapsed
				t.flatten()
			}
		case key.Matches(msg, t.Keys.Expand):
			if n.Collapsed && len(n.Children) > 0 {
				n.Collapsed = false
				t.flatten()
			}
		case key.Matches(msg, t.Keys.Collapse):
			if !n.Collapsed && len(n.Children) > 0 {
				n.Collapsed = true
				t.flatten()
			} else if p := t.rows[t.cursor].parent; p >= 0 {
				t.cursor = p
			}
		case key.Matches(msg, t.Keys.ExpandAll):
			setAll(t.Root, false)
			t.flatten()
		case key.Matches(msg, t.Keys.CollapseAll):
			setAll(t.Root, true)
			t.Root.Collapsed = false
			t.cursor = 0
			t.flatten()
		}
	}
	return nil
}

func setAll(n *Node, collapsed bool) {
	if len(n.Children) > 0 {
		n.Collapsed = collapsed
	}
	for _, c := range n.Children {
		setAll(c, collapsed)
	}
}

// list is the cursor over the visible rows.
func (t *Tree) list() common.List { return common.NewList(&t.cursor, &t.offset, len(t.rows)) }

func (t *Tree) move(d int) { t.list().Move(d) }

// View draws the visible rows.
func (t *Tree) View() string {
	if t.height <= 0 {
		return ""
	}
	start, end := t.list().Window(t.height)
	lines := make([]string, 0, end-start)
	for i := start; i < end; i++ {
		lines = append(lines, t.rowView(t.rows[i].node, i == t.cursor))
	}
	return common.Fit(strings.Join(lines, "\n"), t.width, t.height)
}

func (t *Tree) rowView(n *Node, selected bool) string {
	s := t.styles
	var b strings.Builder
	b.WriteString(strings.Repeat("  ", n.depth))
	switch {
	case len(n.Children) > 0 && n.Collapsed:
		b.WriteString("▸ ")
	case len(n.Children) > 0:
		b.WriteString("▾ ")
	default:
		b.WriteString("  ")
	}
	if n.Key != "" {
		ks := s.Label
		if selected {
			ks = s.Selected
		}
		b.WriteString(ks.Render(n.Key))
		b.WriteString(s.Dim.Render(": "))
	} else if selected {
		b.WriteString(s.Selected.Render("·"))
	}
	switch n.Kind {
	case '{', '[':
		open, close, unit := "{", "}", "key"
		if n.Kind == '[' {
			open, close, unit = "[", "]", "item"
		}
		if len(n.Children) != 1 {
			unit += "s"
		}
		summary := fmt.Sprintf("%s %d %s %s", open, len(n.Children), unit, close)
		if !n.Collapsed && len(n.Children) > 0 {
			summary = open
		}
		b.WriteString(s.Dim.Render(summary))
	case 's':
		b.WriteString(s.OK.Render(common.OneLine(n.Value)))
	case 'n', 'b':
		b.WriteString(s.Warn.Render(n.Value))
	default:
		b.WriteString(s.Dim.Render(n.Value))
	}
	return b.String()
}
