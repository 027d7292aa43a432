package notifier

import "testing"

// TestJobKeys: the keys the helpers build are the keys the jobs have
// always had: River's uniqueness and the webhook delivery ids a client has
// stored hang on them.
func TestJobKeys(t *testing.T) {
	for got, want := range map[jobKey]string{
		key(12, 34, KindYourTurn, 5).w("email"):            "g12.v34.your_turn.u5.email",
		key(12, 34, KindYourTurn, 5).n("wh", 7):            "g12.v34.your_turn.u5.wh7",
		key(12, 34, KindTimeoutApplied, 5).n("e", 90):      "g12.v34.timeout_applied.u5.e90",
		jobKey(streamKey(12, 34)):                          "g12.v34.stream",
		gameKey(12).n("v", 34).w("bot").n("s", 1):          "g12.v34.bot.s1",
		gameKey(12).n("d", 1700000000000000).w("reminder"): "g12.d1700000000000000.reminder",
		gameKey(12).n("vac", 3).w(string(KindVacation)):    "g12.vac3.vacation",
		gameKey(12).n("m", 8).w(string(KindMessage)):       "g12.m8.message",
		jobKey("digest").n("u", 5).w("t202612020700"):      "digest.u5.t202612020700",
		jobKey("dlv_g12-v34").w("r" + "abc"):               "dlv_g12-v34.rabc",
	} {
		if string(got) != want {
			t.Errorf("key %q, want %q", got, want)
		}
	}
	if got := deliveryID(string(key(12, 34, KindYourTurn, 5).n("wh", 7))); got != "dlv_g12-v34-your_turn-u5-wh7" {
		t.Errorf("delivery id %q", got)
	}
}
