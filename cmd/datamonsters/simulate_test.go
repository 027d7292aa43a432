package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestSimulate(t *testing.T) {
	var out, errOut bytes.Buffer
	code := simulate([]string{"--games", "6", "--players", "3", "--decks", "running-a-startup,Working for the Enterprise", "--seed", "5", "--bot", "random", "--mode", "fast", "--policy", "conceal", "--workers", "2"}, &out, &errOut)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"6 games, 3 players, random bots, fast mode, conceal policy", "could not finish 0", "mean turns per game", "games per second", "running-a-startup", "working-for-the-enterprise  ", "seat 2", "first"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	if code := simulate([]string{"--games", "2", "--players", "4", "--office"}, &out, &errOut); code != 0 || !strings.Contains(out.String(), "office") {
		t.Fatalf("office: exit %d: %s %s", code, out.String(), errOut.String())
	}
}

// TestSimulateLog checks that --log prints every action of every game in
// words, in game order, before the summary.
func TestSimulateLog(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := simulate([]string{"--games", "2", "--seed", "3", "--workers", "2", "--log"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	text := out.String()
	first, second, summary := strings.Index(text, "game 1 turn 1 Seat "), strings.Index(text, "game 2 turn 1 Seat "), strings.Index(text, "2 games, 2 players")
	if first < 0 || second < first || summary < second {
		t.Fatalf("log lines out of order or missing:\n%s", text)
	}
	for _, want := range []string{": End your turn\n", ": Claim ", ": Play "} {
		if !strings.Contains(text, want) {
			t.Errorf("the log has no %q", want)
		}
	}
	out.Reset()
	if simulate([]string{"--games", "1"}, &out, &errOut); strings.Contains(out.String(), "game 1 turn") {
		t.Error("without --log the actions are printed")
	}
}

func TestSimulateBadArguments(t *testing.T) {
	for _, args := range [][]string{
		{"--players", "5"},
		{"--games", "0"},
		{"--bot", "clever"},
		{"--mode", "slow"},
		{"--policy", "nobody"},
		{"--decks", "no-such-deck"},
		{"--max-turns", "0"},
		{"--workers", "0"},
		{"extra"},
		{"--no-such-flag"},
	} {
		var out, errOut bytes.Buffer
		if code := simulate(args, &out, &errOut); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
		if errOut.Len() == 0 {
			t.Errorf("%v: no message", args)
		}
	}
	var out, errOut bytes.Buffer
	if code := simulate([]string{"-h"}, &out, &errOut); code != 0 || !strings.Contains(errOut.String(), "usage: datamonsters simulate") {
		t.Errorf("-h: exit %d, %q", code, errOut.String())
	}
}
