package inbound

import (
	"regexp"
	"strings"
)

// maxBodyLines is the most lines of a body Cut reads.
const maxBodyLines = 2000

var (
	// attribution lines that mail clients put above the quoted original,
	// in the languages they are most often set to: "On Tue, 1 Dec 2026 at
	// 10:00, Data Monsters <turns@dm.example> wrote:", "Le … a écrit :",
	// "Am … schrieb …:", "El … escribió:".
	attribution = regexp.MustCompile(`(?i)^(on|le|am|el|il|op|em|den|på)\b.{0,300}\b(wrote|a écrit|schrieb|escribió|ha scritto|schreef|escreveu|skrev)\b.{0,80}:?\s*$`)
	// the first line of an attribution that a client wrapped: "On Tue, 1
	// Dec 2026 at 10:00, Data Monsters <" with "turns@dm.example> wrote:"
	// on the next line.
	wrappedStart = regexp.MustCompile(`(?i)^(on|le|am|el)\s.{4,200}$`)
	wrappedEnd   = regexp.MustCompile(`(?i)\b(wrote|a écrit|schrieb|escribió):?\s*$`)
	// separators of the original in clients that do not prefix it.
	separator = regexp.MustCompile(`(?i)^(-{2,}\s*(original message|forwarded message|mensaje original|message d'origine|ursprüngliche nachricht)\s*-{2,}|_{10,}|-{10,}|begin forwarded message:)\s*$`)
	// an Outlook-style header block: "From: …" then "Sent:"/"Date:"/"To:".
	headerFrom = regexp.MustCompile(`(?i)^\*?(from|von|de|da)\s*:\*?\s`)
	headerNext = regexp.MustCompile(`(?i)^\*?(sent|date|to|subject|gesendet|envoyé|enviado|an|à|para)\s*:`)
	// signatures phones and webmail add, and the signature delimiter.
	mobileSignature = regexp.MustCompile(`(?i)^(sent from my \w+|sent from (yahoo mail|mail for windows|outlook|proton ?mail|my mobile)|get outlook for (ios|android)|envoyé de mon \w+|von meinem \w+ gesendet|enviado desde mi \w+)\b`)
)

// Cut returns the reply's own text: body up to the quoted original or the
// signature, whichever comes first. The quoted original starts at a line
// prefixed with ">", a client's attribution line ("On … wrote:", also
// wrapped over two lines and in a few languages), a separator
// ("-----Original Message-----", a line of underscores) or an Outlook
// header block ("From: …" followed by "Sent:" or "Date:"); a signature at
// "-- " (or "--") alone on a line or a phone's "Sent from my iPhone".
// Line endings become "\n"; at most maxBodyLines lines are read. A reply
// with nothing above the quote was written below it (below).
func Cut(body string) string {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = strings.ReplaceAll(body, "\r", "\n")
	lines := strings.SplitN(body, "\n", maxBodyLines+1)
	if len(lines) > maxBodyLines {
		lines = lines[:maxBodyLines]
	}
	end := len(lines)
	for i, raw := range lines {
		l := strings.TrimSpace(strings.TrimPrefix(raw, "\ufeff"))
		next := ""
		if i+1 < len(lines) {
			next = strings.TrimSpace(lines[i+1])
		}
		switch {
		case strings.HasPrefix(l, ">"), strings.HasPrefix(l, "|>"):
		case attribution.MatchString(l):
		case wrappedStart.MatchString(l) && !wrappedEnd.MatchString(l) && wrappedEnd.MatchString(next) && len(next) < 200:
		case separator.MatchString(l):
		case headerFrom.MatchString(l) && headerNext.MatchString(next):
		case raw == "-- " || l == "--" || l == "—":
		case mobileSignature.MatchString(l):
		default:
			continue
		}
		end = i
		break
	}
	if top := strings.TrimSpace(strings.Join(lines[:end], "\n")); top != "" || end == len(lines) {
		return top
	}
	return below(lines[end:])
}

// below is the text of a reply written under the quoted original
// ("bottom posting", as Thunderbird and many plain-text writers do):
// lines, from the quote on, are an attribution line (or none), an
// original quoted with ">" on every line, then the reply, read up to the
// next quoted line or a signature. An original quoted any other way (an
// Outlook header block, a separator) gives nothing: its lines cannot be
// told from the reply's, and its numbered list must never read as moves.
func below(lines []string) string {
	start, quoted := -1, false
	for i, raw := range lines {
		l := strings.TrimSpace(raw)
		isQuote := strings.HasPrefix(l, ">") || strings.HasPrefix(l, "|>")
		switch {
		case isQuote:
			if start >= 0 {
				return strings.TrimSpace(strings.Join(lines[start:i], "\n"))
			}
			quoted = true
		case raw == "-- " || l == "--" || l == "—" || mobileSignature.MatchString(l):
			if start >= 0 {
				return strings.TrimSpace(strings.Join(lines[start:i], "\n"))
			}
			if quoted {
				return ""
			}
		case start >= 0 || l == "":
		case quoted:
			start = i
		case attribution.MatchString(l),
			wrappedStart.MatchString(l) && i+1 < len(lines) && wrappedEnd.MatchString(strings.TrimSpace(lines[i+1])),
			wrappedEnd.MatchString(l) && i > 0 && wrappedStart.MatchString(strings.TrimSpace(lines[i-1])):
		default:
			return "" // text before any ">" line: not an original quoted with ">"
		}
	}
	if start < 0 {
		return ""
	}
	return strings.TrimSpace(strings.Join(lines[start:], "\n"))
}
