// Package web is the browser's front door: server-rendered pages
// (html/template), mounted by main beside the JSON API on the house's
// router (package internal/router), with their templates, style and
// script embedded in the binary.
//
// What it holds:
//   - accounts: register, sign in and out, email verification, password
//     reset (accounts.go), on sessions kept in the database and named by an
//     HttpOnly cookie (session.go), all through package accounts;
//   - the sign-in links of emails that ask their recipient to act
//     (signin.go; the outbox signs them, see notifier.SignInURL);
//   - the settings (settings.go): address, time zone, notification
//     preferences, vacations, the calendar feed and API tokens, calling
//     the accounts as the JSON API does, so that both doors apply one set
//     of rules (the pages never call the API); and the deletion of the
//     account;
//   - the rules page (rules.go): how to play, and the glossary;
//   - the lobby (games.go, lobby.go): the user's games, those that wait for
//     them first (with deadlines and results), their invitations and the
//     public games with an open seat; a new game with every setting of the
//     play path; join, leave, decline, start, cancel, rematch; the lobby
//     and an open game's page follow by polling;
//   - invitations by email and shareable join links (invite.go);
//   - the board (board.go): a game as its reader may see it, with what
//     their seat may do as forms, each one action applied at once through
//     the play path at the page's version (moves.go); it follows its game
//     over the live stream (live.go) and its small script; without script
//     every action is a form post and a redirect; a banner above it says
//     what changed since the reader last looked (news.go), and the page is
//     sent compressed, a board kept drawn compressed once (compress.go);
//   - the page of an email's unsubscribe link, for the API (unsubscribe.go);
//   - the action links of decision emails (act.go): a page that shows one
//     action and a button that applies it once.
//
// Every change of a game goes through the play path (package play), and of
// an account through the accounts, whose refusals the pages word; nothing
// about a game is decided here. Every page goes through one layout
// (Pages.layout) and every error through one mapping (errors.go),
// whose statuses are the shared table's of package refusal: a handler
// returns its error, and the route table wraps it in Pages.handle, which
// renders the error page. State-changing requests from another site are
// refused (net/http.CrossOriginProtection), and a GET never
// changes anything: a link in an email opens a page whose button posts.
package web
