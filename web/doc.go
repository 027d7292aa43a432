// Package web is the browser's front door: server-rendered pages
// (html/template) on the API's gin router, with their templates, style and
// script embedded in the binary.
//
// What it holds:
//   - accounts: register, sign in and out, email verification, password
//     reset (accounts.go), on sessions kept in the database and named by an
//     HttpOnly cookie (session.go);
//   - the sign-in links of emails that ask their recipient to act
//     (signin.go; the outbox signs them, see notifier.SignInURL);
//   - the settings (settings.go): address, time zone, notification
//     preferences, vacations and API tokens, translated to the JSON API's own
//     routes (apicall.go), so that both doors apply one set of rules;
//   - the games (games.go): the list of the user's games and each game's
//     page.
//
// Every page goes through one layout (templates/layout.html) and every
// error through one mapping (errors.go). State-changing requests from
// another site are refused (net/http.CrossOriginProtection), and a GET never
// changes anything: a link in an email opens a page whose button posts.
package web
