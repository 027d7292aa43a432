package notifier

import (
	"slices"
	"strings"

	"github.com/datamonsters/turns/engine"
)

// replyEvents are the words a reply names an interrupt's event with
// (`<card> when <event>`).
var replyEvents = map[engine.EventKind]string{engine.EvDraw: "draw", engine.EvPlace: "place", engine.EvPlayTool: "tool",
	engine.EvPlayHack: "hack", engine.EvClaim: "claim"}

// maxOffered is the most cards a standing offer names.
const maxOffered = 3

// StandingOffer is what the seat of v may answer now, once its own turn
// is over, to the interrupt windows of the opponents' coming turn, so that
// none of them waits for it: "always pass", and "<card> when <event>" for
// each interrupt Hack it holds and event it answers (at most maxOffered),
// in the words a reply takes. None when the seat always passes already,
// or cannot be asked (it holds no interrupt, in a game that asks only
// those who do).
func StandingOffer(v *engine.View) []string {
	if v == nil || v.Seat < 0 || v.Standing != nil && v.Standing.Pass {
		return nil
	}
	cat := engine.Standard()
	var plays []string
	for _, h := range v.Hand {
		c := cat.Card(h.Card)
		if c == nil || !c.Has(engine.KwInterrupt) {
			continue
		}
		for _, e := range c.Effects {
			w, ok := replyEvents[e.Answers]
			if e.Trigger != engine.OnInterrupt || !ok {
				continue
			}
			if p := strings.ToLower(c.Name) + " when " + w; !slices.Contains(plays, p) && len(plays) < maxOffered {
				plays = append(plays, p)
			}
		}
	}
	if len(plays) == 0 && v.Policy != engine.Conceal {
		return nil
	}
	return append([]string{"always pass"}, plays...)
}

// OfferLine is the offer as an email puts it, in one line: `reply "always
// pass", "hiring freeze when place", or nothing to be asked`; "" for none.
func OfferLine(offer []string) string {
	if len(offer) == 0 {
		return ""
	}
	return `reply "` + strings.Join(offer, `", "`) + `", or nothing to be asked`
}
