package demo

import (
	"context"
	"fmt"

	tea "charm.land/bubbletea/v2"

	"hark/ui/common"
)

// App is the stage alone, full screen: `hark demo DECK.toml`. It connects
// to the gateway, opens the deck and plays it; q on a stopped or ended
// show, or ctrl+c, quits.
type App struct {
	c     *common.Common
	stage *Model
	path  string
	err   error // the gateway could not be reached
}

// NewApp plays the deck at path on a stage of its own.
func NewApp(c *common.Common, path string) *App {
	return &App{c: c, stage: New(c), path: path}
}

// Stage is the stage, for tests.
func (a *App) Stage() *Model { return a.stage }

func (a *App) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor}
	if a.c.Client == nil && a.c.Connect != nil {
		connect := a.c.Connect
		cmds = append(cmds, func() tea.Msg {
			cl, err := connect(context.Background())
			return common.ConnectedMsg{Client: cl, Err: err}
		})
	} else {
		cmds = append(cmds, a.stage.Open(a.path))
	}
	return tea.Batch(cmds...)
}

func (a *App) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		a.stage.SetSize(msg.Width, msg.Height)
		return a, nil
	case tea.BackgroundColorMsg:
		*a.c.Styles = *common.NewStyles(msg.IsDark(), a.c.Styles.NoColor)
		return a, nil
	case common.ConnectedMsg:
		if msg.Err != nil {
			a.err = fmt.Errorf("gateway: %w", msg.Err)
			return a, nil
		}
		a.c.Client = msg.Client
		return a, a.stage.Open(a.path)
	case tea.KeyPressMsg:
		if msg.String() == "ctrl+c" || a.err != nil {
			a.stage.Close()
			return a, tea.Quit
		}
	case ClosedMsg:
		return a, tea.Quit
	}
	return a, a.stage.Update(msg)
}

func (a *App) View() tea.View {
	s := a.stage.View()
	if a.err != nil {
		s = a.c.Styles.Err.Render(a.err.Error()) + "\n\nany key quits"
	}
	v := tea.NewView(s)
	v.AltScreen = true
	v.WindowTitle = "hark demo"
	return v
}
