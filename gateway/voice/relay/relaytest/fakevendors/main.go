// Command fakevendors runs relaytest's fake OpenAI-compatible server and
// fake ElevenLabs on 127.0.0.1 until it is stopped, for the end-to-end
// scripts (scripts/tmux-providers.sh). It writes to the file named by its
// argument the [voice.<code>] sections that point hark's embedded gateway
// at them, then serves.
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"

	"hark/gateway/voice/relay/relaytest"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fakevendors GATEWAY.TOML")
		os.Exit(2)
	}
	oai, stopOAI, err := relaytest.Serve(relaytest.KindOpenAI)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakevendors:", err)
		os.Exit(1)
	}
	defer stopOAI()
	xi, stopXI, err := relaytest.Serve(relaytest.KindElevenLabs)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakevendors:", err)
		os.Exit(1)
	}
	defer stopXI()
	toml := fmt.Sprintf("[voice.openai_speech]\nenabled = true\nurl = %q\napi_key = %q\n\n[voice.elevenlabs]\nenabled = true\nurl = %q\napi_key = %q\n",
		oai.URL, oai.Key, xi.URL, xi.Key)
	if err := os.WriteFile(os.Args[1], []byte(toml), 0o600); err != nil {
		fmt.Fprintln(os.Stderr, "fakevendors:", err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGINT, syscall.SIGTERM)
	<-stop
}
