// Command fileserver serves a folder over HTTP on loopback for the tmux
// end-to-end scripts (scripts/tmux-*.sh): the sites they index, crawl and
// watch. It prints the port it listens on, alone on the first line of its
// output, and closes its output, so a script can read the port and go on.
//
// Usage: fileserver DIR [PORT]   (PORT 0 or absent: a free port)
package main

import (
	"fmt"
	"net"
	"net/http"
	"os"
)

func main() {
	if len(os.Args) < 2 || len(os.Args) > 3 {
		fmt.Fprintln(os.Stderr, "usage: fileserver DIR [PORT]")
		os.Exit(2)
	}
	port := "0"
	if len(os.Args) == 3 {
		port = os.Args[2]
	}
	ln, err := net.Listen("tcp", "127.0.0.1:"+port)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	os.Stdout.Close()
	fmt.Fprintln(os.Stderr, http.Serve(ln, http.FileServer(http.Dir(os.Args[1]))))
	os.Exit(1)
}
