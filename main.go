// Command hark is a terminal client for the web search and speech gateway:
// a TUI when run bare, and scriptable subcommands for everything the
// gateway offers. The command line is package cli; this file only runs it.
package main

import (
	"context"
	"os"
	"os/signal"
	"syscall"

	"hark/cli"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	// The first signal cancels what runs; a second one, should anything
	// still hang, ends hark as the signal's default does.
	context.AfterFunc(ctx, stop)
	code := cli.Run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}
