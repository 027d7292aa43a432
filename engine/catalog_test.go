package engine

import (
	"errors"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The two prebuilt Adventure Packs.
const (
	startupPack    = "running-a-startup"
	enterprisePack = "working-for-the-enterprise"
)

func mustDeck(t *testing.T, id string) Deck {
	t.Helper()
	d, ok := Standard().Deck(id)
	if !ok {
		t.Fatalf("prebuilt deck %q is missing", id)
	}
	return d
}

// fourPackOffice combines two copies of each pack and removes the copies
// over the office limits, as the rulebook suggests.
func fourPackOffice(a, b Deck) Deck { return Standard().OfficeDeck([]Deck{a, a, b, b}) }

func TestStandardCatalogLoads(t *testing.T) {
	cat := Standard()
	if got := len(cat.Cards()); got < 60 {
		t.Fatalf("standard set has %d cards, want at least 60", got)
	}
	basic, hard := cat.Challenges()
	if len(basic) != 8 || len(hard) != 7 {
		t.Fatalf("challenges: %d basic and %d hard, want 8 and 7", len(basic), len(hard))
	}
	slug := regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)
	names := map[string]string{}
	for _, c := range cat.Cards() {
		if !slug.MatchString(c.ID) {
			t.Errorf("card id %q is not a lowercase slug", c.ID)
		}
		if c.Type == Monster {
			continue // the levels of one Monster share a name
		}
		if other, dup := names[c.Name]; dup {
			t.Errorf("cards %q and %q share the name %q", other, c.ID, c.Name)
		}
		names[c.Name] = c.ID
	}
}

func TestChallengeSizes(t *testing.T) {
	cat := Standard()
	basic, hard := cat.Challenges()
	maxBasic, minHard := 0, 1<<30
	for _, id := range basic {
		c := cat.Card(id)
		maxBasic = max(maxBasic, c.Tech+c.Sci)
		if c.Tech+c.Sci < 5 || c.Tech+c.Sci > 10 {
			t.Errorf("basic challenge %s needs %d TECH+SCI, want 5-10 (2-4 Tools)", id, c.Tech+c.Sci)
		}
	}
	for _, id := range hard {
		c := cat.Card(id)
		minHard = min(minHard, c.Tech+c.Sci)
		if c.Tech+c.Sci < 12 || c.Tech+c.Sci > 18 {
			t.Errorf("hard challenge %s needs %d TECH+SCI, want 12-18 (4-6 Tools or buffs)", id, c.Tech+c.Sci)
		}
		if c.Points <= 3 {
			t.Errorf("hard challenge %s is worth only %d Big Data Points", id, c.Points)
		}
	}
	if maxBasic >= minHard {
		t.Errorf("the biggest basic challenge (%d) is not smaller than the smallest hard one (%d)", maxBasic, minHard)
	}
}

func TestPrebuiltDecksAreLegal(t *testing.T) {
	cat := Standard()
	for _, tc := range []struct{ id, name string }{
		{startupPack, "Running a Startup"},
		{enterprisePack, "Working for the Enterprise"},
	} {
		d := mustDeck(t, tc.id)
		if d.Name != tc.name {
			t.Errorf("deck %s is named %q, want %q", tc.id, d.Name, tc.name)
		}
		if err := ValidateDeck(cat, d, false, 0); err != nil {
			t.Errorf("deck %s: %v", tc.id, err)
		}
		if d.Size() < MinDeck || d.Size() > MaxDeck {
			t.Errorf("deck %s has %d cards", tc.id, d.Size())
		}
		byType := map[CardType]int{}
		hasScrum := false
		for _, e := range d.Cards {
			byType[cat.Card(e.Card).Type] += e.Count
			hasScrum = hasScrum || e.Card == "scrum-planning"
		}
		if !hasScrum {
			t.Errorf("deck %s has no Scrum Planning", tc.id)
		}
		if share := float64(byType[Tool]) / float64(d.Size()); share < 0.4 || share > 0.5 {
			t.Errorf("deck %s is %.0f%% Tools, want 40-50%%", tc.id, 100*share)
		}
		for _, ty := range []CardType{Monster, LabEquipment, Tool, Hack} {
			if byType[ty] == 0 {
				t.Errorf("deck %s has no %s", tc.id, ty.Title())
			}
		}
	}
	scrum := cat.Card("scrum-planning")
	if scrum == nil || scrum.Name != "Scrum Planning" || scrum.Type != Hack {
		t.Fatalf("scrum-planning = %+v, want the Hack Scrum Planning", scrum)
	}
}

// The two packs have the same number of Tools carrying the same TECH+SCI,
// so that neither starts with more building power.
func TestPrebuiltDecksMirror(t *testing.T) {
	cat := Standard()
	type sums struct{ tools, power, monsters, equipment, hacks, interrupts int }
	count := func(d Deck) sums {
		var s sums
		for _, e := range d.Cards {
			c := cat.Card(e.Card)
			switch c.Type {
			case Tool:
				s.tools += e.Count
				s.power += e.Count * (c.Tech + c.Sci)
			case Monster:
				s.monsters += e.Count
			case LabEquipment:
				s.equipment += e.Count
			case Hack:
				s.hacks += e.Count
				if c.Has(KwInterrupt) {
					s.interrupts += e.Count
				}
			}
		}
		return s
	}
	a, b := count(mustDeck(t, startupPack)), count(mustDeck(t, enterprisePack))
	if a != b {
		t.Errorf("packs differ: startup %+v, enterprise %+v", a, b)
	}
}

func TestFourPacksMakeAnOfficeDeck(t *testing.T) {
	cat := Standard()
	a, b := mustDeck(t, startupPack), mustDeck(t, enterprisePack)
	office := fourPackOffice(a, b)
	for players := MinPlayers; players <= MaxPlayers; players++ {
		if err := ValidateDeck(cat, office, true, players); err != nil {
			t.Errorf("office deck for %d players: %v", players, err)
		}
	}
	// Without removing the superfluous copies, Scrum Planning (2 per pack)
	// appears 8 times, over the office limit of 4.
	raw := Deck{ID: "raw", Name: "Raw", Cards: slices.Concat(a.Cards, a.Cards, b.Cards, b.Cards)}
	err := ValidateDeck(cat, raw, true, 4)
	var de *DeckError
	if !errors.As(err, &de) || de.Rule == RuleDeckSize {
		t.Fatalf("four raw packs: got %v, want a copy-limit error", err)
	}
	found := false
	for _, e := range office.Cards {
		if e.Card == "scrum-planning" {
			found = e.Count == OfficeCopies
		}
	}
	if !found {
		t.Errorf("office deck should keep %d Scrum Planning", OfficeCopies)
	}
}

func TestEveryTypeKeywordAndMarkerIsUsed(t *testing.T) {
	types := map[CardType]int{}
	keywords := map[Keyword]int{}
	one, many := 0, 0
	for _, c := range Standard().Cards() {
		types[c.Type]++
		for _, k := range c.Keywords {
			keywords[k]++
		}
		if c.One {
			one++
		}
		if c.Many > 0 {
			many++
		}
	}
	for _, ty := range []CardType{Monster, LabEquipment, Tool, Hack, Challenge} {
		if types[ty] == 0 {
			t.Errorf("no %s card", ty.Title())
		}
	}
	for _, k := range []Keyword{KwInterrupt, KwLimit, KwGlobal, KwComponent, KwStack} {
		if keywords[k] == 0 {
			t.Errorf("no card has keyword %s", k)
		}
	}
	if one == 0 || many == 0 {
		t.Errorf("markers: %d cards marked one, %d marked many; want both used", one, many)
	}
}

// Every part of the effect vocabulary appears on some card, so that each is
// shown in play and documented by example.
func TestEveryVerbTriggerWhoAndConditionIsUsed(t *testing.T) {
	verbs, triggers, whos, stats := map[Verb]bool{}, map[Trigger]bool{}, map[Who]bool{}, map[Stat]bool{}
	conds := map[string]bool{}
	perUsed, costUsed := false, false
	noteCond := func(c Condition) {
		if c.Class != "" && c.Level == "" {
			conds["class"] = true
		}
		if c.Level != "" {
			conds["level"] = true
		}
		if c.Equipment != "" {
			conds["equipment"] = true
		}
		if c.Recipe {
			conds["recipe"] = true
		}
		if c.Components > 0 {
			conds["components"] = true
		}
	}
	var noteOps func([]Op)
	noteOps = func(ops []Op) {
		for _, op := range ops {
			verbs[op.Verb] = true
			whos[who(op.Who)] = true
			if op.Stat != "" {
				stats[op.Stat] = true
			}
			perUsed = perUsed || op.Per != ""
			for _, o := range op.Options {
				noteOps(o)
			}
		}
	}
	for _, c := range Standard().Cards() {
		for _, r := range c.Requires {
			noteCond(r)
		}
		for _, e := range c.Effects {
			triggers[e.Trigger] = true
			costUsed = costUsed || e.Cost > 0
			if e.If != nil {
				noteCond(*e.If)
			}
			noteOps(e.Do)
		}
	}
	for v := range validVerbs {
		if !verbs[v] {
			t.Errorf("no card uses op %s", v)
		}
	}
	for _, tr := range []Trigger{OnPlay, OnTurnStart, OnTurnEnd, Activated, Static, OnInterrupt} {
		if !triggers[tr] {
			t.Errorf("no card uses trigger %s", tr)
		}
	}
	for _, w := range []Who{Self, Opponents, All, Chosen, Actor} {
		if !whos[w] {
			t.Errorf("no card uses who %s", w)
		}
	}
	for _, s := range []Stat{StatTech, StatSci, StatDraw, StatPoints} {
		if !stats[s] {
			t.Errorf("no card uses stat %s", s)
		}
	}
	for _, k := range []string{"class", "level", "equipment", "recipe", "components"} {
		if !conds[k] {
			t.Errorf("no card uses a %s condition", k)
		}
	}
	if !perUsed || !costUsed {
		t.Errorf("per used: %v, cost used: %v; want both", perUsed, costUsed)
	}
}

func TestInterruptHacksAnswerDifferentEvents(t *testing.T) {
	events := map[EventKind][]string{}
	for _, c := range Standard().Cards() {
		if !c.Has(KwInterrupt) {
			continue
		}
		for _, e := range c.Effects {
			events[e.Answers] = append(events[e.Answers], c.ID)
		}
	}
	if len(events) < 3 {
		t.Fatalf("interrupt Hacks answer %d different events (%v), want at least 3", len(events), events)
	}
	for _, ev := range []EventKind{EvDraw, EvPlace, EvPlayTool, EvPlayHack, EvClaim} {
		if len(events[ev]) == 0 {
			t.Errorf("no interrupt Hack answers %s", ev)
		}
	}
}

func TestMonsterLines(t *testing.T) {
	type line struct {
		levels  map[Level]bool
		classes []Class
	}
	lines := map[string]*line{}
	for _, c := range Standard().Cards() {
		if c.Type != Monster {
			continue
		}
		l := lines[c.Name]
		if l == nil {
			l = &line{levels: map[Level]bool{}, classes: c.Classes}
			lines[c.Name] = l
		}
		l.levels[c.Level] = true
		if !slices.Equal(l.classes, c.Classes) {
			t.Errorf("%s (%s) has classes %v, other levels have %v", c.Name, c.ID, c.Classes, l.classes)
		}
		want := strings.ToLower(strings.ReplaceAll(c.Name, " ", "-")) + "-" + string(c.Level)
		if c.ID != want {
			t.Errorf("monster card id %q, want %q", c.ID, want)
		}
	}
	complete := 0
	usedClasses := map[Class]bool{}
	for name, l := range lines {
		if l.levels[Junior] && l.levels[Senior] && l.levels[Chief] {
			complete++
		} else {
			t.Errorf("Monster %s lacks a level: %v", name, l.levels)
		}
		for _, cl := range l.classes {
			usedClasses[cl] = true
		}
	}
	if complete < 4 {
		t.Errorf("%d Monsters with all three levels, want at least 4", complete)
	}
	for _, cl := range []Class{"Engineer", "Designer", "Scientist", "Analyst"} {
		if !usedClasses[cl] {
			t.Errorf("no Monster of class %s", cl)
		}
	}
}

// Cards outside the two packs give players choices for custom decks.
func TestExtraCardsForCustomDecks(t *testing.T) {
	inPack := map[string]bool{}
	for _, d := range Standard().Decks() {
		for _, e := range d.Cards {
			inPack[e.Card] = true
		}
	}
	extra := map[CardType]int{}
	for _, c := range Standard().Cards() {
		if c.Type != Challenge && !inPack[c.ID] {
			extra[c.Type]++
		}
	}
	total := extra[Monster] + extra[LabEquipment] + extra[Tool] + extra[Hack]
	if total < 10 || extra[Tool] < 4 || extra[Hack] < 4 || extra[Monster] < 3 || extra[LabEquipment] < 1 {
		t.Errorf("extra cards beyond the packs: %v (%d), want at least 10 of every type", extra, total)
	}
}

// A set of valid cards that the malformed snippets below can refer to.
const baseCards = `
  - {id: lamp, name: Lamp, type: lab_equipment}
  - {id: part-a, name: Part A, type: tool, keywords: [component], tech: 1}
  - {id: plain, name: Plain Tool, type: tool, tech: 1}
`

func TestLoadCatalogRejectsBadCards(t *testing.T) {
	for _, tc := range []struct {
		name, yaml string
		card, want string // the card the error names, and words it must contain
	}{
		{"no id", `{name: Nameless, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}`, "Nameless", "id must be"},
		{"id with space", `{id: "bad id", name: Bad, type: hack}`, "bad id", "slug"},
		{"no name", `{id: anon, type: hack}`, "anon", "name is missing"},
		{"unknown type", `{id: spell, name: Spell, type: sorcery}`, "spell", `unknown type "sorcery"`},
		{"monster without level", `{id: mon, name: Mon, type: monster, classes: [Engineer, Designer]}`, "mon", "level"},
		{"monster bad level", `{id: mon, name: Mon, type: monster, level: intern, classes: [Engineer, Designer]}`, "mon", `not "intern"`},
		{"monster one class", `{id: mon, name: Mon, type: monster, level: junior, classes: [Engineer]}`, "mon", "exactly two different classes"},
		{"monster same class twice", `{id: mon, name: Mon, type: monster, level: junior, classes: [Engineer, Engineer]}`, "mon", "two different classes"},
		{"unknown class", `{id: mon, name: Mon, type: monster, level: junior, classes: [Engineer, Wizard]}`, "mon", `unknown class "Wizard"`},
		{"level on a tool", `{id: t1, name: T1, type: tool, level: senior, tech: 1}`, "t1", "only Monsters have a level"},
		{"challenge without points", `{id: ch, name: Ch, type: challenge, tech: 3, sci: 2}`, "ch", "Big Data Points"},
		{"challenge without stats", `{id: ch, name: Ch, type: challenge, points: 2}`, "ch", "TECH or SCI"},
		{"challenge with effect", `{id: ch, name: Ch, type: challenge, tech: 1, points: 1, effects: [{trigger: play, do: [{op: draw, n: 1}]}]}`, "ch", "no effects"},
		{"tech on a hack", `{id: h, name: H, type: hack, tech: 2}`, "h", "only Tools and Challenges have TECH"},
		{"negative sci", `{id: t1, name: T1, type: tool, sci: -1}`, "t1", "negative"},
		{"points on a tool", `{id: t1, name: T1, type: tool, tech: 1, points: 2}`, "t1", "only Challenges have printed Big Data Points"},
		{"hard tool", `{id: t1, name: T1, type: tool, tech: 1, hard: true}`, "t1", "only Challenges can be hard"},
		{"one and many", `{id: t1, name: T1, type: tool, tech: 1, one: true, many: 3}`, "t1", "both one and many"},
		{"many 2", `{id: t1, name: T1, type: tool, tech: 1, many: 2}`, "t1", "at least 3 copies"},
		{"unknown keyword", `{id: t1, name: T1, type: tool, tech: 1, keywords: [legendary]}`, "t1", `unknown keyword "legendary"`},
		{"interrupt on a tool", `{id: t1, name: T1, type: tool, tech: 1, keywords: [interrupt]}`, "t1", "keyword interrupt is for Hacks"},
		{"component on a hack", `{id: h, name: H, type: hack, keywords: [component]}`, "h", "keyword component is for Tools"},
		{"stack without recipe", `{id: st, name: St, type: tool, tech: 1, keywords: [stack]}`, "st", "needs a recipe"},
		{"recipe without stack", `{id: st, name: St, type: tool, tech: 1, recipe: [part-a]}`, "st", "only stack Tools have one"},
		{"recipe not a component", `{id: st, name: St, type: tool, tech: 1, keywords: [stack], recipe: [plain]}`, "st", `"plain", which is not a component`},
		{"recipe unknown card", `{id: st, name: St, type: tool, tech: 1, keywords: [stack], recipe: [ghost]}`, "st", `"ghost"`},
		{"requirement unknown class", `{id: t1, name: T1, type: tool, tech: 1, requires: [{class: Wizard}]}`, "t1", `requirement: unknown class "Wizard"`},
		{"requirement bad level", `{id: t1, name: T1, type: tool, tech: 1, requires: [{level: boss}]}`, "t1", `unknown level "boss"`},
		{"requirement negative count", `{id: t1, name: T1, type: tool, tech: 1, requires: [{class: Engineer, count: -1}]}`, "t1", "negative"},
		{"equipment that is a tool", `{id: t1, name: T1, type: tool, tech: 1, effects: [{trigger: play, if: {equipment: plain}, do: [{op: draw, n: 1}]}]}`, "t1", `"plain" is not a Lab Equipment card`},
		{"recipe condition on a hack", `{id: h, name: H, type: hack, requires: [{recipe: true}]}`, "h", "recipe and components conditions are for Tools"},
		{"recipe condition without stack", `{id: t1, name: T1, type: tool, tech: 1, effects: [{trigger: play, if: {recipe: true}, do: [{op: draw, n: 1}]}]}`, "t1", "needs the stack keyword"},
		{"unknown trigger", `{id: h, name: H, type: hack, effects: [{trigger: sometimes, do: [{op: draw, n: 1}]}]}`, "h", `effect 1: unknown trigger "sometimes"`},
		{"turn start on a hack", `{id: h, name: H, type: hack, effects: [{trigger: turn_start, do: [{op: draw, n: 1}]}]}`, "h", "for cards in a Lab"},
		{"activated on a tool", `{id: t1, name: T1, type: tool, tech: 1, effects: [{trigger: activated, do: [{op: draw, n: 1}]}]}`, "t1", "for cards in a Lab"},
		{"static on a plain hack", `{id: h, name: H, type: hack, effects: [{trigger: static, do: [{op: modify, stat: tech, n: 1}]}]}`, "h", "static effects are for Lab cards and global Hacks"},
		{"draw in a static effect", `{id: e, name: E, type: lab_equipment, effects: [{trigger: static, do: [{op: draw, n: 1}]}]}`, "e", "modify is the only op of static effects"},
		{"modify on play", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: modify, stat: tech, n: 1}]}]}`, "h", "modify is the only op of static effects, and only there"},
		{"modify without stat", `{id: e, name: E, type: lab_equipment, effects: [{trigger: static, do: [{op: modify, n: 1}]}]}`, "e", "modify needs a stat"},
		{"modify zero", `{id: e, name: E, type: lab_equipment, effects: [{trigger: static, do: [{op: modify, stat: tech}]}]}`, "e", "non-zero n"},
		{"unknown stat", `{id: e, name: E, type: lab_equipment, effects: [{trigger: static, do: [{op: modify, stat: luck, n: 1}]}]}`, "e", `unknown stat "luck"`},
		{"interrupt without answers", `{id: h, name: H, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, do: [{op: cancel}]}]}`, "h", "an interrupt answers draw"},
		{"interrupt unknown event", `{id: h, name: H, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: shuffle, do: [{op: cancel}]}]}`, "h", `not "shuffle"`},
		{"interrupt keyword without effect", `{id: h, name: H, type: hack, keywords: [interrupt], effects: [{trigger: play, do: [{op: draw, n: 1}]}]}`, "h", "interrupt Hack needs exactly the interrupt effects"},
		{"interrupt effect without keyword", `{id: h, name: H, type: hack, effects: [{trigger: interrupt, answers: draw, do: [{op: cancel}]}]}`, "h", "interrupt Hack needs exactly the interrupt effects"},
		{"interrupt and global", `{id: h, name: H, type: hack, keywords: [interrupt, global], effects: [{trigger: interrupt, answers: draw, do: [{op: cancel}]}]}`, "h", "cannot be global"},
		{"answers on a play effect", `{id: h, name: H, type: hack, effects: [{trigger: play, answers: draw, do: [{op: draw, n: 1}]}]}`, "h", "only interrupt effects answer events"},
		{"cost on a play effect", `{id: h, name: H, type: hack, effects: [{trigger: play, cost: 1, do: [{op: draw, n: 1}]}]}`, "h", "only activated effects have a cost"},
		{"no operations", `{id: h, name: H, type: hack, effects: [{trigger: play}]}`, "h", "no operations"},
		{"unknown op", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: teleport, n: 1}]}]}`, "h", `unknown op "teleport"`},
		{"draw without n", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: draw}]}]}`, "h", "draw needs a positive n"},
		{"unknown who", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1, who: everyone}]}]}`, "h", `unknown who "everyone"`},
		{"actor outside interrupt", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: discard, n: 1, who: actor}]}]}`, "h", "who actor is only for interrupt effects"},
		{"per unknown class", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: draw, n: 1, per: Wizard}]}]}`, "h", `unknown class "Wizard"`},
		{"boost without stat", `{id: t1, name: T1, type: tool, tech: 1, effects: [{trigger: play, do: [{op: boost, n: 1}]}]}`, "t1", "boost needs stat tech or sci"},
		{"boost points", `{id: t1, name: T1, type: tool, tech: 1, effects: [{trigger: play, do: [{op: boost, stat: points, n: 1}]}]}`, "t1", "boost needs stat tech or sci"},
		{"cancel on play", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: cancel}]}]}`, "h", "cancel is for interrupt effects"},
		{"alter on play", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: alter, stat: tech, n: 1}]}]}`, "h", "alter is for interrupt effects"},
		{"alter zero", `{id: h, name: H, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: claim, do: [{op: alter, stat: tech}]}]}`, "h", "alter needs a non-zero n"},
		{"alter draw of a claim", `{id: h, name: H, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: claim, do: [{op: alter, stat: draw, n: 1}]}]}`, "h", `alter cannot change "draw" of a claim event`},
		{"alter a placement", `{id: h, name: H, type: hack, keywords: [interrupt], effects: [{trigger: interrupt, answers: place, do: [{op: alter, stat: tech, n: 1}]}]}`, "h", "of a place event"},
		{"bounce without target", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: bounce, who: chosen}]}]}`, "h", "bounce needs target monster or lab_equipment"},
		{"scrap a tool", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: scrap, who: chosen, target: tool}]}]}`, "h", "scrap needs target"},
		{"bounce own lab", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: bounce, target: monster}]}]}`, "h", "bounce needs who: opponents, chosen or actor"},
		{"look for others", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: look, n: 2, who: opponents}]}]}`, "h", "look always acts for the card's controller"},
		{"count without class", `{id: h, name: H, type: hack, requires: [{count: 2}], effects: [{trigger: play, do: [{op: draw, n: 1}]}]}`, "h", "count needs a class or a level"},
		{"choose one option", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: choose, options: [[{op: draw, n: 1}]]}]}]}`, "h", "at least two options"},
		{"choose empty option", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: choose, options: [[{op: draw, n: 1}], []]}]}]}`, "h", "an option of choose is empty"},
		{"choose nested", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: choose, options: [[{op: draw, n: 1}], [{op: choose, options: [[{op: draw, n: 1}], [{op: draw, n: 2}]]}]]}]}]}`, "h", "choose cannot nest"},
		{"bad op inside choose", `{id: h, name: H, type: hack, effects: [{trigger: play, do: [{op: choose, options: [[{op: draw, n: 1}], [{op: recover}]]}]}]}`, "h", "recover needs a positive n"},
		{"duplicate id", `{id: lamp, name: Another Lamp, type: lab_equipment}`, "lamp", "defined twice"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := "cards:\n" + baseCards + "  - " + tc.yaml + "\n"
			_, err := LoadCatalog([]byte(data))
			if err == nil {
				t.Fatalf("card accepted:\n%s", data)
			}
			var ce *CardError
			if !errors.As(err, &ce) {
				t.Fatalf("error %v is not a *CardError", err)
			}
			if ce.Card != tc.card {
				t.Errorf("error names card %q, want %q (%v)", ce.Card, tc.card, err)
			}
			if !strings.Contains(err.Error(), `"`+tc.card+`"`) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q should name %q and say %q", err, tc.card, tc.want)
			}
		})
	}
}

func TestLoadCatalogRejectsBadFiles(t *testing.T) {
	for _, tc := range []struct{ name, yaml, want string }{
		{"unknown field", "cards:\n  - {id: h, name: H, type: hack, colour: red}\n", "colour"},
		{"not yaml", "cards: [\n", "card data"},
		{"unknown deck card", "cards:\n" + baseCards + "decks:\n  - {id: d, name: Tiny, cards: [{card: ghost, count: 20}]}\n", `deck "Tiny": card "ghost": unknown_card`},
		{"deck too small", "cards:\n" + baseCards + "decks:\n  - {id: d, name: Tiny, cards: [{card: plain, count: 2}]}\n", `deck "Tiny": deck_size`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadCatalog([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
	// A card may refer to a card defined in another file.
	if _, err := LoadCatalog([]byte("cards:\n"+baseCards),
		[]byte("cards:\n  - {id: st, name: St, type: tool, tech: 1, keywords: [stack], recipe: [part-a]}\n")); err != nil {
		t.Errorf("recipe across files: %v", err)
	}
}

func TestValidateDeckErrors(t *testing.T) {
	cat := Standard()
	// filler returns n distinct ordinary cards (no one/many marker, not
	// rapid-prototype, which the rows add), one copy each.
	var ordinary []string
	for _, c := range cat.Cards() {
		if c.Type != Challenge && !c.One && c.Many == 0 && c.ID != "rapid-prototype" {
			ordinary = append(ordinary, c.ID)
		}
	}
	filler := func(n int) []DeckEntry {
		out := make([]DeckEntry, n)
		for i := range n {
			out[i] = DeckEntry{Card: ordinary[i], Count: 1}
		}
		return out
	}
	deck := func(entries ...[]DeckEntry) Deck {
		return Deck{ID: "test", Name: "Test", Cards: slices.Concat(entries...)}
	}
	e := func(card string, n int) []DeckEntry { return []DeckEntry{{Card: card, Count: n}} }
	if len(ordinary) < 40 {
		t.Fatalf("only %d ordinary cards", len(ordinary))
	}
	osl := cat.Card("open-source-library")
	if osl == nil || osl.Many != 4 {
		t.Fatalf("open-source-library should be marked many: 4")
	}
	for _, tc := range []struct {
		name    string
		d       Deck
		office  bool
		players int
		card    string
		rule    DeckRule
		want    string
	}{
		{"too few", deck(filler(19)), false, 0, "", RuleDeckSize, "20 to 30 cards, this one has 19"},
		{"too many", deck(filler(31)), false, 0, "", RuleDeckSize, "this one has 31"},
		{"three copies", deck(filler(20), e("rapid-prototype", 3)), false, 0, "rapid-prototype", RuleCopies, "at most 2 copies of a card, the deck has 3"},
		{"one card twice", deck(filler(20), e("glitchy-chief", 2)), false, 0, "glitchy-chief", RuleOneCopy, "a card marked one allows 1 copy, the deck has 2"},
		{"many over its number", deck(filler(20), e("open-source-library", 5)), false, 0, "open-source-library", RuleManyCopies, "marked many allows 4 copies, the deck has 5"},
		{"unknown card", deck(filler(20), e("ghost-card", 1)), false, 0, "ghost-card", RuleUnknown, "no such card"},
		{"challenge card", deck(filler(20), e("landing-page", 1)), false, 0, "landing-page", RuleCardType, "Challenge Deck"},
		{"zero count", deck(filler(20), e("rapid-prototype", 0)), false, 0, "rapid-prototype", RuleCopies, "count must be positive"},
		{"office 5 copies", deck(filler(40), e("rapid-prototype", 5)), true, 2, "rapid-prototype", RuleCopies, "at most 4 copies of a card, the deck has 5"},
		{"office one x3", deck(filler(40), e("glitchy-chief", 3)), true, 2, "glitchy-chief", RuleOneCopy, "allows 2 copies, the deck has 3"},
		{"office many over double", deck(filler(40), e("open-source-library", 9)), true, 2, "open-source-library", RuleManyCopies, "allows 8 copies, the deck has 9"},
		{"office too small", deck(filler(40), e("rapid-prototype", 3)), true, 3, "", RuleDeckSize, "for 3 players needs at least 60 cards, it has 43"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := ValidateDeck(cat, tc.d, tc.office, tc.players)
			var de *DeckError
			if !errors.As(err, &de) {
				t.Fatalf("got %v, want a *DeckError", err)
			}
			if de.Card != tc.card || de.Rule != tc.rule {
				t.Errorf("got card %q rule %s, want card %q rule %s (%v)", de.Card, de.Rule, tc.card, tc.rule, err)
			}
			if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), string(tc.rule)+":") {
				t.Errorf("error %q should name rule %s and say %q", err, tc.rule, tc.want)
			}
			if tc.card != "" && !strings.Contains(err.Error(), `"`+tc.card+`"`) {
				t.Errorf("error %q should name card %q", err, tc.card)
			}
		})
	}
	// The limits themselves are legal.
	for _, tc := range []struct {
		name    string
		d       Deck
		office  bool
		players int
	}{
		{"20 cards", deck(filler(20)), false, 0},
		{"30 cards", deck(filler(28), e("rapid-prototype", 2)), false, 0},
		{"many at its number", deck(filler(20), e("open-source-library", 4)), false, 0},
		{"one once", deck(filler(20), e("glitchy-chief", 1)), false, 0},
		{"office 4 copies, one x2, many x2", deck(filler(40), e("rapid-prototype", 4), e("glitchy-chief", 2), e("open-source-library", 8)), true, 2},
	} {
		if err := ValidateDeck(cat, tc.d, tc.office, tc.players); err != nil {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
