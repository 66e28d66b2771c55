package common

import (
	"context"
	"errors"
	"fmt"
	"time"

	tea "charm.land/bubbletea/v2"

	"hark/api"
	"hark/library"
)

// Messages the root and the panes exchange. Panes never call each other:
// they return a command yielding one of these and the root routes it.

// ToolsMsg carries the runtime tool list (or the error fetching it) to
// every pane. Forms and the palette are built from it; nothing is hard-coded.
type ToolsMsg struct {
	Tools []api.Tool
	Err   error
}

// OpenPagesMsg asks the root to show Pages and extract URLs there.
type OpenPagesMsg struct {
	URLs []string
	// Read are pages whose text is already known (a search result's
	// raw_content, for a page the gateway indexed but cannot fetch, such
	// as a file:// page of `hark index DIR`): shown as they are, without
	// extracting.
	Read []api.PageContent
	// ReadMarkdown says Read holds markdown (what the local index kept of
	// a page: links and headings), not plain text.
	ReadMarkdown bool
	// Find is the search that led here: the first page opens at the
	// rarest of its words on the page, found and highlighted (n/N).
	Find string
	// At, when set, is a quote of the first page (a report's, from the
	// source it cites): the page opens there, the quote highlighted.
	At string
}

// RunToolMsg asks the root to run a tool with inputs (from a generated
// form). The root hands it to the pane that shows that tool's output
// richly, or to the Tools pane, which shows any output as a JSON tree.
type RunToolMsg struct {
	Tool   api.Tool
	Inputs map[string]any
}

// ShowKeptMsg asks the root to show an item kept in the library in the
// pane that shows its kind (research in Research, a search in Search),
// from what was kept, without calling the gateway.
type ShowKeptMsg struct {
	Item library.Item
	// At, when set, is a highlight's quote: the reader opens there.
	At string
}

// LibraryChangedMsg says items were kept or removed: views of the
// library reload.
type LibraryChangedMsg struct{}

// EditToolMsg asks the root to show the Tools pane with tool's form.
type EditToolMsg struct {
	Slug string
}

// CallMsg is an HTTP call the client made (from api.Options.OnCall),
// for the status bar's last trace_id and latency.
type CallMsg api.CallInfo

// ErrorMsg reports a failure to the status bar; the pane shows it too.
type ErrorMsg struct {
	Err error
}

// NoticeMsg is a short line for the status bar: a success ("copied
// URL", shown with a check mark), or with Warn something that did not go
// as asked but is no error of the call (a job that failed, a report not
// verified), shown with "!" in the warning colour, never a check mark.
type NoticeMsg struct {
	Text string
	Warn bool
}

// StylesChangedMsg tells panes the Styles were rebuilt (the terminal's
// background became known), so cached renderings must be redone.
type StylesChangedMsg struct{}

// ToolRunner is implemented by panes that run some tools themselves and
// show their output richly (Search, Pages, Research).
type ToolRunner interface {
	Handles(slug string) bool
}

// Now returns the time from c.Clock, or time.Now when unset.
func (c *Common) Now() time.Time {
	if c != nil && c.Clock != nil {
		return c.Clock()
	}
	return time.Now()
}

// ErrNotConnected is returned by Invoke before the gateway is connected.
var ErrNotConnected = errors.New("not connected to the gateway yet; wait for the tool list to load")

// Invoke calls a tool on client, which panes read from Common in Update
// and pass to their command. A nil client (still connecting) is an error,
// not a panic.
// Its error is a *ToolError, which says what was sent.
func Invoke(ctx context.Context, client *api.Client, slug string, inputs map[string]any) (*api.InvokeResult, error) {
	if client == nil {
		return nil, &ToolError{Slug: slug, Inputs: inputs, Err: fmt.Errorf("invoke %s: %w", slug, ErrNotConnected)}
	}
	res, err := client.Invoke(ctx, slug, inputs)
	if err != nil {
		return nil, &ToolError{Slug: slug, Inputs: inputs, Err: err}
	}
	return res, nil
}

// ToolError is a failed tool call with the inputs it sent. It reads as
// the error it wraps; the root finds it in any pane's ErrorMsg and gives
// it to the form that sent those inputs, which comes back with them (see
// ToolFailedMsg), whichever pane ran the call.
type ToolError struct {
	Slug   string
	Inputs map[string]any
	Err    error
}

func (e *ToolError) Error() string { return e.Err.Error() }
func (e *ToolError) Unwrap() error { return e.Err }

// ToolFailedMsg is a ToolError the root hands to the Tools pane, whose
// generated forms (the palette's) sent the call that failed, perhaps.
type ToolFailedMsg struct {
	Err *ToolError
}

// ConnectedMsg reports the gateway connection made by Common.Connect.
type ConnectedMsg struct {
	Client *api.Client
	Err    error
}

// Backgrounder is implemented by panes whose work goes on while another
// pane is shown; Background is a short line for the status bar ("" when
// idle), e.g. "research 1m05s".
type Backgrounder interface {
	Background() string
}

// LineEmptier is implemented by panes whose focused text line can be
// empty. On an empty line the root still opens the palette on ":" and the
// help on "?": neither starts a sensible query, and a new user presses
// them first thing, while the query line has focus.
type LineEmptier interface {
	LineEmpty() bool
}

// CopyURL copies u through the terminal's OSC 52 clipboard (which works
// over SSH where the terminal allows it) and says so in the status bar.
func CopyURL(u string) tea.Cmd {
	return tea.Batch(tea.SetClipboard(u), func() tea.Msg { return NoticeMsg{Text: "copied " + u} })
}

// WatchesMsg says how many watched pages changed since looked at (the
// root shows it in the status bar); a pane sends WatchesChangedMsg after
// it checked or looked at one, for the root to count again.
type WatchesMsg struct {
	Changed int
	// Watched is how many pages are watched, Next when the first of
	// them falls due (zero when none is), Checked when one was last read.
	Watched       int
	Next, Checked time.Time
	Err           error
}

type WatchesChangedMsg struct{}
