package web

import (
	"html"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
)

// TestEveryKeywordExplainedOnItsCard walks every card of the card set as
// a board draws it: each keyword and marker the card prints is explained
// on the card itself, in a details element that works without a pointer,
// and no card explains a word it does not print. The markers are read
// from the card as drawn: "hard" on its type line, a line of its text
// that starts "Requires" or "Once per turn".
func TestEveryKeywordExplainedOnItsCard(t *testing.T) {
	cat := engine.Standard()
	v := (&engine.State{}).View(engine.Spectator) // a view of the standard card set
	explained := 0
	markers := map[string]int{} // cards that print each marker
	for _, c := range cat.Cards() {
		cv, ok := v.CardOf(c.ID)
		if !ok {
			t.Fatalf("%s: not in the card set of a view", c.ID)
		}
		drawn := string(cardOf(cv).HTML())
		words := map[string]bool{}
		for _, k := range c.Keywords {
			words[string(k)] = true
		}
		if c.Unique {
			words["unique"] = true
		}
		if c.One {
			words["one"] = true
		}
		if c.Many > 0 {
			words["many"] = true
		}
		if len(c.Recipe) > 0 {
			words["recipe"] = true
		}
		for id, printed := range map[string]string{"hard": `<span class="card-type">Challenge · hard</span>`,
			"requires": `<span>Requires `, "once-per-turn": `<span>Once per turn`} {
			if strings.Contains(drawn, printed) {
				words[id] = true
			}
		}
		for id := range words {
			term, ok := engine.GlossaryTerm(id)
			if !ok {
				t.Fatalf("%s prints %q, which the glossary lacks", c.ID, id)
			}
			if !strings.Contains(drawn, "<dt>"+html.EscapeString(term.Word)+"</dt><dd>"+html.EscapeString(term.Text)+"</dd>") {
				t.Errorf("%s: %s is not explained on the card:\n%s", c.ID, term.Word, drawn)
			}
			explained++
			markers[id]++
		}
		if n := strings.Count(drawn, "<dt>"); n != len(words) {
			t.Errorf("%s explains %d words, prints %d", c.ID, n, len(words))
		}
		if len(words) > 0 && !strings.Contains(drawn, `<details class="terms"><summary>`) {
			t.Errorf("%s: no details element", c.ID)
		}
	}
	if explained == 0 {
		t.Fatal("no card explains a word")
	}
	for _, id := range []string{"hard", "requires", "once-per-turn"} {
		if markers[id] == 0 {
			t.Errorf("no card of the set prints the marker %s: the test reads the cards wrong", id)
		}
	}
}
