// Package ical writes iCalendar (RFC 5545) calendars of events: the
// calendar feeds of the players' deadlines. It writes what a feed needs
// and no more: one VCALENDAR of VEVENTs with UTC times, TEXT escaped
// (backslash, semicolon, comma, newline) and every content line folded at
// 75 octets without splitting a character, with CRLF line ends. Standard
// library only.
package ical
