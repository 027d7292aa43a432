package main

import (
	"fmt"
	"os"
)

const usage = `usage: datamonsters <command> [arguments]

commands:
  serve      run the HTTP API and the pages (applies pending migrations first)
  migrate    apply pending database migrations and exit
  scenario   run a rules scenario file and print the result as JSON
  simulate   play bot games and print statistics
  replay     check that a finished game replays from its revealed secret
  bench      load-test the API over HTTP with concurrent clients
  healthcheck  exit 0 if the server on ADDR is ready (the image's HEALTHCHECK)
`

func main() {
	if len(os.Args) < 2 {
		fmt.Fprint(os.Stderr, usage)
		os.Exit(2)
	}
	args := os.Args[2:]
	code := 0
	switch os.Args[1] {
	case "serve":
		code = runServe(args)
	case "migrate":
		code = runMigrate(args)
	case "scenario":
		runScenario(args) // exits by itself on failure
	case "simulate":
		runSimulate(args) // exits by itself on failure
	case "replay":
		code = runReplay(args)
	case "bench":
		code = runBench(args)
	case "healthcheck":
		code = runHealthcheck(os.Getenv)
	case "help", "-h", "--help":
		fmt.Print(usage)
	default:
		fmt.Fprintf(os.Stderr, "datamonsters: unknown command %q\n\n%s", os.Args[1], usage)
		code = 2
	}
	os.Exit(code)
}

// fatal prints err and exits with status 1.
func fatal(err error) {
	fmt.Fprintln(os.Stderr, "datamonsters:", err)
	os.Exit(1)
}
