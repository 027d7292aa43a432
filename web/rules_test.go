package web_test

import (
	"html"
	"strings"
	"testing"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
)

// TestRulesPage: the rules are one link away from every page, signed in
// or not, and hold an entry, with an anchor, for every word of the
// glossary.
func TestRulesPage(t *testing.T) {
	s := newSite(t, models.SQLite, siteOptions{})
	anon := s.client()
	for _, path := range []string{"/", "/login", "/register", "/nowhere"} {
		r := anon.get(path)
		if !strings.Contains(r.Body, `<a href="/rules">How to play</a>`) {
			t.Errorf("%s (%d) has no link to the rules", path, r.Status)
		}
	}
	c := s.client()
	c.register("ana", "ana password")
	c.get("/settings").mustSee(t, 200, `<a href="/rules">How to play</a>`)
	page := anon.get("/rules").mustSee(t, 200, "How to play Data Monsters", "Setting up", "A turn", "Monsters and levels",
		"Builds and claims", "Hacks and interrupts", "The end and the tie-break", "Fair play").Body
	for _, term := range engine.Glossary {
		if !strings.Contains(page, `<dt id="`+term.ID+`">`+html.EscapeString(term.Word)+`</dt>`) || !strings.Contains(page, html.EscapeString(term.Text)) {
			t.Errorf("the rules page has no entry for %s", term.Word)
		}
	}
	if strings.Contains(page, "replying to that email") {
		t.Error("the rules offer play by reply on a server that takes none")
	}
}
