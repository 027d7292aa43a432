package inbound

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/mail"
	"strings"

	"github.com/datamonsters/turns/models"
	"github.com/emersion/go-message"
	_ "github.com/emersion/go-message/charset" // decode the charsets mail clients use
	gomail "github.com/emersion/go-message/mail"
)

// Limits of the MIME reading.
const (
	maxParts     = 50        // parts read from one message
	maxPartBytes = 256 << 10 // bytes read from one text part
	// maxDepth is how deep multiparts are read: a part nested deeper is
	// skipped unread. Every level of nesting is one more reader each byte
	// goes through, so that reading thousands of levels (a few hundred KiB
	// of boundaries) took minutes of CPU.
	maxDepth = 8
)

// ErrMalformed is a message that cannot be read as RFC 5322 mail.
var ErrMalformed = errors.New("inbound: malformed message")

// Mail is what the service reads of an inbound message.
type Mail struct {
	From        string   // the From address (addr-spec, lower case), "" if none
	FromName    string   // its display name, as written (untrusted)
	To          []string // the To and Cc addresses
	MessageID   string   // without angle brackets, "" if none
	InReplyTo   []string // ids without angle brackets
	References  []string
	Subject     string // decoded
	Received    int    // how many Received headers it carries
	AutoReply   string // why it is an automatic message ("" for none): the header that says so
	Report      bool   // a delivery status or disposition report (a bounce)
	Text        string // the text the reply was written in: the text part, or the HTML part as text
	HTMLOnly    bool   // Text came from the HTML part
	ReturnEmpty bool   // the Return-Path header is "<>"

	rawID string // MessageID as sent, before MakeStorable: what tells messages apart
}

// Parse reads raw as a MIME message: its headers, and its text (the first
// text/plain part that is not an attachment, or else the first text/html
// part rendered as text; charsets are decoded). Malformed headers give an
// error wrapping ErrMalformed; a body that cannot be read leaves Text
// empty. Every text it returns is storable (models.MakeStorable).
func Parse(raw []byte) (*Mail, error) {
	e, err := message.Read(bytes.NewReader(raw))
	if err != nil && !message.IsUnknownCharset(err) {
		return nil, fmt.Errorf("%w: %v", ErrMalformed, err)
	}
	h := gomail.Header{Header: e.Header}
	m := &Mail{}
	if list, err := h.AddressList("From"); err == nil && len(list) > 0 {
		m.From, m.FromName = strings.ToLower(list[0].Address), list[0].Name
	} else if f := h.Get("From"); f != "" {
		if a, err := mail.ParseAddress(f); err == nil {
			m.From, m.FromName = strings.ToLower(a.Address), a.Name
		}
	}
	for _, k := range []string{"To", "Cc"} {
		if list, err := h.AddressList(k); err == nil {
			for _, a := range list {
				m.To = append(m.To, strings.ToLower(a.Address))
			}
		}
	}
	m.MessageID = strings.Trim(strings.TrimSpace(h.Get("Message-Id")), "<>")
	m.InReplyTo = msgIDs(h.Get("In-Reply-To"))
	m.References = msgIDs(h.Get("References"))
	if s, err := h.Subject(); err == nil {
		m.Subject = s
	} else {
		m.Subject = h.Get("Subject")
	}
	m.Received = len(h.Values("Received"))
	m.ReturnEmpty = strings.TrimSpace(h.Get("Return-Path")) == "<>"
	m.AutoReply = autoReply(h.Get)
	if ct, _, _ := mime.ParseMediaType(h.Get("Content-Type")); ct == "multipart/report" ||
		ct == "message/delivery-status" || ct == "message/disposition-notification" {
		m.Report = true
	}
	var htmlText string
	// The parts, depth first, as gomail.Reader walks them, but no deeper
	// than maxDepth; a message that is not multipart is its one part.
	single := e
	var readers []message.MultipartReader
	if mr := e.MultipartReader(); mr != nil {
		readers, single = append(readers, mr), nil
	}
	next := func() *message.Entity {
		if p := single; p != nil {
			single = nil
			return p
		}
		for len(readers) > 0 {
			p, err := readers[len(readers)-1].NextPart()
			if err == io.EOF {
				readers = readers[:len(readers)-1]
				continue
			}
			if p == nil {
				return nil // a broken part ends the reading
			}
			if mr := p.MultipartReader(); mr != nil {
				if len(readers) < maxDepth {
					readers = append(readers, mr)
				}
				continue
			}
			return p
		}
		return nil
	}
	for i := 0; i < maxParts; i++ {
		p := next()
		if p == nil {
			break
		}
		// What gomail.Reader takes for text rather than an attachment.
		t, _, _ := p.Header.ContentType()
		if disp, _, _ := p.Header.ContentDisposition(); disp != "inline" && (disp == "attachment" || !strings.HasPrefix(t, "text/")) {
			continue // an attachment
		}
		switch {
		case t == "message/delivery-status" || t == "message/disposition-notification":
			m.Report = true
		case t == "text/plain" && m.Text == "":
			b, _ := io.ReadAll(io.LimitReader(p.Body, maxPartBytes))
			m.Text = string(b)
		case t == "text/html" && htmlText == "":
			htmlText = HTMLText(io.LimitReader(p.Body, maxPartBytes))
		}
	}
	if strings.TrimSpace(m.Text) == "" && htmlText != "" {
		m.Text, m.HTMLOnly = htmlText, true
	}
	// What a message says is kept, logged and quoted back in answers: a
	// NUL or bytes that are not UTF-8 become U+FFFD, so that no text of a
	// sender can make the store refuse the answer.
	m.rawID = m.MessageID
	for _, s := range []*string{&m.From, &m.FromName, &m.MessageID, &m.Subject, &m.AutoReply, &m.Text} {
		*s = models.MakeStorable(*s)
	}
	for _, ids := range [][]string{m.To, m.InReplyTo, m.References} {
		for i := range ids {
			ids[i] = models.MakeStorable(ids[i])
		}
	}
	return m, nil
}

// msgIDs reads the ids of an In-Reply-To or References header.
func msgIDs(v string) []string {
	var out []string
	for _, f := range strings.Fields(v) {
		if id := strings.Trim(f, "<>,"); id != "" && len(out) < 50 {
			out = append(out, id)
		}
	}
	return out
}

// autoReply says which header marks the message as sent by a program
// rather than a person (RFC 3834 Auto-Submitted, Precedence bulk, junk or
// list, the markers of vacation responders and mailing lists), "" for
// none.
func autoReply(get func(string) string) string {
	if v := strings.ToLower(strings.TrimSpace(get("Auto-Submitted"))); v != "" && v != "no" {
		return "Auto-Submitted: " + v
	}
	switch v := strings.ToLower(strings.TrimSpace(get("Precedence"))); v {
	case "bulk", "junk", "list", "auto_reply":
		return "Precedence: " + v
	}
	for _, k := range []string{"X-Autoreply", "X-Autorespond", "X-Auto-Response-Suppress", "X-Autogenerated", "List-Id", "List-Unsubscribe", "Feedback-Id"} {
		if v := strings.TrimSpace(get(k)); v != "" {
			if k == "X-Auto-Response-Suppress" && !strings.Contains(strings.ToLower(v), "all") {
				continue
			}
			return k + ": " + v
		}
	}
	return ""
}
