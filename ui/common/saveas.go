package common

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"charm.land/bubbles/v2/textinput"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
)

// SaveAs is the one-line "save as" prompt that `w` opens: it offers a
// path (the output directory and a fresh name), the user edits it or
// accepts it, and exactly one file is written there. While it is open
// the pane gives it every key (see TextAreaPane), so typing a path never
// switches panes.
type SaveAs struct {
	input  textinput.Model
	active bool
	last   string // the path last asked for, offered again after an error
	// offer is the path the prompt last offered; asked holds every path
	// asked for in this session, so that w after a save offers a name
	// not used yet.
	offer    string
	asked    map[string]bool
	unedited bool
	// ext, when set, is the extension a name must end in (".wav": the
	// audio is WAV); a folder (ending in /) takes the offered name
	// inside it. refused says why enter did not save.
	ext     string
	refused string
	// folder: the prompt names a folder an export updates in place
	// (OpenFolder), not a new file.
	folder bool
	// opened: the prompt was opened since its last View, which puts the
	// cursor at the end at the width it is drawn (the name's end, its
	// extension, in view).
	opened bool
}

// RequireExt makes enter refuse a name that does not end in ext (".wav")
// or "/" (a folder, which gets the offered name inside it), saying so at
// the field: keys typed by mistake into the name never make a file
// "….wav1:index a".
func (s *SaveAs) RequireExt(ext string) { s.ext = ext }

// Open shows the prompt with path (or, when that was asked for already,
// path numbered: "report-2.md"), or with the path last asked for when
// that save failed (retry is true) and the user had typed it; an offer
// accepted as it was and refused is not offered again.
func (s *SaveAs) Open(path string, retry bool, st *Styles) tea.Cmd {
	if s.input.CharLimit == 0 {
		s.input = textinput.New()
		s.input.Prompt = ""
		s.input.CharLimit = 4096
	}
	if st != nil {
		s.input.SetStyles(st.InputStyles())
	}
	if retry && s.last != "" && !s.unedited {
		path = s.last
	} else {
		path = s.fresh(path)
	}
	// The home directory as ~/: the name, not the folders above it, is
	// what fits at 80 columns (Key expands it again).
	path = HomeShort(path)
	s.offer, s.refused, s.opened, s.folder = path, "", true, false
	s.input.SetValue(path)
	s.input.CursorEnd()
	s.active = true
	return s.input.Focus()
}

// fresh is path, or the first of path-2, path-3… (before the extension)
// not asked for yet.
func (s *SaveAs) fresh(path string) string {
	if !s.asked[path] {
		return path
	}
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	for n := 2; ; n++ {
		if p := fmt.Sprintf("%s-%d%s", base, n, ext); !s.asked[p] {
			return p
		}
	}
}

// Value is the path the prompt holds now.
func (s *SaveAs) Value() string { return s.input.Value() }

// Unedited reports that the path Key returned last is the one offered,
// accepted as it was: the writer may then number it past a file that
// exists (see WriteFresh), since the user chose no name.
func (s *SaveAs) Unedited() bool { return s.unedited }

// Active reports that the prompt is open.
func (s *SaveAs) Active() bool { return s.active }

// Close hides the prompt.
func (s *SaveAs) Close() {
	s.active = false
	s.input.Blur()
}

// Key handles a key while the prompt is open. On enter it closes and
// returns the path to save to (with ~ expanded); on esc it closes and
// returns "".
func (s *SaveAs) Key(msg tea.KeyPressMsg) (path string, cmd tea.Cmd) {
	switch msg.String() {
	case "enter":
		p := strings.TrimSpace(s.input.Value())
		if p == "" {
			return "", nil
		}
		if s.ext != "" && !strings.EqualFold(filepath.Ext(p), s.ext) && !strings.HasSuffix(p, "/") {
			s.refused = fmt.Sprintf("the name must end in %s (or / for a folder): %q does not", s.ext, filepath.Base(p))
			return "", nil
		}
		s.refused = ""
		s.Close()
		s.last, s.unedited = p, p == s.offer
		if s.asked == nil {
			s.asked = map[string]bool{}
		}
		s.asked[p] = true
		return ExpandHome(p), nil
	case "esc":
		s.Close()
		return "", nil
	}
	s.input, cmd = s.input.Update(msg)
	return "", cmd
}

// Update passes non-key messages (the cursor's blink) to the input.
func (s *SaveAs) Update(msg tea.Msg) tea.Cmd {
	if !s.active {
		return nil
	}
	var cmd tea.Cmd
	s.input, cmd = s.input.Update(msg)
	return cmd
}

// View is the prompt in two lines at width w: the label says the name has
// the keys (typing edits it), and under it what enter and esc do, or why
// enter did not save.
func (s *SaveAs) View(st *Styles, w int) string {
	label := "▶ save as "
	s.input.SetWidth(max(10, w-lipgloss.Width(label)-1))
	if s.opened {
		s.opened = false
		s.input.CursorEnd()
	}
	keys := "typing edits the name · enter saves · esc cancels · never overwrites a file"
	if s.folder {
		keys = "typing edits the folder · enter writes the notes, updating them · esc cancels"
	}
	help := st.Dim.Render(Truncate(keys, w))
	if s.refused != "" {
		help = st.Err.Render(Truncate("✗ "+s.refused, w))
	}
	return st.Selected.Render(label) + s.input.View() + "\n" + help
}

// ExpandHome expands a leading ~/ to the home directory.
func ExpandHome(p string) string {
	if p == "~" || strings.HasPrefix(p, "~/") {
		if h, err := os.UserHomeDir(); err == nil {
			return filepath.Join(h, p[1:])
		}
	}
	return p
}

// WriteFresh is WriteNew for a name hark offered: when path exists, the
// first free path-2, path-3… (before the extension) is written instead.
func WriteFresh(path, name string, data []byte) (string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, name)
	}
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	try := path
	for n := 2; n < 1000; n++ {
		p, err := WriteNew(try, name, data)
		if !errors.Is(err, fs.ErrExist) {
			return p, err
		}
		try = fmt.Sprintf("%s-%d%s", base, n, ext)
	}
	return WriteNew(try, name, data)
}

// FreePath is path, or the first of path-2, path-3… (before the
// extension) that does not exist: for a writer that refuses an existing
// path, given a name hark offered. It looks at the disk: call it in a
// command.
func FreePath(path string) string {
	ext := filepath.Ext(path)
	base := strings.TrimSuffix(path, ext)
	try := path
	for n := 2; n < 1000; n++ {
		if _, err := os.Lstat(try); errors.Is(err, fs.ErrNotExist) {
			return try
		}
		try = fmt.Sprintf("%s-%d%s", base, n, ext)
	}
	return try
}

// WriteNew writes data to path, a new file: its directory is made if
// need be; an existing directory gets the file named name inside it; an
// existing file is an error, never overwritten. It returns the path
// written.
func WriteNew(path, name string, data []byte) (string, error) {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		path = filepath.Join(path, name)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, fs.ErrExist) {
		return "", &existsError{path}
	}
	if err != nil {
		return "", err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		os.Remove(path)
		return "", err
	}
	if err := f.Close(); err != nil {
		os.Remove(path)
		return "", err
	}
	return path, nil
}

// existsError is WriteNew's refusal to overwrite; it is fs.ErrExist.
type existsError struct{ path string }

func (e *existsError) Error() string {
	return e.path + " exists; save again and choose another name"
}
func (e *existsError) Is(target error) bool { return target == fs.ErrExist }

// OpenFolder shows the prompt with path as it is, never numbered: an
// export that updates a folder in place (Obsidian notes) is offered the
// same folder every time.
func (s *SaveAs) OpenFolder(path string, st *Styles) tea.Cmd {
	cmd := s.Open(path, false, st)
	s.offer, s.folder = HomeShort(path), true
	s.input.SetValue(s.offer)
	s.input.CursorEnd()
	return cmd
}
