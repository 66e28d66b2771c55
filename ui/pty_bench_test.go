//go:build linux

package ui

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"golang.org/x/sys/unix"

	"hark/api"
	"hark/api/apitest"
	"hark/ui/common"
	"hark/ui/internal/uitest"
)

// ptyPair opens a pseudo-terminal of the given size.
func ptyPair(tb testing.TB, cols, rows int) (master, slave *os.File) {
	tb.Helper()
	m, err := os.OpenFile("/dev/ptmx", os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		tb.Skipf("no pty: %v", err)
	}
	fd := int(m.Fd())
	if err := unix.IoctlSetPointerInt(fd, unix.TIOCSPTLCK, 0); err != nil {
		tb.Fatal(err)
	}
	n, err := unix.IoctlGetInt(fd, unix.TIOCGPTN)
	if err != nil {
		tb.Fatal(err)
	}
	s, err := os.OpenFile(fmt.Sprintf("/dev/pts/%d", n), os.O_RDWR|syscall.O_NOCTTY, 0)
	if err != nil {
		tb.Fatal(err)
	}
	if err := unix.IoctlSetWinsize(int(s.Fd()), unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}); err != nil {
		tb.Fatal(err)
	}
	return m, s
}

// terminal counts what the program writes to the pty.
type terminal struct {
	mu     sync.Mutex
	n      int
	last   time.Time
	buf    bytes.Buffer
	master *os.File
}

func (t *terminal) read() {
	b := make([]byte, 64<<10)
	for {
		k, err := t.master.Read(b)
		if k > 0 {
			t.mu.Lock()
			t.n += k
			t.last = time.Now()
			if t.buf.Len() < 1<<20 {
				t.buf.Write(b[:k])
			}
			t.mu.Unlock()
		}
		if err != nil {
			return
		}
	}
}

func (t *terminal) count() int { t.mu.Lock(); defer t.mu.Unlock(); return t.n }

// settle waits until nothing has been written for quiet (and something
// was written after since, when given).
func (t *terminal) settle(since int, quiet time.Duration) {
	deadline := time.Now().Add(5 * time.Second)
	for time.Now().Before(deadline) {
		t.mu.Lock()
		n, last := t.n, t.last
		t.mu.Unlock()
		if n > since && time.Since(last) >= quiet {
			return
		}
		time.Sleep(2 * time.Millisecond)
	}
}

func (t *terminal) contains(s string) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Contains(t.buf.String(), s)
}

// runOnPty runs the TUI on a pty at 120x40 and returns the terminal.
func runOnPty(b *testing.B, srv *apitest.Server) (*tea.Program, *terminal) {
	master, slave := ptyPair(b, 120, 40)
	c, _ := uitest.Common(b, srv)
	c.Clock = nil
	term := &terminal{master: master}
	go term.read()
	p := tea.NewProgram(New(c), tea.WithInput(slave), tea.WithOutput(slave),
		tea.WithEnvironment([]string{"TERM=xterm-256color", "COLORTERM=truecolor"}), tea.WithoutSignals())
	done := make(chan struct{})
	go func() { p.Run(); close(done) }()
	b.Cleanup(func() {
		p.Quit()
		select {
		case <-done:
		case <-time.After(3 * time.Second):
			p.Kill()
		}
		slave.Close()
		master.Close()
	})
	return p, term
}

// LongReport is a markdown report of about size bytes: headings,
// paragraphs, lists, a table and code, like a research report.
func LongReport(size int) string {
	var b strings.Builder
	b.WriteString("# Research report\n\n")
	for i := 1; b.Len() < size; i++ {
		fmt.Fprintf(&b, "## Section %d\n\n", i)
		fmt.Fprintf(&b, "Terminal interfaces stay **responsive** over slow links because they send only what changed. "+
			"Section %d looks at [source %d](https://example.com/s%d) and compares `render` costs across widths; "+
			"the results hold for both light and dark themes, and for narrow and wide terminals alike.\n\n", i, i, i)
		b.WriteString("- a first finding that wraps onto a second line when the terminal is narrow enough\n- a second finding\n- a third, with `code`\n\n")
		if i%5 == 0 {
			b.WriteString("| metric | value |\n|---|---|\n| bytes | 190 |\n| frames | 60 |\n\n")
			b.WriteString("```go\nfunc main() {\n\tfmt.Println(\"hello\")\n}\n```\n\n")
		}
	}
	return b.String()
}

// BenchmarkKeystrokeScrollReport measures the bytes written to the
// terminal when a long research report scrolls by one line (j).
func BenchmarkKeystrokeScrollReport(b *testing.B) { benchReport(b, "j") }

// BenchmarkKeystrokePageReport measures a page down (pgdn) in the report:
// every line of the view is new.
func BenchmarkKeystrokePageReport(b *testing.B) { benchReport(b, "\x1b[6~") }

func benchReport(b *testing.B, reportKey string) {
	srv := apitest.New(b)
	srv.Script(apitest.InvokePath(api.ToolResearch), apitest.OK(map[string]any{"service": "vendor_search", "tool": api.ToolResearch,
		"output": api.ResearchOutput{RequestID: "r", Status: api.ResearchCompleted, Content: LongReport(200 << 10)}}))
	p, term := runOnPty(b, srv)
	term.settle(0, 300*time.Millisecond)
	tool := api.Tool{Slug: api.ToolResearch}
	p.Send(common.RunToolMsg{Tool: tool, Inputs: map[string]any{"input": "long"}})
	// Wait for glamour's rendering (made in a command) to replace the
	// plain text shown meanwhile.
	waitModel(b, p, func(m *Model) bool {
		v := m.Render()
		return strings.Contains(v, "responsive") && !strings.Contains(v, "**responsive**")
	})
	term.settle(0, 300*time.Millisecond)
	keystrokes(b, term, reportKey)
}

// BenchmarkKeystrokeList500 measures the bytes written when the selection
// moves by one in a 500-page list (a map result in Pages).
func BenchmarkKeystrokeList500(b *testing.B) {
	srv := apitest.New(b)
	links := make([]api.MapLink, 500)
	for i := range links {
		links[i] = api.MapLink{URL: fmt.Sprintf("https://docs.example.com/section-%d/page-%03d", i%5, i)}
	}
	srv.Script(apitest.InvokePath(api.ToolMap), apitest.OK(map[string]any{"service": "vendor_search", "tool": api.ToolMap,
		"output": api.MapOutput{BaseURL: "https://docs.example.com", Results: links}}))
	p, term := runOnPty(b, srv)
	term.settle(0, 300*time.Millisecond)
	p.Send(common.RunToolMsg{Tool: api.Tool{Slug: api.ToolMap}, Inputs: map[string]any{"url": "https://docs.example.com"}})
	for !term.contains("page-000") {
		time.Sleep(10 * time.Millisecond)
	}
	term.settle(0, 300*time.Millisecond)
	keystrokes(b, term, "j")
}

func waitModel(b *testing.B, p *tea.Program, cond func(*Model) bool) {
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		ch := make(chan bool, 1)
		p.Send(inspectMsg(func(m *Model) { ch <- cond(m) }))
		if <-ch {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	b.Fatal("condition not met")
}

func keystrokes(b *testing.B, term *terminal, key string) {
	b.ResetTimer()
	total := 0
	for i := 0; i < b.N; i++ {
		before := term.count()
		if _, err := term.master.Write([]byte(key)); err != nil {
			b.Fatal(err)
		}
		term.settle(before, 40*time.Millisecond)
		total += term.count() - before
	}
	b.StopTimer()
	b.ReportMetric(float64(total)/float64(b.N), "bytes/key")
}

// BenchmarkFirstFrame measures the time from starting the program to the
// first frame (the tab line) arriving on the terminal.
func BenchmarkFirstFrame(b *testing.B) {
	srv := apitest.New(b)
	for i := 0; i < b.N; i++ {
		b.StopTimer()
		master, slave := ptyPair(b, 80, 24)
		c, _ := uitest.Common(b, srv)
		term := &terminal{master: master}
		go term.read()
		b.StartTimer()
		start := time.Now()
		p := tea.NewProgram(New(c), tea.WithInput(slave), tea.WithOutput(slave),
			tea.WithEnvironment([]string{"TERM=xterm-256color"}), tea.WithoutSignals())
		done := make(chan struct{})
		go func() { p.Run(); close(done) }()
		for !term.contains("5 Tools") {
			if time.Since(start) > 5*time.Second {
				b.Fatal("no first frame")
			}
			time.Sleep(100 * time.Microsecond)
		}
		b.StopTimer()
		p.Quit()
		<-done
		slave.Close()
		master.Close()
	}
}
