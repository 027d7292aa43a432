package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestScenarios runs every rule scenario under testdata/scenarios; each must
// load and meet all its expectations.
func TestScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/scenarios/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no scenario files")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			res, err := RunScenario(data)
			if err != nil {
				t.Fatal(err)
			}
			for _, fl := range res.Failures {
				t.Error(fl)
			}
			if res.State == nil {
				return
			}
			checkInvariants(t, res.State)
			// Same file, same result: scenarios are deterministic.
			again, err := RunScenario(data)
			if err != nil {
				t.Fatal(err)
			}
			if again.State.Hash() != res.State.Hash() {
				t.Error("running the scenario twice gave different final states")
			}
		})
	}
}

// TestScenariosThatMustFail runs the files under testdata/bad: each holds a
// wrong expectation (or a broken file) and the runner must report it. The
// first line of each file is "# want: TEXT", a substring of the failure or
// error the runner must give.
func TestScenariosThatMustFail(t *testing.T) {
	files, err := filepath.Glob("testdata/bad/*.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no bad scenario files")
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".yaml"), func(t *testing.T) {
			t.Parallel()
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			first, _, _ := strings.Cut(string(data), "\n")
			want, ok := strings.CutPrefix(first, "# want: ")
			if !ok {
				t.Fatalf("first line must be '# want: TEXT', got %q", first)
			}
			res, err := RunScenario(data)
			var got string
			switch {
			case err != nil:
				got = err.Error()
			case !res.Failed():
				t.Fatal("the scenario passed; it must fail")
			default:
				var msgs []string
				for _, fl := range res.Failures {
					msgs = append(msgs, fl.String())
				}
				got = strings.Join(msgs, "\n")
			}
			if !strings.Contains(got, want) {
				t.Errorf("failure does not mention %q:\n%s", want, got)
			}
		})
	}
}

// checkInvariants checks what must hold in any state: every instance id is
// unique, and the views hold no seed and no other seat's hand.
func checkInvariants(t *testing.T, s *State) {
	t.Helper()
	seen := map[string]bool{}
	for _, c := range s.Cards() {
		if seen[c.ID] {
			t.Errorf("instance id %s appears twice", c.ID)
		}
		seen[c.ID] = true
	}
	for seat := -1; seat < len(s.Players); seat++ {
		v := s.View(seat)
		for other := range s.Players {
			if other == seat {
				continue
			}
			for _, in := range s.Players[other].Hand {
				for _, cv := range append(append(v.Hand, v.Bin...), flatten(v)...) {
					if cv.ID == in.ID {
						t.Errorf("seat %d's view shows seat %d's hand card %s", seat, other, in.ID)
					}
				}
			}
		}
	}
}

func flatten(v *View) []CardView {
	var out []CardView
	for _, p := range v.Players {
		out = append(out, p.Lab...)
		out = append(out, p.Ranking...)
	}
	out = append(out, v.Market...)
	return out
}
