package common

import (
	"slices"
	"testing"
)

func TestListClampsTheCursor(t *testing.T) {
	var cur, off int
	l := NewList(&cur, &off, 5)
	l.Move(-3)
	if cur != 0 {
		t.Fatalf("up from the top: cursor %d", cur)
	}
	l.Move(10)
	if cur != 4 {
		t.Fatalf("down past the end: cursor %d", cur)
	}
	l = NewList(&cur, &off, 2) // the items shrank
	l.Clamp()
	if cur != 1 {
		t.Fatalf("after shrinking to 2: cursor %d", cur)
	}
	l = NewList(&cur, &off, 0)
	l.Clamp()
	l.End()
	if cur != 0 {
		t.Fatalf("empty list: cursor %d", cur)
	}
	l = NewList(&cur, &off, 7)
	l.End()
	if cur != 6 || l.Cursor() != 6 {
		t.Fatalf("End: cursor %d", cur)
	}
	l.Home()
	if cur != 0 {
		t.Fatalf("Home: cursor %d", cur)
	}
	off = 3
	l.Select(5)
	l.Reset()
	if cur != 0 || off != 0 {
		t.Fatalf("Reset: cursor %d offset %d", cur, off)
	}
}

// Window scrolls as little as keeps the cursor drawn and keeps the
// window filled at the end.
func TestListWindow(t *testing.T) {
	var cur, off int
	l := NewList(&cur, &off, 10)
	if s, e := l.Window(4); s != 0 || e != 4 {
		t.Fatalf("top: [%d,%d)", s, e)
	}
	l.Select(6)
	if s, e := l.Window(4); s != 3 || e != 7 {
		t.Fatalf("cursor 6: [%d,%d)", s, e)
	}
	l.Select(4) // still inside: the window stays
	if s, e := l.Window(4); s != 3 || e != 7 {
		t.Fatalf("cursor back to 4: [%d,%d)", s, e)
	}
	l.Select(1)
	if s, e := l.Window(4); s != 1 || e != 5 {
		t.Fatalf("cursor 1: [%d,%d)", s, e)
	}
	// A window taller than what is left past the offset (the list
	// shrank under it) comes back to be filled.
	off = 8
	l.Select(9)
	if s, e := l.Window(4); s != 6 || e != 10 {
		t.Fatalf("past the end: [%d,%d)", s, e)
	}
	if s, e := l.Window(0); s != 6 || e != 6 {
		t.Fatalf("no rows: [%d,%d)", s, e)
	}
}

func TestListPin(t *testing.T) {
	var cur, off int
	l := NewList(&cur, &off, 10)
	l.Select(2)
	if s, e := l.Pin(5); s != 0 || e != 5 {
		t.Fatalf("cursor in the first rows: [%d,%d)", s, e)
	}
	l.Select(7)
	if s, e := l.Pin(5); s != 3 || e != 8 {
		t.Fatalf("cursor 7 on the last row: [%d,%d)", s, e)
	}
	if s, e := l.Pin(-2); s != e {
		t.Fatalf("no room: [%d,%d)", s, e)
	}
}

// A click selects the item on its row; a second click on it says again.
func TestListClick(t *testing.T) {
	var cur, off int
	l := NewList(&cur, &off, 10)
	l.Select(8)
	l.Window(3) // items 6, 7, 8 drawn
	if again, ok := l.Click(0); !ok || again || cur != 6 {
		t.Fatalf("click row 0: again %v ok %v cursor %d", again, ok, cur)
	}
	if again, ok := l.Click(0); !ok || !again {
		t.Fatalf("second click: again %v ok %v", again, ok)
	}
	if _, ok := l.Click(-1); ok || cur != 6 {
		t.Fatalf("a click above the list selected %d", cur)
	}
	if _, ok := l.Click(5); ok || cur != 6 {
		t.Fatalf("a click below the items selected %d", cur)
	}
}

func TestNewListWithoutOffset(t *testing.T) {
	cur := 1
	l := NewList(&cur, nil, 3)
	l.Move(5)
	if cur != 2 {
		t.Fatalf("cursor %d", cur)
	}
}

func TestFilter(t *testing.T) {
	items := []string{"Extract a page", "crawl a site", "Map a SITE"}
	id := func(s string) string { return s }
	if got := Filter(items, "  ", id); !slices.Equal(got, items) {
		t.Fatalf("empty query: %q", got)
	}
	if got := Filter(items, " Site ", id); !slices.Equal(got, []string{"crawl a site", "Map a SITE"}) {
		t.Fatalf("site: %q", got)
	}
	if got := Filter(items, "nothing", id); len(got) != 0 {
		t.Fatalf("nothing: %q", got)
	}
}
