// Package inbound takes replies to decision emails and plays them: the
// third front door of the play path, beside the API and the web pages.
//
// A decision email's Reply-To is a signed reply address
// (notifier.Reply) naming the game, seat, user and version it was written
// for. Mail comes in by the inbound SMTP server (SMTPServer, which refuses
// at RCPT TO every recipient that is not such an address) or by a raw
// message a mail provider posts (Service.ReceiveRaw, behind POST
// /v1/inbound/email), and both go into Service.Receive: it drops automatic
// messages, bounces and loops, checks the address's signature and expiry,
// the sender and the seat, reads the MIME message (Parse), cuts the quoted
// original and signatures (Cut), reads the commands (play.ReadCommands, play.Resolve) against the
// lines of the email at its version (engine.Numbered), submits them as one
// batch through play.Service.Submit, and writes the answer to the outbox,
// in the game's thread. docs/email.md describes the command language and
// every check.
package inbound
