// Command fakezotero serves zoterotest's fake of Zotero's connector on a
// loopback address, for the tmux scripts: it prints the address it
// listens on, then serves until killed. GET /hark-fake/items lists what
// it was sent.
package main

import (
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"

	"hark/library/zoterotest"
)

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "address to listen on")
	flag.Parse()
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "fakezotero:", err)
		os.Exit(1)
	}
	fmt.Println("http://" + ln.Addr().String())
	os.Stdout.Sync()
	if err := http.Serve(ln, zoterotest.New()); err != nil {
		fmt.Fprintln(os.Stderr, "fakezotero:", err)
		os.Exit(1)
	}
}
