package api

import (
	"encoding/json"
	"net/http"

	"github.com/datamonsters/turns/engine"
	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/refusal"
	"github.com/gin-gonic/gin"
)

// listCards is the card catalogue with texts generated from the card data.
func (s *Server) listCards(c *gin.Context) {
	out := cardListResponse{Cards: []cardResponse{}}
	for _, card := range s.cat.Cards() {
		cr := cardResponse{ID: card.ID, Name: card.Name, Type: card.Type.String(), Level: card.Level.String(),
			Classes: []string{}, Tech: card.Tech, Sci: card.Sci, Points: card.Points, Hard: card.Hard,
			Keywords: []string{}, Text: engine.CardText(card), Flavor: card.Flavor}
		for _, cl := range card.Classes {
			cr.Classes = append(cr.Classes, cl.String())
		}
		for _, k := range card.Keywords {
			cr.Keywords = append(cr.Keywords, k.String())
		}
		out.Cards = append(out.Cards, cr)
	}
	c.Header("Cache-Control", "public, max-age=3600")
	writeJSON(c, http.StatusOK, out)
}

func entriesOut(d engine.Deck) []deckEntry {
	out := make([]deckEntry, 0, len(d.Cards))
	for _, e := range d.Cards {
		out = append(out, deckEntry{Card: e.Card, Count: e.Count})
	}
	return out
}

// listPrebuiltDecks lists the Adventure Pack decks.
func (s *Server) listPrebuiltDecks(c *gin.Context) {
	out := prebuiltDeckList{Decks: []prebuiltDeck{}}
	for _, d := range s.cat.Decks() {
		out.Decks = append(out.Decks, prebuiltDeck{ID: d.ID, Name: d.Name, Size: d.Size(), Cards: entriesOut(d)})
	}
	c.Header("Cache-Control", "public, max-age=3600")
	writeJSON(c, http.StatusOK, out)
}

// engineDeck converts a deck request into an engine deck list.
func engineDeck(name string, entries []deckEntry) engine.Deck {
	d := engine.Deck{Name: name}
	for _, e := range entries {
		d.Cards = append(d.Cards, engine.DeckEntry{Card: e.Card, Count: e.Count})
	}
	return d
}

// storedDeck reads a stored deck list.
func storedDeck(d *models.Deck) (engine.Deck, error) { return d.List() }

func deckOut(d *models.Deck) (deckResponse, error) {
	ed, err := storedDeck(d)
	if err != nil {
		return deckResponse{}, err
	}
	return deckResponse{ID: d.ID, Name: d.Name, Size: ed.Size(), Cards: entriesOut(ed),
		CreatedAt: rfc3339(d.CreatedAt), UpdatedAt: rfc3339(d.UpdatedAt)}, nil
}

// readDeck decodes the caller's deck from the body and checks its name and
// the engine's deck-building rules for a personal deck (any table size).
func (s *Server) readDeck(c *gin.Context) (*models.Deck, error) {
	var req deckRequest
	if err := decode(c, &req); err != nil {
		return nil, err
	}
	if err := checkDeckLimits(req); err != nil {
		return nil, err
	}
	if err := engine.ValidateDeck(s.cat, engineDeck(req.Name, req.Cards), false, engine.MinPlayers); err != nil {
		return nil, err
	}
	data, err := json.Marshal(req.Cards)
	if err != nil {
		return nil, err
	}
	return &models.Deck{UserID: userID(c), Name: req.Name, Cards: string(data)}, nil
}

// maxDecks is how many decks one account may keep: one more is refused
// (limit_reached) until one is deleted.
const maxDecks = 100

// createDeck stores a custom deck after the engine's deck rules accept it,
// unless the caller keeps maxDecks already.
func (s *Server) createDeck(c *gin.Context) error {
	d, err := s.readDeck(c)
	if err != nil {
		return err
	}
	return s.idempotentCreate(c, func(st *models.Store) (response, error) {
		ok, err := st.Room(c.Request.Context(), d.UserID, models.Decks, maxDecks)
		if err != nil {
			return response{}, err
		}
		if !ok {
			return response{}, refusal.LimitReached(maxDecks, "decks", "delete one first")
		}
		if err := st.CreateDeck(c.Request.Context(), d); err != nil {
			return response{}, err
		}
		out, err := deckOut(d)
		return response{status: http.StatusCreated, body: out}, err
	})
}

func (s *Server) respondDeck(c *gin.Context, status int, d *models.Deck) error {
	out, err := deckOut(d)
	if err != nil {
		return err
	}
	writeJSON(c, status, out)
	return nil
}

// listDecks lists the caller's custom decks, oldest first.
func (s *Server) listDecks(c *gin.Context) error {
	after, err := decodeCursor(c, "deck")
	if err != nil {
		return err
	}
	limit, err := queryInt(c, "limit", 50, 1, 100)
	if err != nil {
		return err
	}
	list, err := s.store.Decks(c.Request.Context(), userID(c), after, int(limit)+1)
	if err != nil {
		return err
	}
	out := deckListResponse{Decks: []deckResponse{}}
	if len(list) > int(limit) {
		list = list[:limit]
		out.NextCursor = encodeCursor("deck", list[len(list)-1].ID)
	}
	for i := range list {
		d, err := deckOut(&list[i])
		if err != nil {
			return err
		}
		out.Decks = append(out.Decks, d)
	}
	writeJSON(c, http.StatusOK, out)
	return nil
}

// getDeck returns one of the caller's decks.
func (s *Server) getDeck(c *gin.Context, id int64) error {
	d, err := s.store.Deck(c.Request.Context(), userID(c), id)
	if err != nil {
		return err
	}
	return s.respondDeck(c, http.StatusOK, d)
}

// updateDeck replaces one of the caller's decks.
func (s *Server) updateDeck(c *gin.Context, id int64) error {
	d, err := s.readDeck(c)
	if err != nil {
		return err
	}
	d.ID = id
	if err := s.store.UpdateDeck(c.Request.Context(), d); err != nil {
		return err
	}
	return s.respondDeck(c, http.StatusOK, d)
}

// deleteDeck deletes one of the caller's decks. Games already started keep
// their copy of the list.
func (s *Server) deleteDeck(c *gin.Context, id int64) error {
	if err := s.store.DeleteDeck(c.Request.Context(), userID(c), id); err != nil {
		return err
	}
	c.Status(http.StatusNoContent)
	return nil
}
