package common

import "strings"

// List is the cursor and scroll window of a list drawn one item a row:
// the one place where a cursor is clamped to the items, the window is
// kept around the cursor and a click on a row becomes an item. It works
// on a cursor and an offset the pane keeps (its tests and views read them
// as plain ints) and holds no items, so any list can use it: a pane makes
// one when it needs it,
//
//	func (p *Pane) list() common.List { return common.NewList(&p.cursor, &p.offset, len(p.rows)) }
type List struct {
	cursor, offset *int
	n              int
}

// NewList is the list of n items whose cursor and offset are those given.
// offset is nil for a list whose window is not counted in items (results
// of several lines, rows with headings): it then keeps its own window and
// uses List for the cursor.
func NewList(cursor, offset *int, n int) List {
	if offset == nil {
		offset = new(int)
	}
	return List{cursor: cursor, offset: offset, n: max(0, n)}
}

// Len is the number of items.
func (l List) Len() int { return l.n }

// Cursor is the index of the selected item (0 when the list is empty).
func (l List) Cursor() int { return *l.cursor }

// Clamp keeps the cursor on the items (after they changed).
func (l List) Clamp() { l.Select(*l.cursor) }

// Select puts the cursor on item i, clamped to the items.
func (l List) Select(i int) { *l.cursor = max(0, min(i, l.n-1)) }

// Move moves the cursor by d items, clamped to the items.
func (l List) Move(d int) { l.Select(*l.cursor + d) }

// Home and End go to the first and the last item.
func (l List) Home() { *l.cursor = 0 }
func (l List) End()  { l.Select(l.n - 1) }

// Reset goes back to the top: cursor and window on the first item.
func (l List) Reset() { *l.cursor, *l.offset = 0, 0 }

// Window moves the window of h rows as little as keeps the cursor in it
// and returns the items to draw, [start, end). A window past the end
// comes back so that the last h items fill it: a list that shrank (a
// filter typed, a group folded) never shows blank rows below its end
// while rows above it are hidden.
func (l List) Window(h int) (start, end int) {
	if *l.cursor < *l.offset {
		*l.offset = *l.cursor
	}
	if h > 0 && *l.cursor >= *l.offset+h {
		*l.offset = *l.cursor - h + 1
	}
	*l.offset = max(0, min(*l.offset, l.n-h))
	return *l.offset, max(*l.offset, min(l.n, *l.offset+max(0, h)))
}

// Pin starts the window at the top unless the cursor would fall below
// its h rows; then the cursor is on its last row. It returns the items
// to draw, [start, end).
func (l List) Pin(h int) (start, end int) {
	*l.offset = max(0, *l.cursor-(h-1))
	return *l.offset, max(*l.offset, min(l.n, *l.offset+max(0, h)))
}

// Click selects the item on row y of the window (0 is the first item
// drawn). ok is false when no item is there; again is true when the item
// was selected already (a second click opens it).
func (l List) Click(y int) (again, ok bool) {
	i := *l.offset + y
	if y < 0 || i < 0 || i >= l.n {
		return false, false
	}
	again = i == *l.cursor
	*l.cursor = i
	return again, true
}

// Filter keeps the items whose text contains query, ignoring case and
// the spaces around query; an empty query keeps them all (the same
// slice).
func Filter[T any](items []T, query string, text func(T) string) []T {
	q := strings.ToLower(strings.TrimSpace(query))
	if q == "" {
		return items
	}
	var out []T
	for _, it := range items {
		if strings.Contains(strings.ToLower(text(it)), q) {
			out = append(out, it)
		}
	}
	return out
}
