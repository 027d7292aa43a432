package web_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/datamonsters/turns/models"
)

// talkTexts are the texts of game id's messages as u reads them (API).
func (s *site) talkTexts(u apiUser, id int64) []string {
	s.t.Helper()
	var l struct {
		Messages []struct {
			Text string `json:"text"`
		} `json:"messages"`
	}
	s.apiCall(http.MethodGet, "/v1/games/"+itoa(id)+"/messages?limit=200", u.Access, nil, &l)
	var out []string
	for _, m := range l.Messages {
		out = append(out, m.Text)
	}
	return out
}

// TestAttackTalkBoardForms: the board's talk forms sent by hand. dan, who
// has no seat in ana and bob's private game, may neither post nor mute
// (404) and learns nothing of it; a post from another site is refused; a
// text of bytes that are not UTF-8, a recipient that is no number or no
// other player's seat, or a text too long that would close its textarea
// is refused with the board and why (4xx), never a server error, and the
// text shown again stays text. None of them posts anything.
func TestAttackTalkBoardForms(t *testing.T) {
	eachDB(t, func(t *testing.T, d models.Dialect) {
		s := newSite(t, d, siteOptions{})
		ana, _, apiAna, apiBob := s.twoPlayers()
		dan := s.client()
		dan.register("dan", "password-dan")
		id := s.startGame(apiAna, apiBob)
		path := gamePath(id) + "/messages"
		s.apiCall(http.MethodPost, "/v1/games/"+itoa(id)+"/messages", apiAna.Access, map[string]any{"text": "only for bob"}, nil)

		for _, r := range []resp{
			dan.post(path, url.Values{"text": {"let me in"}}),
			dan.post(path+"/mute", url.Values{"muted": {"on"}}),
			dan.get(gamePath(id)),
		} {
			if r.Status != http.StatusNotFound || strings.Contains(r.Body, "only for bob") {
				t.Errorf("dan: %d\n%s", r.Status, clip(r.Body))
			}
		}
		if r := ana.postFrom(path, url.Values{"text": {"sent from elsewhere"}}, "https://evil.example", "cross-site"); r.Status < 400 || r.Status >= 500 {
			t.Errorf("a cross-site post: %d\n%s", r.Status, clip(r.Body))
		}

		closer := "</textarea><script>alert(1)</script>" + strings.Repeat("x", 600)
		for name, form := range map[string]url.Values{
			"not UTF-8":          {"text": {"gg \xff\xfe"}},
			"to a word":          {"text": {"hi"}, "to": {"bob"}},
			"to a huge number":   {"text": {"hi"}, "to": {"99999999999999999999999"}},
			"to a negative seat": {"text": {"hi"}, "to": {"-1"}},
			"to one of two":      {"text": {"hi"}, "to": {"1"}},
			"closing textarea":   {"text": {closer}},
			"NUL":                {"text": {"a\x00b"}},
			"only spaces":        {"text": {" \u00a0\u3000\t"}},
		} {
			r := ana.post(path, form)
			if r.Status < 400 || r.Status >= 500 {
				t.Errorf("%s: %d\n%s", name, r.Status, clip(r.Body))
				continue
			}
			if strings.Contains(r.Body, "<script>alert(1)") {
				t.Errorf("%s: the text shown again is markup", name)
			}
		}
		if got := s.talkTexts(apiBob, id); len(got) != 1 || got[0] != "only for bob" {
			t.Errorf("after the refusals bob reads %q", got)
		}
	})
}
