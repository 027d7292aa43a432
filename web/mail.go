package web

import (
	"bytes"
	"cmp"
	"context"
	"encoding/hex"
	htmltemplate "html/template"
	"strconv"
	texttemplate "text/template"
	"time"

	"github.com/datamonsters/turns/models"
	"github.com/datamonsters/turns/notifier"
)

// The mail the pages send themselves, at the user's request: a link to
// verify an address and a link to set a new password. They go through the
// notifier's sender (SMTP, or the mail folder) at once, not through the
// outbox: the person who asked is waiting for them, and asks again if one
// does not come.

// mailData is what the mail templates get.
type mailData struct {
	mailWords
	Name string // the recipient's display name or username
	URL  string // the link
}

// mailWords are the words of one kind of mail, in the text and the HTML
// body alike.
type mailWords struct {
	Subject string
	Lead    string // what the mail is about
	Button  string // the link's label
	After   string // how long it works, and what if it was not asked for
}

var (
	mailText = texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/mail/mail.txt"))
	mailHTML = htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/mail/mail.html"))
)

// verifyWords and resetWords are the mails that verify an address and
// set a new password.
func verifyWords(addr string, valid time.Duration) mailWords {
	return mailWords{Subject: "[Data Monsters] Verify your address",
		Lead:   "Please confirm that " + addr + " is your address for Data Monsters.",
		Button: "Verify my address",
		After:  "The link works for " + notifier.HumanDuration(valid) + ". If you did not ask for it, ignore this mail."}
}

func resetWords(valid time.Duration) mailWords {
	return mailWords{Subject: "[Data Monsters] Set a new password",
		Lead:   "Someone asked to set a new password for your Data Monsters account.",
		Button: "Choose a new password",
		After: "The link works once, for " + notifier.HumanDuration(valid) + ". A new password signs you out everywhere else. " +
			"If you did not ask for it, ignore this mail: your password stays as it is."}
}

// sendMail sends a the mail of words with link, to a's address. It gives
// errNoMail when no sender is configured.
func (p *Pages) sendMail(ctx context.Context, words mailWords, a *models.Account, link string) error {
	if p.mail == nil {
		return errNoMail
	}
	d := mailData{mailWords: words, Name: cmp.Or(a.DisplayName, a.Username), URL: link}
	var text, html bytes.Buffer
	if err := mailText.ExecuteTemplate(&text, "mail", d); err != nil {
		return err
	}
	if err := mailHTML.ExecuteTemplate(&html, "mail", d); err != nil {
		return err
	}
	key := "account.u" + strconv.FormatInt(a.ID, 10) + "." + hex.EncodeToString(notifier.NewNonce())
	ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	return p.mail.Send(ctx, notifier.Message{
		To: notifier.Address{Name: d.Name, Email: a.Email}, Subject: words.Subject, Text: text.String(), HTML: html.String(),
		MessageID: notifier.DeliveryMessageID("", key, cmp.Or(p.cfg.MailDomain, "localhost")),
	})
}
