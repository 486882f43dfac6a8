// Command serve runs the scripted model API on a scenario file, for trying
// an agent CLI by hand: it prints its base URL, then serves until killed,
// logging each request on stderr.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"

	"github.com/loopkit/loopkit/internal/testsupport/modelapi"
)

func main() {
	scenario := flag.String("scenario", "", "scenario `FILE` (JSON)")
	addr := flag.String("addr", "127.0.0.1:0", "listen `ADDR`ESS")
	verbose := flag.Bool("v", false, "also log request bodies")
	flag.Parse()
	if *scenario == "" {
		log.Fatal("serve: -scenario FILE is required")
	}
	sc, err := modelapi.Load(*scenario)
	if err != nil {
		log.Fatal(err)
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("http://%s\n", ln.Addr())
	srv := modelapi.New(sc)
	enc := json.NewEncoder(os.Stderr)
	log.Fatal(http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		srv.ServeHTTP(w, r)
		reqs := srv.Requests()
		enc.Encode(reqs[len(reqs)-1])
		if *verbose {
			if b := srv.Bodies(); len(b) > 0 {
				fmt.Fprintln(os.Stderr, b[len(b)-1])
			}
		}
	})))
}
