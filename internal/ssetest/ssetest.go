// Package ssetest reads a Server-Sent Events stream as a client does, for
// the tests of the live streams (the API's and the pages').
package ssetest

import (
	"bufio"
	"io"
	"strings"
)

// Event is one event of a stream: its id, its type ("" for the default
// "message") and its data, the lines of data joined by newlines.
type Event struct{ ID, Type, Data string }

// Read reads the events of body until it ends, and sends each on the
// channel it returns; then it closes body and the channel. Comments
// (heartbeats) and events with empty data are left out.
func Read(body io.ReadCloser) <-chan Event {
	ch := make(chan Event, 100)
	go func() {
		defer close(ch)
		defer body.Close()
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		var ev Event
		var data []string
		for sc.Scan() {
			line := sc.Text()
			switch {
			case line == "":
				if ev.Data = strings.Join(data, "\n"); ev.Data != "" {
					ch <- ev
				}
				ev, data = Event{}, nil
			case strings.HasPrefix(line, "id: "):
				ev.ID = line[4:]
			case strings.HasPrefix(line, "event: "):
				ev.Type = line[7:]
			case strings.HasPrefix(line, "data: "):
				data = append(data, line[6:])
			}
		}
	}()
	return ch
}
