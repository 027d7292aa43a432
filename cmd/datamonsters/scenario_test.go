package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestScenarioCommand(t *testing.T) {
	const pass = `
name: place a Junior
cards:
  - {id: t-bob, name: Bob, type: monster, level: junior, classes: [Engineer, Designer]}
seed: 123456789
players:
  - {name: Ana, hand: [t-bob]}
  - {name: Ben}
steps:
  - do: place
    card: t-bob
    expect:
      seats:
        0: {lab: [t-bob]}
`
	fail := strings.Replace(pass, "lab: [t-bob]", "lab: []", 1)
	dir := t.TempDir()
	write := func(name, body string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		code   int
		stderr string
	}{
		{"pass", []string{write("pass.yaml", pass)}, "", 0, ""},
		{"stdin", []string{"-"}, pass, 0, ""},
		{"fail", []string{write("fail.yaml", fail)}, "", 1, "FAIL step 1: seat 0 Lab: expected [], found [t-bob]"},
		{"missing file", []string{filepath.Join(dir, "nope.yaml")}, "", 2, "no such file"},
		{"bad file", []string{write("bad.yaml", "players: [{name: Ana, hnad: []}]")}, "", 2, "hnad"},
		{"usage", nil, "", 2, "usage"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			code := scenarioMain(tc.args, strings.NewReader(tc.stdin), &out, &errOut)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr %s", code, tc.code, errOut.String())
			}
			if !strings.Contains(errOut.String(), tc.stderr) {
				t.Errorf("stderr %q does not mention %q", errOut.String(), tc.stderr)
			}
			if code == 2 {
				return
			}
			var res struct {
				Final struct {
					Views     []map[string]any `json:"views"`
					Spectator map[string]any   `json:"spectator"`
				} `json:"final"`
				Events   []map[string]any `json:"events"`
				Failures []map[string]any `json:"failures"`
			}
			if err := json.Unmarshal(out.Bytes(), &res); err != nil {
				t.Fatal(err)
			}
			if len(res.Final.Views) != 2 || res.Final.Spectator == nil || len(res.Events) == 0 {
				t.Errorf("output lacks views or events: %s", out.String())
			}
			if (len(res.Failures) > 0) != (code == 1) {
				t.Errorf("failures %v with exit %d", res.Failures, code)
			}
			if strings.Contains(out.String(), "seed") || strings.Contains(out.String(), "123456789") {
				t.Error("the output shows the seed")
			}
		})
	}
}
