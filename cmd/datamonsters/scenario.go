package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/datamonsters/turns/engine"
)

// scenarioOutput is what `datamonsters scenario FILE` prints: the final
// position as every seat and a spectator see it (never the state itself, so
// never the seed), every event with the step that emitted it, and the
// failed expectations.
type scenarioOutput struct {
	Name     string                   `json:"name,omitempty"`
	Final    scenarioFinal            `json:"final"`
	Events   []engine.ScenarioEvent   `json:"events"`
	Failures []engine.ScenarioFailure `json:"failures"`
}

type scenarioFinal struct {
	Views     []*engine.View `json:"views"`
	Spectator *engine.View   `json:"spectator"`
}

// runScenario runs `datamonsters scenario FILE` (FILE "-" reads standard
// input). It prints the result as JSON on standard output. The exit status
// is 0 when every expectation held, 1 when one failed, 2 when the file
// cannot be read or set up; on a non-zero status it exits the process
// itself, so the dispatcher may call it as a statement or pass the result
// (always 0 then) to os.Exit.
func runScenario(args []string) int {
	if code := scenarioMain(args, os.Stdin, os.Stdout, os.Stderr); code != 0 {
		os.Exit(code)
	}
	return 0
}

func scenarioMain(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: datamonsters scenario FILE   (FILE - reads standard input; the format is in docs/scenarios.md)")
		return 2
	}
	var data []byte
	var err error
	if args[0] == "-" {
		data, err = io.ReadAll(stdin)
	} else {
		data, err = os.ReadFile(args[0])
	}
	if err != nil {
		fmt.Fprintf(stderr, "scenario: %v\n", err)
		return 2
	}
	res, err := engine.RunScenario(data)
	if err != nil {
		fmt.Fprintf(stderr, "scenario %s: %v\n", args[0], err)
		return 2
	}
	out := scenarioOutput{Name: res.Name, Final: scenarioFinal{Views: res.Views, Spectator: res.Spectator},
		Events: res.Events, Failures: res.Failures}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	if err := enc.Encode(out); err != nil {
		fmt.Fprintf(stderr, "scenario: %v\n", err)
		return 2
	}
	for _, f := range res.Failures {
		fmt.Fprintln(stderr, "FAIL", f)
	}
	if res.Failed() {
		return 1
	}
	return 0
}
