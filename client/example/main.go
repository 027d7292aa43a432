// Command example plays a whole game of Data Monsters against the
// service's bot through the generated client alone (package client): it
// registers a player, opens a fast game with one bot seat, starts it, and
// plays until the game is over, reading what it may do from the game's
// legal actions.
//
//	go run ./cmd/datamonsters serve &
//	go run ./client/example -url http://localhost:8080
//
// Its play is simple: claim a challenge when it can, else play a Tool or
// place a card, else end the turn; a prompt gets the first options it
// needs.
package main

import (
	"context"
	"crypto/rand"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/datamonsters/turns/client"
)

func main() {
	url := flag.String("url", "http://localhost:8080", "the service's address")
	flag.Parse()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	if err := run(ctx, *url, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "example:", err)
		os.Exit(1)
	}
}

// run plays one game against the bot on the service at base, saying what
// happens on out.
func run(ctx context.Context, base string, out io.Writer) error {
	c, err := client.NewClientWithResponses(base)
	if err != nil {
		return err
	}
	name := "bot-fan-" + strings.ToLower(rand.Text()[:8])
	reg, err := c.RegisterWithResponse(ctx, nil, client.RegisterRequest{Username: name, Password: rand.Text()})
	if err != nil {
		return err
	}
	if reg.JSON201 == nil {
		return fmt.Errorf("register: %s %s", reg.Status(), reg.Body)
	}
	token := reg.JSON201.AccessToken
	auth := client.RequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	})
	fmt.Fprintln(out, "registered")

	decks, err := c.ListPrebuiltDecksWithResponse(ctx)
	if err != nil {
		return err
	}
	if decks.JSON200 == nil || len(decks.JSON200.Decks) == 0 {
		return fmt.Errorf("prebuilt decks: %s", decks.Status())
	}
	mode, bots := client.CreateGameRequestModeFast, 1
	created, err := c.CreateGameWithResponse(ctx, nil, client.CreateGameRequest{Players: 2, Mode: &mode, Bots: &bots,
		Deck: client.DeckChoice{Prebuilt: &decks.JSON200.Decks[0].Id}}, auth)
	if err != nil {
		return err
	}
	if created.JSON201 == nil {
		return fmt.Errorf("create a game: %s %s", created.Status(), created.Body)
	}
	id := created.JSON201.Id
	started, err := c.StartGameWithResponse(ctx, id, nil, auth)
	if err != nil {
		return err
	}
	if started.JSON200 == nil {
		return fmt.Errorf("start the game: %s %s", started.Status(), started.Body)
	}
	fmt.Fprintln(out, "started a game against the bot")

	moves := 0
	for {
		g, err := c.GetGameWithResponse(ctx, id, nil, auth)
		if err != nil {
			return err
		}
		if g.JSON200 == nil {
			return fmt.Errorf("read the game: %s %s", g.Status(), g.Body)
		}
		game := g.JSON200
		if game.Status == client.GameStatusOver {
			return over(out, game, moves)
		}
		if game.Legal == nil || len(*game.Legal) == 0 {
			select { // the bot's turn, or its answer to a prompt
			case <-ctx.Done():
				return ctx.Err()
			case <-time.After(50 * time.Millisecond):
			}
			continue
		}
		act := choose(*game.Legal)
		version := game.Version
		res, err := c.SubmitActionsWithResponse(ctx, id, nil, client.SubmitRequest{ExpectedVersion: &version,
			Actions: []client.Action{act}}, auth)
		if err != nil {
			return err
		}
		switch {
		case res.JSON200 != nil:
			moves++
		case res.StatusCode() == http.StatusConflict: // the bot moved meanwhile: read again
		default:
			return fmt.Errorf("submit %s: %s %s", act.Type, res.Status(), res.Body)
		}
		if moves > 2000 {
			return errors.New("the game did not end in 2000 moves")
		}
	}
}

// choose picks what to do among the legal actions: the first answer of a
// prompt (with the first options it needs), else a claim, a Tool, a card
// to place, or the end of the turn.
func choose(legal []client.LegalAction) client.Action {
	for _, l := range legal {
		if l.Type == client.LegalActionTypeAnswer && l.Options != nil && l.Min != nil {
			choices := []string{}
			for _, o := range (*l.Options)[:*l.Min] {
				choices = append(choices, o.Id)
			}
			return client.Action{Type: client.ActionTypeAnswer, Prompt: l.Prompt, Choices: &choices}
		}
	}
	for _, want := range []client.LegalActionType{client.LegalActionTypeClaim, client.LegalActionTypePlayTool,
		client.LegalActionTypePlace, client.LegalActionTypeEndTurn} {
		for _, l := range legal {
			if l.Type == want {
				// A turn action is complete: send it as listed, without its text.
				return client.Action{Type: client.ActionType(l.Type), Card: l.Card, Challenges: l.Challenges}
			}
		}
	}
	l := legal[0]
	return client.Action{Type: client.ActionType(l.Type), Card: l.Card, Challenges: l.Challenges}
}

// over says how the game ended.
func over(out io.Writer, g *client.Game, moves int) error {
	if g.View == nil || len(g.Winners) == 0 {
		return fmt.Errorf("the game is over without a final view or winners: %+v", g)
	}
	me := -1
	if g.YourSeat != nil {
		me = *g.YourSeat
	}
	fmt.Fprintf(out, "the game is over after %d moves of ours\n", moves)
	for _, p := range g.View.Players {
		fmt.Fprintf(out, "%s: %d Big Data Points\n", p.Name, p.Points)
	}
	for _, w := range g.Winners {
		if w == me {
			fmt.Fprintln(out, "we won")
			return nil
		}
	}
	fmt.Fprintln(out, "the bot won")
	return nil
}
